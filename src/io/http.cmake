# HTTP range requests over libcurl's multi interface. Included by the top-level
# CMakeLists.txt (after find_package(CURL)); tests are in tests/http/.
add_library(modelcat_http STATIC
  ${PROJECT_SOURCE_DIR}/src/io/http_fetcher.cpp
  ${PROJECT_SOURCE_DIR}/src/io/http_headers.cpp
  ${PROJECT_SOURCE_DIR}/src/io/http_reader.cpp
  ${PROJECT_SOURCE_DIR}/src/io/rate_budget.cpp)
target_include_directories(modelcat_http PUBLIC ${PROJECT_SOURCE_DIR}/src)
target_link_libraries(modelcat_http PRIVATE CURL::libcurl PUBLIC modelcat_io)

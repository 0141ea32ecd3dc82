// `modelcat --version`: what a bug report needs: the version, the commit built,
// the SQLite linked in, the libcurl it loads and the schema this build writes.
#include "cli/version.hpp"

#include <string>

#include "catalog/schema.hpp"
#include "io/http_fetcher.hpp"

#ifndef MODELCAT_VERSION
#define MODELCAT_VERSION "unknown"
#endif
#ifndef MODELCAT_GIT_COMMIT
#define MODELCAT_GIT_COMMIT "unknown"
#endif

namespace modelcat::cli {

std::string version_text() {
    return std::string("modelcat ") + MODELCAT_VERSION + " (git " + MODELCAT_GIT_COMMIT + ")\n" +
           "schema " + std::to_string(catalog::schema_version()) + "\n" +
           "SQLite " + catalog::sqlite_library_version() + "\n" +
           "libcurl " + io::curl_library_version();
}

}  // namespace modelcat::cli

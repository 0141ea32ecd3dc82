# Run at build time (POST_BUILD) with -DEXE= -DPREFIX= -DLABEL= -DOUT= -DLONG=a;b: writes OUT, a ctest
# include file with one test per gtest suite (EXE --gtest_filter=Suite.*), so that a suite's
# fixture is built once and its process started once. The LONG suites are given a high COST,
# so that ctest starts them first and none is left running alone at the end.
cmake_policy(VERSION 3.25)  # IN_LIST
execute_process(COMMAND "${EXE}" --gtest_list_tests OUTPUT_VARIABLE listing RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "${EXE} --gtest_list_tests failed (${status})")
endif()
string(REPLACE "\n" ";" lines "${listing}")
set(text "")
foreach(line IN LISTS lines)
  if(line MATCHES "^([A-Za-z0-9_/]+)\\.")
    set(suite "${CMAKE_MATCH_1}")
    set(cost 1)
    if(suite IN_LIST LONG)
      set(cost 1000)
    endif()
    string(APPEND text "add_test([==[${PREFIX}${suite}]==] \"${EXE}\" [==[--gtest_filter=${suite}.*]==])\n"
      "set_tests_properties([==[${PREFIX}${suite}]==] PROPERTIES LABELS ${LABEL} COST ${cost} TIMEOUT 300)\n")
  endif()
endforeach()
file(WRITE "${OUT}" "${text}")

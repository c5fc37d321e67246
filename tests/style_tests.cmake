# tests/style_tests.cmake: the one brace style of .clang-format (a
# function's body opens on its own line) over every C and OpenCL C file.
find_package(Python3 COMPONENTS Interpreter)
if(Python3_FOUND)
  file(GLOB_RECURSE SB_STYLE_FILES LIST_DIRECTORIES false
       ${PROJECT_SOURCE_DIR}/src/*.[ch] ${PROJECT_SOURCE_DIR}/include/*.h
       ${PROJECT_SOURCE_DIR}/cl/*.cl ${PROJECT_SOURCE_DIR}/tools/*.[ch]
       ${PROJECT_SOURCE_DIR}/tests/*.[ch] ${PROJECT_SOURCE_DIR}/tests/*.cpp)
  add_test(NAME one_brace_style
           COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tools/check_braces.py
                   ${SB_STYLE_FILES})
endif()

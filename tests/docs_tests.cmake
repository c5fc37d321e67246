# tests/docs_tests.cmake: what the documentation promises a reader, tested
# (include()d from tests/CMakeLists.txt):
#   header_in_c_and_cpp  samebits.h with gcc, clang, g++ and clang++ under
#                        -Wall -Wextra -Werror, OpenCL 1.2 and 3.0, the
#                        OpenCL headers (C) or bindings (C++) included
#                        before and after it
#   readme_snippets      every ```c block of README.md built with -Werror
#                        and ASan + UBSan, and run
# Not in a sanitizer build: these programs are built as a user builds
# them (the snippets instrumented on their own), against the plain library.
if(SAMEBITS_SANITIZE)
  return()
endif()
set(SB_CONFIG_INCLUDE ${PROJECT_BINARY_DIR}/include)
add_test(NAME header_in_c_and_cpp
  COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/header/check_header.sh
          ${PROJECT_SOURCE_DIR}/include ${SB_CONFIG_INCLUDE}
          $<TARGET_FILE_DIR:samebits> ${CMAKE_CURRENT_BINARY_DIR}/header-check)
set_tests_properties(header_in_c_and_cpp PROPERTIES TIMEOUT 600)
add_test(NAME readme_snippets
  COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/readme/check_snippets.sh
          ${PROJECT_SOURCE_DIR}/README.md ${PROJECT_SOURCE_DIR}/include
          ${SB_CONFIG_INCLUDE} $<TARGET_FILE_DIR:samebits>
          ${CMAKE_CURRENT_BINARY_DIR}/readme-snippets)
set_tests_properties(readme_snippets PROPERTIES TIMEOUT 600
  ENVIRONMENT "POCL_CACHE_DIR=${SAMEBITS_POCL_CACHE_DIR}")

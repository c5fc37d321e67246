# embed_cl.cmake: turns OpenCL C files into one C array, so the library
# reads nothing from disk at run time. An array, not a string literal: C11
# only promises 4,095 characters per literal.
#   cmake -DOUT=file.c -DNAME=symbol -DINPUTS="a.cl|b.cl" -P embed_cl.cmake
string(REPLACE "|" ";" INPUTS "${INPUTS}")
set(hex_all "")
foreach(in IN LISTS INPUTS)
  file(READ "${in}" hex HEX)
  string(APPEND hex_all "${hex}0a")   # a newline between files
endforeach()
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," hex_all "${hex_all}")
string(REGEX REPLACE "((0x..,){16})" "\\1\n" hex_all "${hex_all}")
file(WRITE "${OUT}" "/* Generated from cl/ by cmake/embed_cl.cmake; do not edit. */\n"
     "#include <stddef.h>\n"
     "const char ${NAME}[] = {\n${hex_all}0x00};\n"
     "const size_t ${NAME}_size = sizeof ${NAME} - 1;\n")

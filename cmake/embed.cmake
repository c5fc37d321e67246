# embed.cmake: turns files into one C array, so that what is built reads
# nothing from disk at run time: the library its OpenCL C kernels (cl/*.cl),
# the samebits command its golden corpus results. An array, not a string
# literal: C11 only promises 4,095 characters per literal. The files are
# joined with a newline between them; the array ends with a NUL that
# NAME_size does not count.
#   cmake -DOUT=file.c -DNAME=symbol -DINPUTS="a.cl|b.cl" -P embed.cmake
string(REPLACE "|" ";" INPUTS "${INPUTS}")
set(hex_all "")
set(names "")
list(LENGTH INPUTS count)
set(i 0)
foreach(in IN LISTS INPUTS)
  file(READ "${in}" hex HEX)
  string(APPEND hex_all "${hex}")
  math(EXPR i "${i} + 1")
  if(i LESS count)
    string(APPEND hex_all "0a")   # a newline between files
  endif()
  get_filename_component(name "${in}" NAME)
  list(APPEND names "${name}")
endforeach()
string(LENGTH "${hex_all}" hex_length)
math(EXPR size "${hex_length} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," hex_all "${hex_all}")
string(REGEX REPLACE "((0x..,){16})" "\\1\n" hex_all "${hex_all}")
string(REPLACE ";" ", " names "${names}")
file(WRITE "${OUT}" "/* Generated from ${names} by cmake/embed.cmake; do not edit. */\n"
     "#include <stddef.h>\n"
     "const char ${NAME}[] = {\n${hex_all}0x00};\n"
     "const size_t ${NAME}_size = ${size};\n")

# embed_text.cmake: turns a text file into a C array, so that the samebits
# command carries it (the golden corpus results) and reads nothing from
# disk at run time. An array, not a string literal: C11 only promises
# 4,095 characters per literal.
#   cmake -DIN=file.txt -DOUT=file.c -DNAME=symbol -P embed_text.cmake
get_filename_component(in_name "${IN}" NAME)
file(READ "${IN}" hex HEX)
string(LENGTH "${hex}" hex_length)
math(EXPR size "${hex_length} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," hex "${hex}")
string(REGEX REPLACE "((0x..,){16})" "\\1\n" hex "${hex}")
file(WRITE "${OUT}" "/* Generated from ${in_name} by tools/embed_text.cmake; do not edit. */\n"
     "#include <stddef.h>\n"
     "const char ${NAME}[] = {\n${hex}0x00};\n"
     "const size_t ${NAME}_size = ${size};\n")

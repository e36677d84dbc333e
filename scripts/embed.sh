#!/bin/sh
# Turn a file into a C array definition: embed.sh NAME FILE > out.c
# (a byte array, not a string literal, so that -Wpedantic's 4095-character limit does not apply).
set -eu
name=$1
file=$2
echo "/* Generated from $file by scripts/embed.sh: do not edit. */"
echo "#include <stddef.h>"
echo "extern const unsigned char ${name}[];"
echo "extern const size_t ${name}_len;"
echo "const unsigned char ${name}[] = {"
od -An -v -tx1 "$file" | sed -e 's/ *$//' -e 's/ \([0-9a-f][0-9a-f]\)/0x\1,/g' -e '/^$/d'
echo "0x00};"
echo "const size_t ${name}_len = sizeof ${name} - 1;"

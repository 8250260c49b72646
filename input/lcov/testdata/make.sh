#!/bin/sh
# Makes coverage.info, the checked-in LCOV tracefile of the C program in c/,
# with the real tools: gcc --coverage, a run, lcov --capture. The tests run
# this script again (into a temporary file) when gcc and lcov are installed.
#
#   testdata/make.sh [OUTPUT]     (default: testdata/coverage.info)
#
# Made with gcc 12.2.0 and lcov 1.16 (Debian 12). The build happens in a
# temporary folder; lcov writes absolute SF: paths, so the last step turns
# that folder into "c/" to keep the file independent of where it was made.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here/coverage.info}
build=$(mktemp -d)
trap 'rm -rf "$build"' EXIT
cp "$here"/c/*.c "$here"/c/*.h "$build"/
cd "$build"
gcc --coverage -O0 -o prog main.c util.c
./prog
lcov --quiet --capture --directory . --output-file raw.info
sed "s|^SF:$build/|SF:c/|" raw.info >"$out"

#!/bin/sh
# Makes gcovr.xml, the checked-in Cobertura report of the C program in
# ../../lcov/testdata/c, with the real tools: gcc --coverage, a run,
# gcovr --xml. The tests run this script again (into a temporary folder)
# when gcc and gcovr are installed; it also writes gcovr's own summary
# (gcovr --print-summary) and gcov's per-line counts (*.gcov) there.
#
#   testdata/make.sh [OUTDIR]     (default: testdata, gcovr.xml only)
#
# Made with gcc 12.2.0 and gcovr 5.2 (Debian 12). The build happens in a
# temporary folder; gcovr -r . writes file names relative to it.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-}
build=$(mktemp -d)
trap 'rm -rf "$build"' EXIT
cp "$here"/../../lcov/testdata/c/*.c "$here"/../../lcov/testdata/c/*.h "$build"/
cd "$build"
gcc --coverage -O0 -o prog main.c util.c
./prog >/dev/null
if [ -z "$out" ]; then
	gcovr -r . --xml-pretty | sed 's/timestamp="[0-9]*"/timestamp="1700000000"/' >"$here/gcovr.xml"
	exit 0
fi
gcovr -r . --xml-pretty --print-summary -o "$out/gcovr.xml" >"$out/summary.txt"
gcov prog-main.gcda prog-util.gcda >/dev/null
cp ./*.gcov "$out"/

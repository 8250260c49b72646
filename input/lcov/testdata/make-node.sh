#!/bin/sh
# Makes node.info, the checked-in LCOV tracefile of the JavaScript in js/,
# with Node's built-in test runner and its lcov reporter (Node 20 or later;
# made with Node 20.20.2). Its layout is Istanbul's: all FN records, then the
# FNDA records, BRDA, then DA; no end lines; TN only before the first SF.
#
#   testdata/make-node.sh [OUTPUT]     (default: testdata/node.info)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here/node.info}
cd "$here/js"
node --test --experimental-test-coverage --test-reporter=lcov --test-reporter-destination="$out" calc.test.js

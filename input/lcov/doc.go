// Package lcov reads LCOV tracefiles (the .info files of lcov/geninfo,
// llvm-cov export -format=lcov, Istanbul/nyc, Node's lcov test reporter,
// coverage.py's lcov report) into light-coverage result sets, and registers
// itself as the input format "lcov". Import it for its side effect:
//
//	import _ "github.com/profdb/profdb/input/lcov"
//
// FN (and lcov 2.2's FNL/FNA) records become routines with their FNDA
// counts; DA lines become the lines of the routine that contains them.
// docs/lcov.md gives the mapping and what is left out.
package lcov

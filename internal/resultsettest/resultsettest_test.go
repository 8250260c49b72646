package resultsettest

import (
	"math"
	"testing"

	"github.com/profdb/profdb/ddl"
	"github.com/profdb/profdb/dialects"
	_ "github.com/profdb/profdb/dialects/mysql"
	_ "github.com/profdb/profdb/dialects/postgres"
	_ "github.com/profdb/profdb/dialects/sqlite"
	_ "github.com/profdb/profdb/dialects/sqlserver"
	"github.com/profdb/profdb/profilers"
	_ "github.com/profdb/profdb/profilers/functiontrace"
	_ "github.com/profdb/profdb/profilers/lightcoverage"
	_ "github.com/profdb/profdb/profilers/referencecount"
	_ "github.com/profdb/profdb/profilers/resource"
)

// TestFullHoldsEveryValue: every Float column of a full set holds every
// value of Floats, and the full sets of all profilers together hold every
// edge string (NUL only when asked), integer and decimal.
func TestFullHoldsEveryValue(t *testing.T) {
	for _, dialect := range dialects.Names() {
		floats := Floats(dialect)
		for _, withNUL := range []bool{false, true} {
			seen := map[any]bool{}
			for _, p := range profilers.Names() {
				f := Full(t, p, "c", dialect, 2, withNUL)
				def, _ := profilers.Lookup(p)
				for _, tb := range f.Tables {
					td, _ := def.Table(tb.Name)
					for ci, c := range tb.Columns {
						col, _ := td.Column(c)
						inColumn := map[uint64]bool{}
						for _, r := range tb.Rows {
							if v, ok := r[ci].(float64); ok {
								inColumn[math.Float64bits(v)] = true
							} else {
								seen[r[ci]] = true
							}
						}
						if col.Type != ddl.Float {
							continue
						}
						for _, v := range floats {
							if !inColumn[math.Float64bits(v)] {
								t.Errorf("%s %s %s.%s: no %v", dialect, p, tb.Name, c, v)
							}
						}
					}
				}
			}
			var want []any
			for _, s := range Strings {
				want = append(want, s)
			}
			for _, v := range Ints {
				want = append(want, v)
			}
			for _, v := range Decimals {
				want = append(want, v)
			}
			for _, v := range append(want, bigText) {
				if !seen[v] {
					t.Errorf("%s: %T %.40q in no full set", dialect, v, v)
				}
			}
			if seen[NUL] != withNUL {
				t.Errorf("%s: NUL in a full set: %v, want %v", dialect, seen[NUL], withNUL)
			}
		}
	}
}

// TestFloatsSubnormals: subnormal doubles only for the dialects that keep
// them.
func TestFloatsSubnormals(t *testing.T) {
	for _, dialect := range dialects.Names() {
		n := 0
		for _, v := range Floats(dialect) {
			if v != 0 && math.Abs(v) < minNormal {
				n++
			}
		}
		if KeepsSubnormals(dialect) != (n > 0) {
			t.Errorf("%s: %d subnormals, KeepsSubnormals %v", dialect, n, KeepsSubnormals(dialect))
		}
	}
}

package sqlite

import (
	"math"
	"math/rand"
	"strconv"
	"strings"
	"testing"
)

// evalSQLiteReal evaluates what scriptReal writes with IEEE double
// arithmetic, as SQLite does: "42.0", or "(CAST(m AS REAL)" followed by
// "*k" or "/k" steps and ")".
func evalSQLiteReal(t *testing.T, lit string) float64 {
	t.Helper()
	if !strings.HasPrefix(lit, "(CAST(") {
		f, err := strconv.ParseFloat(lit, 64)
		if err != nil || !strings.Contains(lit, ".") {
			t.Fatalf("literal %q", lit)
		}
		return f
	}
	rest := strings.TrimSuffix(strings.TrimPrefix(lit, "(CAST("), ")")
	m, rest, ok := strings.Cut(rest, " AS REAL)")
	if !ok {
		t.Fatalf("literal %q", lit)
	}
	mi, err := strconv.ParseInt(m, 10, 64)
	if err != nil || mi >= 1<<53 || mi <= -(1<<53) {
		t.Fatalf("mantissa of %q", lit)
	}
	v := float64(mi)
	for rest != "" {
		op := rest[0]
		rest = rest[1:]
		end := strings.IndexAny(rest, "*/")
		if end < 0 {
			end = len(rest)
		}
		k, err := strconv.ParseUint(rest[:end], 10, 64)
		if err != nil || k&(k-1) != 0 || k > 1<<62 {
			t.Fatalf("step %q of %q", rest[:end], lit)
		}
		if op == '*' {
			v *= float64(k)
		} else {
			v /= float64(k)
		}
		rest = rest[end:]
	}
	return v
}

func TestSQLiteRealIsExact(t *testing.T) {
	vals := []float64{0, 1, -1, 0.5, 0.1, 1.0 / 3, math.MaxFloat64, -math.MaxFloat64, math.SmallestNonzeroFloat64,
		-math.SmallestNonzeroFloat64, 2.2250738585072014e-308, 1 << 53, 1<<53 + 2, -(1 << 60), 9007199254740993, 1e300, 4.9e-322}
	r := rand.New(rand.NewSource(1))
	for range 200000 {
		v := math.Float64frombits(r.Uint64())
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			vals = append(vals, v)
		}
	}
	for _, v := range vals {
		lit := scriptReal(v)
		if got := evalSQLiteReal(t, lit); math.Float64bits(got) != math.Float64bits(v) && !(v == 0 && got == 0) {
			t.Fatalf("%v: %s evaluates to %v", v, lit, got)
		}
	}
	if got := scriptReal(-0.0 * 1); got != "0.0" && got != "-0.0" {
		t.Errorf("zero: %s", got)
	}
}

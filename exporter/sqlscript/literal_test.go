package sqlscript

import (
	"math"
	"math/rand"
	"strconv"
	"strings"
	"testing"

	"github.com/profdb/profdb/ddl"
)

// evalSQLiteReal evaluates what sqliteReal writes with IEEE double
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
		lit := sqliteReal(v)
		if got := evalSQLiteReal(t, lit); math.Float64bits(got) != math.Float64bits(v) && !(v == 0 && got == 0) {
			t.Fatalf("%v: %s evaluates to %v", v, lit, got)
		}
	}
	if got := sqliteReal(-0.0 * 1); got != "0.0" && got != "-0.0" {
		t.Errorf("zero: %s", got)
	}
}

func TestLiterals(t *testing.T) {
	for _, c := range []struct {
		dialect string
		t       ddl.Type
		v       any
		want    string
	}{
		{"sqlite", ddl.Integer, int64(math.MinInt64), "(-9223372036854775807-1)"},
		{"postgres", ddl.Integer, int64(math.MaxInt64), "9223372036854775807"},
		{"mysql", ddl.Integer, nil, "NULL"},
		{"sqlite", ddl.Decimal, ddl.Dec("18446744073709551615"), "'18446744073709551615'"},
		{"sqlite", ddl.Decimal, ddl.Dec("-9223372036854775808"), "(-9223372036854775807-1)"},
		{"sqlite", ddl.Decimal, ddl.Dec("42"), "42"},
		{"sqlite", ddl.Decimal, ddl.Dec("0.5"), "(CAST(1 AS REAL)/2)"},
		{"sqlite", ddl.Decimal, ddl.Dec("0.12345678"), "(CAST(8895998534469781 AS REAL)/72057594037927936)"},
		{"postgres", ddl.Decimal, ddl.Dec("-99999999999999999999.99999999"), "-99999999999999999999.99999999"},
		{"sqlserver", ddl.Decimal, ddl.Dec("18446744073709551615"), "18446744073709551615"},
		{"mysql", ddl.Float, 0.1, "1e-01"},
		{"sqlserver", ddl.Float, math.MaxFloat64, "1.7976931348623157e+308"},
		{"sqlite", ddl.Float, 3.0, "3.0"},
		{"sqlite", ddl.String, "it's", "'it''s'"},
		{"sqlite", ddl.String, "a\r\nb\x00", "('a' || char(13) || '\nb' || char(0))"},
		{"postgres", ddl.String, `C:\x\`, `'C:\x\'`},
		{"postgres", ddl.String, "a\rb", "('a' || chr(13) || 'b')"},
		{"mysql", ddl.String, `\'`, `'\'''`},
		{"mysql", ddl.String, "\x00", "CHAR(0 USING utf8mb4)"},
		{"mysql", ddl.String, "x\ry", "CONCAT('x', CHAR(13 USING utf8mb4), 'y')"},
		{"sqlserver", ddl.String, "ж'", "N'ж'''"},
		{"sqlserver", ddl.String, "a\nGO\n$(v)", "(CAST(N'a' AS NVARCHAR(MAX)) + NCHAR(10) + N'GO' + NCHAR(10) + N'$' + N'(v)')"},
		{"sqlserver", ddl.String, "\n", "(CAST(NCHAR(10) AS NVARCHAR(MAX)))"},
	} {
		got, err := literal(c.dialect, c.t, c.v)
		if err != nil || got != c.want {
			t.Errorf("%s %v %#v: %s, %v; want %s", c.dialect, c.t, c.v, got, err, c.want)
		}
	}
	if _, err := literal("postgres", ddl.String, "a\x00"); err == nil || !strings.Contains(err.Error(), "U+0000") {
		t.Errorf("NUL for postgres: %v", err)
	}
	if _, err := literal("mysql", ddl.Float, math.Inf(1)); err == nil {
		t.Error("infinity accepted")
	}
}

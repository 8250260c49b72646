package sqlscript_test

import (
	"math"
	"strings"
	"testing"

	"github.com/profdb/profdb/ddl"
	"github.com/profdb/profdb/dialects"
)

// literal is the literal of v in the scripts of the registered dialect.
func literal(dialect string, t ddl.Type, v any) (string, error) {
	d, err := dialects.Lookup(dialect)
	if err != nil {
		return "", err
	}
	return d.(dialects.Scripter).ScriptForm("").Literal(t, v)
}

// TestLiterals: each dialect's script writes the literal of a value that
// its client and server read back as the same value.
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
		// Runes a terminal would act on, or hide, are never written raw.
		{"postgres", ddl.String, "a\x1b[31m\u202eb", "('a' || chr(27) || '[31m' || chr(8238) || 'b')"},
		{"sqlite", ddl.String, "\x7f\u0085", "(char(127) || char(133))"},
		{"mysql", ddl.String, "x\u202e", "CONCAT('x', CHAR(226, 128, 174 USING utf8mb4))"},
		{"sqlserver", ddl.String, "\U000E0041ж", "(CAST(COALESCE(NCHAR(917569), NCHAR(56128) + NCHAR(56385)) AS NVARCHAR(MAX)) + N'ж')"},
		{"postgres", ddl.String, "tab\tж ✓", "'tab\tж ✓'"},
	} {
		got, err := literal(c.dialect, c.t, c.v)
		if err != nil || got != c.want {
			t.Errorf("%s %v %#v: %s, %v; want %s", c.dialect, c.t, c.v, got, err, c.want)
		}
		// Written straight to a writer, the same.
		d, _ := dialects.Lookup(c.dialect)
		var b strings.Builder
		if err := d.(dialects.Scripter).ScriptForm("").WriteLiteral(&b, c.t, c.v); err != nil || b.String() != c.want {
			t.Errorf("%s %v %#v written: %s, %v; want %s", c.dialect, c.t, c.v, b.String(), err, c.want)
		}
	}
	var b strings.Builder
	if err := postgresForm().ScriptForm("").WriteLiteral(&b, ddl.String, "a\x00"); err == nil || b.Len() != 0 {
		t.Errorf("NUL for postgres, written: %q, %v", b.String(), err)
	}
	if _, err := literal("postgres", ddl.String, "a\x00"); err == nil || !strings.Contains(err.Error(), "U+0000") {
		t.Errorf("NUL for postgres: %v", err)
	}
	if _, err := literal("mysql", ddl.Float, math.Inf(1)); err == nil {
		t.Error("infinity accepted")
	}
}

func postgresForm() dialects.Scripter {
	d, _ := dialects.Lookup("postgres")
	return d.(dialects.Scripter)
}

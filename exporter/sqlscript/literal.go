package sqlscript

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"strconv"
	"strings"

	"github.com/profdb/profdb/ddl"
)

// literal returns the SQL literal of a canonical value (see
// resultset.Convert) of logical type t for dialect name.
func literal(dialect string, t ddl.Type, v any) (string, error) {
	switch x := v.(type) {
	case nil:
		return "NULL", nil
	case int64:
		return intLiteral(x), nil
	case float64:
		return floatLiteral(dialect, x)
	case ddl.Dec:
		if dialect == "sqlite" {
			return sqliteDecimal(string(x))
		}
		return string(x), nil
	case string:
		return stringLiteral(dialect, x)
	}
	return "", fmt.Errorf("sqlscript: no literal for %T in a %s column", v, t)
}

// intLiteral writes an int64. The smallest one is written as an expression:
// 9223372036854775808 alone is out of the integer range in every dialect
// (SQLite would read it as a REAL, then negate it).
func intLiteral(i int64) string {
	if i == math.MinInt64 {
		return "(-9223372036854775807-1)"
	}
	return strconv.FormatInt(i, 10)
}

// floatLiteral writes a finite double so that the server reads back the
// same bits.
func floatLiteral(dialect string, f float64) (string, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "", fmt.Errorf("%v is not a finite number", f)
	}
	if dialect == "sqlite" {
		return sqliteReal(f), nil
	}
	// The shortest decimal that reads back as f, with an exponent so that
	// MySQL and SQL Server take it for a floating-point literal (without
	// one they make it an exact decimal first; PostgreSQL always does, and
	// converts with strtod). They parse it exactly.
	return strconv.FormatFloat(f, 'e', -1, 64), nil
}

// pow62 is 2^62, the largest power of two used as one scaling step: an
// integer literal that converts to a double exactly.
const pow62 = "4611686018427387904"

// sqliteReal writes a double as SQLite REAL arithmetic that is exact. SQLite
// (3.40 at least) parses some decimal literals to a neighbouring double
// (about 1 in 200 random doubles, mostly of extreme magnitude), so only
// integral values below 2^53 are written as decimals ("42.0"). Any other f
// is m * 2^e with an odd integer |m| < 2^53: CAST(m AS REAL) converts
// exactly, and each multiplication or division by a power of two is exact
// in IEEE arithmetic, since every intermediate value is m times a power of
// two no smaller than f's lowest bit.
func sqliteReal(f float64) string {
	if f == math.Trunc(f) && math.Abs(f) < 1<<53 {
		if f == 0 && math.Signbit(f) {
			return "-0.0"
		}
		return strconv.FormatFloat(f, 'f', 1, 64)
	}
	frac, exp := math.Frexp(f) // f = frac * 2^exp, 0.5 <= |frac| < 1
	m := int64(math.Ldexp(frac, 53))
	e := exp - 53
	if tz := bits.TrailingZeros64(uint64(abs64(m))); tz > 0 {
		m >>= tz
		e += tz
	}
	var b strings.Builder
	b.WriteString("(CAST(")
	b.WriteString(strconv.FormatInt(m, 10))
	b.WriteString(" AS REAL)")
	op := "*"
	if e < 0 {
		op, e = "/", -e
	}
	for e > 62 {
		b.WriteString(op)
		b.WriteString(pow62)
		e -= 62
	}
	if e > 0 {
		b.WriteString(op)
		b.WriteString(strconv.FormatUint(1<<uint(e), 10))
	}
	b.WriteByte(')')
	return b.String()
}

func abs64(i int64) int64 {
	if i < 0 {
		return -i
	}
	return i
}

// sqliteDecimal writes a Decimal for an ANY column the way dialects/sqlite
// binds it: an integer when it is integral and fits int64, a REAL when the
// double prints back as exactly the same decimal, and otherwise its text.
func sqliteDecimal(s string) (string, error) {
	if !strings.ContainsAny(s, ".eE") {
		if i, err := strconv.ParseInt(s, 10, 64); err == nil && strconv.FormatInt(i, 10) == s {
			return intLiteral(i), nil
		}
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil && strconv.FormatFloat(f, 'f', -1, 64) == s {
		return sqliteReal(f), nil
	}
	return stringLiteral("sqlite", s)
}

// errNUL is the message for text PostgreSQL cannot store.
var errNUL = errors.New("text contains the character U+0000, which PostgreSQL text cannot hold")

// stringLiteral quotes text for the dialect, doubling single quotes. A
// carriage return is never written raw: the sqlite3 and mariadb shells drop
// the CR of a CR LF inside a literal (and psql on Windows reads its input
// in text mode), so it is written as a character function joined to the
// rest.
//   - SQLite: '...'; CR and NUL (which the sqlite3 shell cannot read inside
//     a statement) as char(n), joined with ||.
//   - PostgreSQL: '...' (the script sets standard_conforming_strings); CR
//     as chr(13) joined with ||; NUL is an error, text cannot hold it.
//   - MySQL: '...' (the script sets NO_BACKSLASH_ESCAPES); CR and NUL as
//     CHAR(n USING utf8mb4) inside CONCAT.
//   - SQL Server: N'...'; CR, LF and NUL as NCHAR(n), and "$(" split
//     between two literals, so that no string spans lines (sqlcmd would
//     take a GO line inside it for a batch end) and sqlcmd finds no
//     scripting variable in it; the pieces are joined with + after a CAST
//     to NVARCHAR(MAX), which keeps long text from being cut at 4000
//     characters.
func stringLiteral(dialect, s string) (string, error) {
	switch dialect {
	case "postgres":
		if strings.IndexByte(s, 0) >= 0 {
			return "", errNUL
		}
		return joinSpecial(s, "\r", quote, func(c byte) string { return "chr(" + strconv.Itoa(int(c)) + ")" }, func(parts []string) string {
			return "(" + strings.Join(parts, " || ") + ")"
		}), nil
	case "sqlite":
		return joinSpecial(s, "\r\x00", quote, func(c byte) string { return "char(" + strconv.Itoa(int(c)) + ")" }, func(parts []string) string {
			return "(" + strings.Join(parts, " || ") + ")"
		}), nil
	case "mysql":
		return joinSpecial(s, "\r\x00", quote, func(c byte) string { return "CHAR(" + strconv.Itoa(int(c)) + " USING utf8mb4)" }, func(parts []string) string {
			return "CONCAT(" + strings.Join(parts, ", ") + ")"
		}), nil
	case "sqlserver":
		return sqlserverString(s), nil
	}
	return "", fmt.Errorf("sqlscript: no string literals for dialect %s", dialect)
}

func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// joinSpecial splits s at the bytes in special, quotes the runs between them
// with q, writes each special byte with sp and joins the pieces with join;
// without special bytes it is q(s).
func joinSpecial(s, special string, q func(string) string, sp func(byte) string, join func([]string) string) string {
	if !strings.ContainsAny(s, special) {
		return q(s)
	}
	var parts []string
	start := 0
	for i := 0; i < len(s); i++ {
		if strings.IndexByte(special, s[i]) < 0 {
			continue
		}
		if i > start {
			parts = append(parts, q(s[start:i]))
		}
		parts = append(parts, sp(s[i]))
		start = i + 1
	}
	if start < len(s) {
		parts = append(parts, q(s[start:]))
	}
	if len(parts) == 1 {
		return parts[0]
	}
	return join(parts)
}

func sqlserverString(s string) string {
	nq := func(p string) string { return "N" + quote(p) }
	if !strings.ContainsAny(s, "\r\n\x00") && !strings.Contains(s, "$(") {
		return nq(s)
	}
	var parts []string
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\r' || c == '\n' || c == 0:
			if i > start {
				parts = append(parts, nq(s[start:i]))
			}
			parts = append(parts, "NCHAR("+strconv.Itoa(int(c))+")")
			start = i + 1
		case c == '(' && i > 0 && s[i-1] == '$':
			parts = append(parts, nq(s[start:i]))
			start = i
		}
	}
	if start < len(s) {
		parts = append(parts, nq(s[start:]))
	}
	parts[0] = "CAST(" + parts[0] + " AS NVARCHAR(MAX))"
	return "(" + strings.Join(parts, " + ") + ")"
}

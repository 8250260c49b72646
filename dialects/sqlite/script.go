package sqlite

import (
	"io"
	"math"
	"math/bits"
	"strconv"
	"strings"

	"github.com/profdb/profdb/ddl"
	"github.com/profdb/profdb/dialects"
)

var _ dialects.Scripter = Dialect{}

// RunHint returns how the sqlite3 shell runs a script; a data script with
// -bail, so that the shell stops at the first error.
func (Dialect) RunHint(k dialects.ScriptKind) string {
	if k == dialects.DataScript {
		return "sqlite3 -bail DATABASE < FILE"
	}
	return "sqlite3 profdb.db < FILE"
}

// ScriptForm returns the form of a SQLite script. BEGIN IMMEDIATE takes the
// database's write lock at once, as profdb's own connections do
// (_txlock=immediate, see DriverDSN), so allocation cannot race. The IDs
// live in a TEMP table. The schema does not change the form.
func (Dialect) ScriptForm(string) dialects.ScriptForm { return scriptForm{} }

type scriptForm struct{}

// The TEMP tables of a script: its IDs, and the one whose insert stops a
// script that refuses a result set.
const (
	tempIDs     = "profdb_ids"
	tempRefused = "profdb_refused"
)

// scriptRefusal is the name of the CHECK constraint that stops a script,
// which the client prints.
const scriptRefusal = "profdb: result set refused, nothing written: the comment above the failing line says why"

func (scriptForm) Begin() []string    { return []string{"BEGIN IMMEDIATE"} }
func (scriptForm) NULGuard() []string { return nil }
func (scriptForm) AfterDDL() []string {
	return []string{
		"CREATE TEMP TABLE IF NOT EXISTS " + tempIDs + " (inst_id INTEGER, rel_id INTEGER)",
		// SQLite has no statement that raises an error of its own text
		// outside a trigger, and RAISE there takes only a literal: a
		// refused result set inserts a row that this CHECK turns away, and
		// the client names the line, whose comment says what was found.
		"CREATE TEMP TABLE IF NOT EXISTS " + tempRefused + " (fault_id INTEGER,\n  CONSTRAINT \"" + scriptRefusal + "\" CHECK (fault_id IS NULL AND fault_id IS NOT NULL))",
	}
}
func (scriptForm) Refuse(query, before, after string) []string {
	return []string{"-- refused when " + dialects.CommentText(before+"N"+after) + "\nINSERT INTO temp." + tempRefused + " (fault_id) SELECT fault_id FROM (" + query + ") LIMIT 1"}
}
func (scriptForm) Allocate(inst, instCol, rel, relCol string) []string {
	return dialects.AllocateInto("temp."+tempIDs, inst, instCol, rel, relCol)
}
func (scriptForm) InstID() string        { return "(SELECT inst_id FROM temp." + tempIDs + ")" }
func (f scriptForm) CheckInstID() string { return f.InstID() }
func (scriptForm) UTCNow() string        { return "strftime('%Y-%m-%dT%H:%M:%SZ', 'now')" }
func (scriptForm) RelID(k int) string {
	return "(SELECT rel_id FROM temp." + tempIDs + ") + " + strconv.Itoa(k)
}
func (scriptForm) End() []string {
	return []string{"DROP TABLE temp." + tempIDs, "DROP TABLE temp." + tempRefused, "COMMIT"}
}
func (scriptForm) Batch(_ int, stmts []string, _ bool) []string { return stmts }

// literals writes doubles as scriptReal does (finite only), decimals as
// scriptDecimal and text as scriptText.
var literals = dialects.Literals{Dialect: "sqlite",
	Float: func(f float64) (string, error) {
		if err := dialects.Finite(f); err != nil {
			return "", err
		}
		return scriptReal(f), nil
	},
	Decimal: func(d ddl.Dec) string { return scriptDecimal(string(d)) },
	Text:    textForm.Write}

func (scriptForm) Literal(t ddl.Type, v any) (string, error) { return literals.Literal(t, v) }
func (scriptForm) WriteLiteral(w io.StringWriter, t ddl.Type, v any) error {
	return literals.Write(w, t, v)
}

// pow62 is 2^62, the largest power of two used as one scaling step: an
// integer literal that converts to a double exactly.
const pow62 = "4611686018427387904"

// scriptReal writes a double as SQLite REAL arithmetic that is exact. SQLite
// (3.40 at least) parses some decimal literals to a neighbouring double
// (about 1 in 200 random doubles, mostly of extreme magnitude), so only
// integral values below 2^53 are written as decimals ("42.0"). Any other f
// is m * 2^e with an odd integer |m| < 2^53: CAST(m AS REAL) converts
// exactly, and each multiplication or division by a power of two is exact
// in IEEE arithmetic, since every intermediate value is m times a power of
// two no smaller than f's lowest bit.
func scriptReal(f float64) string {
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

// scriptDecimal writes a Decimal for an ANY column the way Bind binds it: an
// integer when it is integral and fits int64, a REAL when the double prints
// back as exactly the same decimal, and otherwise its text.
func scriptDecimal(s string) string {
	switch v := decimalValue(s).(type) {
	case int64:
		return dialects.IntLiteral(v)
	case float64:
		return scriptReal(v)
	}
	return scriptText(s)
}

// textForm quotes text in single quotes, doubling single quotes inside. A
// rune that is not dialects.ScriptSafe is written as char(n) joined to the
// rest with ||: a carriage return because the sqlite3 shell drops the CR
// of a CR LF inside a literal, NUL because the shell cannot read it inside
// a statement, the others so that the script shows no control sequence.
var textForm = dialects.TextForm{Char: func(r rune) string { return "char(" + strconv.Itoa(int(r)) + ")" }, Open: "(", Sep: " || ", Close: ")"}

// scriptText is the literal textForm writes.
func scriptText(s string) string { return textForm.Quote(s) }

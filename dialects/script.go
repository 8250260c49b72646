package dialects

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/profdb/profdb/ddl"
)

// ScriptKind is what a SQL script that profdb writes does, which decides
// how the dialect's own client should run it (Scripter.RunHint).
type ScriptKind int

const (
	// DDLScript creates tables and indexes, every statement safe to run
	// again ("profdb ddl").
	DDLScript ScriptKind = iota
	// DataScript writes result sets in one transaction that must stop at
	// the first error, with text from the data in its literals ("profdb
	// export --sql-out").
	DataScript
)

// Scripter is implemented by dialects for which profdb writes result sets
// as a SQL script that the dialect's own client runs ("profdb export
// --sql-out", package exporter/sqlscript). Like the rest of a Dialect it
// returns SQL text and does no I/O.
//
// Without it, profdb writes no script for the dialect: "profdb ddl" and
// "export --sql-out" refuse it, and an export writes into the database.
type Scripter interface {
	// ScriptForm returns the statements of a script that writes into
	// schema ("" for the connection's default).
	ScriptForm(schema string) ScriptForm
	// RunHint says how the dialect's own client runs a script of kind k,
	// FILE, against DATABASE: the "run:" line of the script's header.
	RunHint(k ScriptKind) string
}

// ScriptForm is what differs between the dialects' scripts. A script
// holds, in order: Begin; NULGuard, when some text holds U+0000; the DDL;
// AfterDDL; for each result set, its statements (Allocate, its INSERTs and
// one Refuse for each check) in batches (Batch); and End in the final
// batch. Statements are written each followed by ";" and a line break,
// except the dialect's batch separator (ddl.BatchSeparator), which is a
// line of its own: a ScriptForm may return it among its statements.
//
// The script takes the allocation lock that an export takes (Locker), so
// that a script and "profdb export" running at once take turns.
type ScriptForm interface {
	// Begin returns the statements before the DDL: session settings, and
	// where DDL takes part in transactions, the start of the transaction
	// and the allocation lock.
	Begin() []string
	// NULGuard returns the statements, run before anything is written,
	// that stop the script when the server cannot store text holding
	// U+0000 (NUL); nil when every server of the dialect can or when
	// Literal refuses such text.
	NULGuard() []string
	// AfterDDL returns the statements between the DDL and the first
	// result set.
	AfterDDL() []string
	// Allocate returns the statements that compute a result set's INST_ID
	// and RELATIONS base ID from the tables inst and rel (qualified, or a
	// derived table for inst) and their quoted INST_ID and ID columns.
	Allocate(inst, instCol, rel, relCol string) []string
	// InstID is the expression for the current INST_ID.
	InstID() string
	// UTCNow is the expression for the time the statement runs, as text in
	// the form 2006-01-02T15:04:05Z.
	UTCNow() string
	// RelID is the expression for the k-th (1-based) RELATIONS ID.
	RelID(k int) string
	// CheckInstID is the expression a Refuse query reads the INST_ID
	// with: InstID, or a parameter that the form's Refuse binds to it.
	CheckInstID() string
	// Refuse returns the statements that stop the script, rolling back,
	// when query returns a row, whose first column is fault_id: the
	// message is before, the row's fault_id (or NULL), after. Where the
	// client's error cannot carry the message (SQLite), a comment above the
	// statement says what failed.
	Refuse(query, before, after string) []string
	// End returns the statements that commit and release the lock.
	End() []string
	// Batch wraps the statements of the data part that run together: with
	// a batch separator, step numbers the batches from 1 and final marks
	// the last one, the commit; without one, it returns stmts.
	Batch(step int, stmts []string, final bool) []string
	// Literal returns the SQL literal of v, a canonical value (see Dec) of
	// logical type t, that the server reads back as the same value.
	Literal(t ddl.Type, v any) (string, error)
	// WriteLiteral writes the literal Literal returns straight to w,
	// without building it first: a long text is not copied.
	WriteLiteral(w io.StringWriter, t ddl.Type, v any) error
}

// Literals are how a dialect's script writes canonical values (see
// ScriptForm.Literal): NULL, integers (IntLiteral) and, through the
// fields, doubles, decimals and text. A nil Float writes FloatLiteral, a
// nil Decimal the decimal's text; Text, which writes the literal of a
// text to w, is required.
type Literals struct {
	Dialect string // the dialect's name, for errors
	Float   func(float64) (string, error)
	Decimal func(ddl.Dec) string
	Text    func(w io.StringWriter, s string) error
}

// Literal returns the literal of v, a canonical value of logical type t.
func (l Literals) Literal(t ddl.Type, v any) (string, error) {
	if s, ok := v.(string); ok {
		var b strings.Builder
		err := l.Text(&b, s)
		return b.String(), err
	}
	return l.literal(t, v)
}

// Write writes the literal of v, a canonical value of logical type t, to
// w: a text straight, without a copy of it.
func (l Literals) Write(w io.StringWriter, t ddl.Type, v any) error {
	if s, ok := v.(string); ok {
		return l.Text(w, s)
	}
	lit, err := l.literal(t, v)
	if err != nil {
		return err
	}
	_, err = w.WriteString(lit)
	return err
}

// literal is Literal of a value other than a text.
func (l Literals) literal(t ddl.Type, v any) (string, error) {
	switch x := v.(type) {
	case nil:
		return "NULL", nil
	case int64:
		return IntLiteral(x), nil
	case float64:
		if l.Float != nil {
			return l.Float(x)
		}
		return FloatLiteral(x)
	case ddl.Dec:
		if l.Decimal != nil {
			return l.Decimal(x), nil
		}
		return string(x), nil
	}
	return "", fmt.Errorf("%s: no literal for %T in a %s column", l.Dialect, v, t)
}

// IntLiteral writes an int64 for a script. The smallest one is written as
// an expression: 9223372036854775808 alone is out of the integer range in
// every dialect (SQLite would read it as a REAL, then negate it).
func IntLiteral(i int64) string {
	if i == math.MinInt64 {
		return "(-9223372036854775807-1)"
	}
	return strconv.FormatInt(i, 10)
}

// FloatLiteral writes a finite double as the shortest decimal that reads
// back as f, with an exponent so that MySQL and SQL Server take it for a
// floating-point literal (without one they make it an exact decimal
// first; PostgreSQL always does, and converts with strtod). They parse it
// exactly. NaN and infinities are an error.
func FloatLiteral(f float64) (string, error) {
	if err := Finite(f); err != nil {
		return "", err
	}
	return strconv.FormatFloat(f, 'e', -1, 64), nil
}

// Finite returns an error for NaN and the infinities, which no column
// profdb writes holds.
func Finite(f float64) error {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return fmt.Errorf("%v is not a finite number", f)
	}
	return nil
}

// ScriptSafe reports whether r may stand as itself inside a script's
// string literal: a printable rune (strconv.IsPrint), a newline or a tab.
// Every other one (NUL, CR, the escape that starts a terminal's control
// sequence, bidirectional overrides and other invisible format runes) is
// written as the dialect's character function instead, so that a script
// shown in a terminal or an editor shows what the server will store.
func ScriptSafe(r rune) bool { return r == '\n' || r == '\t' || strconv.IsPrint(r) }

// TextForm is how a dialect's script writes a text as a literal (see
// Write): the runs of runes that may stand as themselves in single
// quotes, each single quote inside doubled, and every rune that is not
// ScriptSafe as Char(r) instead, the pieces joined as Open, the pieces
// separated by Sep, and Close.
type TextForm struct {
	Char             func(r rune) string
	Open, Sep, Close string
}

// Write writes s, valid UTF-8, to w as a literal of the form f: s in
// single quotes when every rune of it is ScriptSafe, Char(r) alone when s
// is one rune that is not, the pieces joined otherwise. It writes s
// straight, in runs, without a copy of it: a text of 16 MiB takes no
// memory of its size.
func (f TextForm) Write(w io.StringWriter, s string) error {
	if !strings.ContainsFunc(s, notScriptSafe) {
		return WriteQuoted(w, s)
	}
	sw := stickyWriter{w: w}
	if r, size := utf8.DecodeRuneInString(s); size == len(s) {
		sw.str(f.Char(r))
		return sw.err
	}
	sw.str(f.Open)
	sep := "" // before the next piece
	start := 0
	for i, r := range s {
		if ScriptSafe(r) {
			continue
		}
		if i > start {
			sw.str(sep)
			sw.quoted(s[start:i])
			sep = f.Sep
		}
		sw.str(sep)
		sw.str(f.Char(r))
		sep = f.Sep
		start = i + utf8.RuneLen(r)
	}
	if start < len(s) {
		sw.str(sep)
		sw.quoted(s[start:])
	}
	sw.str(f.Close)
	return sw.err
}

// Quote returns what Write writes.
func (f TextForm) Quote(s string) string {
	var b strings.Builder
	f.Write(&b, s) // a strings.Builder never fails
	return b.String()
}

func notScriptSafe(r rune) bool { return !ScriptSafe(r) }

// WriteQuoted writes s to w in single quotes, each single quote inside
// doubled (as QuoteWith quotes with single quotes), straight, in runs,
// without a copy of s.
func WriteQuoted(w io.StringWriter, s string) error {
	sw := stickyWriter{w: w}
	sw.quoted(s)
	return sw.err
}

// stickyWriter writes to w until a write fails, and keeps that error.
type stickyWriter struct {
	w   io.StringWriter
	err error
}

func (sw *stickyWriter) str(s string) {
	if sw.err == nil {
		_, sw.err = sw.w.WriteString(s)
	}
}

// quoted writes s in single quotes, each single quote inside doubled.
func (sw *stickyWriter) quoted(s string) {
	sw.str("'")
	for {
		i := strings.IndexByte(s, '\'')
		if i < 0 {
			break
		}
		sw.str(s[:i+1]) // the quote, then its double
		sw.str("'")
		s = s[i+1:]
	}
	sw.str(s)
	sw.str("'")
}

// AllocateInto returns the statements of ScriptForm.Allocate for a script
// that keeps its IDs in the one row of the temporary table tmp (inst_id,
// rel_id).
func AllocateInto(tmp, inst, instCol, rel, relCol string) []string {
	return []string{
		"DELETE FROM " + tmp,
		"INSERT INTO " + tmp + " (inst_id, rel_id) SELECT\n  (SELECT COALESCE(MAX(" + instCol + "), 0) + 1 FROM " + inst + "),\n  (SELECT COALESCE(MAX(" + relCol + "), 0) FROM " + rel + ")",
	}
}

// CommentText makes text safe for a "-- " comment line of a script: every
// control character becomes a space.
func CommentText(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s)
}

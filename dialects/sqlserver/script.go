package sqlserver

import (
	"io"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/profdb/profdb/ddl"
	"github.com/profdb/profdb/dialects"
)

var _ dialects.Scripter = Dialect{}

// RunHint returns how sqlcmd runs a script, stopping at the first error
// (-b); a data script with -x too, so that sqlcmd expands no $(...) in the
// data.
func (Dialect) RunHint(k dialects.ScriptKind) string {
	if k == dialects.DataScript {
		return "sqlcmd -b -x -d DATABASE -i FILE"
	}
	return "sqlcmd -b -d DATABASE -i FILE"
}

// ScriptForm returns the form of a SQL Server script. Scripts are split
// into batches by GO lines, and T-SQL variables do not outlive a batch, so
// the IDs live in a #temp table. SET XACT_ABORT ON makes a run-time error
// roll the transaction back and end the batch; the later batches would
// then run outside any transaction, and a compile error (a column the
// table lacks) ends its batch without any rollback. So every data batch
// starts by checking that the transaction is still open and that the batch
// before it ran to its end (it counts batches in #profdb_ids.step); if not,
// it rolls back and stops with THROW, which ends the batch. Run with
// sqlcmd -b, the client stops at the first error anyway; -x keeps it from
// expanding $(...) in the data. The lock is an export's (getAppLock),
// owned by the transaction. The schema does not change the form:
// application locks are per database.
func (Dialect) ScriptForm(string) dialects.ScriptForm { return scriptForm{} }

type scriptForm struct{}

// tempIDs is the #temp table that holds a script's IDs.
const tempIDs = "#profdb_ids"

func (scriptForm) Begin() []string { return []string{"SET NOCOUNT ON", "SET XACT_ABORT ON"} }

// NULGuard stops the script where NCHAR(0), the script's NUL, is NULL: SQL
// Server stores NUL in NVARCHAR, but Babelfish (PostgreSQL underneath)
// cannot, and its NCHAR(0) is NULL, which would turn every text holding one
// into NULL without an error.
func (scriptForm) NULGuard() []string {
	return []string{"IF NCHAR(0) IS NULL THROW 50000, " +
		"N'profdb: this script holds text with the character U+0000 (NUL), which this server cannot store (NCHAR(0) is NULL); nothing was written', 1"}
}
func (scriptForm) AfterDDL() []string {
	return []string{
		"IF OBJECT_ID(N'tempdb.." + tempIDs + "') IS NOT NULL DROP TABLE " + tempIDs,
		"CREATE TABLE " + tempIDs + " (inst_id bigint NULL, rel_id bigint NULL, step int NOT NULL)",
		"BEGIN TRANSACTION",
		"DECLARE @profdb_lock int",
		getAppLock("Exclusive"),
		"IF @profdb_lock < 0 THROW 50000, " + nString("profdb: could not lock "+AllocLock) + ", 1",
		"INSERT INTO " + tempIDs + " (step) VALUES (0)",
		batchSeparator,
	}
}
func (scriptForm) Allocate(inst, instCol, rel, relCol string) []string {
	return []string{
		"UPDATE " + tempIDs + " SET\n  inst_id = (SELECT COALESCE(MAX(" + instCol + "), 0) + 1 FROM " + inst + "),\n  rel_id = (SELECT COALESCE(MAX(" + relCol + "), 0) FROM " + rel + ")",
	}
}
func (scriptForm) InstID() string        { return "@profdb_inst_id" }
func (f scriptForm) CheckInstID() string { return f.InstID() }
func (scriptForm) UTCNow() string {
	return "CONVERT(nvarchar(19), SYSUTCDATETIME(), 126) + N'Z'"
}
func (scriptForm) RelID(k int) string { return "@profdb_rel_id + " + strconv.Itoa(k) }
func (scriptForm) End() []string {
	return []string{"COMMIT TRANSACTION", "DROP TABLE " + tempIDs}
}
func (scriptForm) Refuse(query, before, after string) []string {
	return []string{
		"DECLARE @profdb_refused nvarchar(2048)",
		"SELECT TOP 1 @profdb_refused = CONCAT(" + scriptText(before) + ", COALESCE(CAST(q.fault_id AS nvarchar(20)), N'NULL'), " + scriptText(after) + ") FROM (" + query + ") q",
		"IF @profdb_refused IS NOT NULL\nBEGIN\n  ROLLBACK TRANSACTION;\n  THROW 50000, @profdb_refused, 1;\nEND",
	}
}

// Batch makes stmts the batch number step: it runs only when the
// transaction is open and batch step-1 ran to its end, and unless it is the
// final one (the commit) it records its own end.
func (scriptForm) Batch(step int, stmts []string, final bool) []string {
	guard := []string{
		"IF @@TRANCOUNT = 0 OR NOT EXISTS (SELECT 1 FROM " + tempIDs + " WHERE step = " + strconv.Itoa(step-1) + ")\n" +
			"BEGIN\n" +
			"  IF @@TRANCOUNT > 0 ROLLBACK TRANSACTION;\n" +
			"  THROW 50000, N'profdb: an earlier batch of this script failed; everything is rolled back and nothing more is written', 1;\n" +
			"END",
	}
	if final {
		return append(append(guard, stmts...), batchSeparator)
	}
	out := append(guard,
		"DECLARE @profdb_inst_id bigint, @profdb_rel_id bigint",
		"SELECT @profdb_inst_id = inst_id, @profdb_rel_id = rel_id FROM "+tempIDs)
	out = append(out, stmts...)
	return append(out, "UPDATE "+tempIDs+" SET step = "+strconv.Itoa(step), batchSeparator)
}

// literals writes doubles as dialects.FloatLiteral does, decimals as
// numeric literals and text as scriptText.
var literals = dialects.Literals{Dialect: "sqlserver", Text: writeText}

func (scriptForm) Literal(t ddl.Type, v any) (string, error) { return literals.Literal(t, v) }
func (scriptForm) WriteLiteral(w io.StringWriter, t ddl.Type, v any) error {
	return literals.Write(w, t, v)
}

// writeText writes text as N'...', doubling single quotes inside. LF and
// every rune that is not dialects.ScriptSafe (CR and NUL among them) are
// written as NCHAR(n) (see nchar past U+FFFF), and "$(" is
// split between two literals, so that no string spans lines (sqlcmd would
// take a GO line inside it for a batch end; the sqlcmd shell would drop
// the CR of a CR LF), the script shows no control sequence and sqlcmd
// finds no scripting variable in it; the pieces are joined with + after a
// CAST to NVARCHAR(MAX), which keeps long text from being cut at 4000
// characters. The text is written straight, in runs, without a copy.
func writeText(w io.StringWriter, s string) error {
	special := func(r rune) bool { return r == '\n' || !dialects.ScriptSafe(r) }
	var err error
	put := func(s string) {
		if err == nil {
			_, err = w.WriteString(s)
		}
	}
	quoted := func(s string) {
		put("N")
		if err == nil {
			err = dialects.WriteQuoted(w, s)
		}
	}
	if !strings.ContainsFunc(s, special) && !strings.Contains(s, "$(") {
		quoted(s)
		return err
	}
	pieces := 0
	// piece writes one piece: the first in a CAST, the others after +.
	piece := func(write func()) {
		if pieces == 0 {
			put("(CAST(")
		} else {
			put(" + ")
		}
		write()
		if pieces == 0 {
			put(" AS NVARCHAR(MAX))")
		}
		pieces++
	}
	start := 0
	for i, r := range s {
		switch {
		case special(r):
			if i > start {
				piece(func() { quoted(s[start:i]) })
			}
			piece(func() { put(nchar(r)) })
			start = i + utf8.RuneLen(r)
		case r == '(' && i > 0 && s[i-1] == '$':
			piece(func() { quoted(s[start:i]) })
			start = i
		}
	}
	if start < len(s) {
		piece(func() { quoted(s[start:]) })
	}
	put(")")
	return err
}

// scriptText is the literal writeText writes.
func scriptText(s string) string {
	var b strings.Builder
	writeText(&b, s) // a strings.Builder never fails
	return b.String()
}

// nchar writes a rune as NCHAR of its code point. Past U+FFFF that is NULL
// unless the collation has supplementary characters (_SC, _UTF8), and
// then NCHAR of each surrogate makes the pair; Babelfish refuses a lone
// surrogate but takes the code point, so the surrogates come second.
func nchar(r rune) string {
	if hi, lo := utf16.EncodeRune(r); hi != utf8.RuneError {
		return "COALESCE(NCHAR(" + strconv.Itoa(int(r)) + "), NCHAR(" + strconv.Itoa(int(hi)) + ") + NCHAR(" + strconv.Itoa(int(lo)) + "))"
	}
	return "NCHAR(" + strconv.Itoa(int(r)) + ")"
}

package mysql

import (
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/profdb/profdb/ddl"
	"github.com/profdb/profdb/dialects"
)

var _ dialects.Scripter = Dialect{}

// RunHint returns how the mariadb (or mysql) client runs a script; it stops
// at the first error.
func (Dialect) RunHint(dialects.ScriptKind) string { return "mariadb DATABASE < FILE (or mysql)" }

// ScriptForm returns the form of a MySQL script that writes into the
// database schema ("" for the current one). It takes the session lock of an
// export (getLock) before the DDL, which commits implicitly on MySQL, and
// releases it after the commit. SET @profdb_lock = IF(GET_LOCK(...) = 1,
// 1, <a subquery of two rows>) fails the statement when the lock times out
// (GET_LOCK returns 0) or fails (NULL), without a stored program; DO would
// not do, as it ignores the error. The IDs live in user variables. The
// session runs with the sql_mode of profdb's own connections (SQLMode):
// strict, and a backslash an ordinary character in string literals.
func (Dialect) ScriptForm(schema string) dialects.ScriptForm { return scriptForm{schema: schema} }

type scriptForm struct{ schema string }

// tempRefused is the TEMPORARY table whose insert stops a script that
// refuses a result set.
const tempRefused = "profdb_refused"

func (f scriptForm) Begin() []string {
	return []string{
		"SET NAMES utf8mb4 COLLATE utf8mb4_bin",
		"SET SESSION sql_mode = '" + SQLMode + "'",
		"SET @profdb_lock = IF(" + getLock(f.schema) + " = 1, 1, (SELECT 1 UNION ALL SELECT 2))",
	}
}

// NULGuard returns nil: MySQL stores NUL in text.
func (scriptForm) NULGuard() []string { return nil }

// AfterDDL starts the transaction; a result set that is refused inserts its
// message into the integer column of a TEMPORARY table, which strict mode
// refuses with an error that quotes the message (MySQL has no statement
// that raises an error outside a stored program). Its primary key is for
// servers that demand one on every table (innodb_force_primary_key,
// sql_require_primary_key, Galera's strict mode).
func (scriptForm) AfterDDL() []string {
	return []string{"CREATE TEMPORARY TABLE IF NOT EXISTS " + tempRefused + " (refused BIGINT PRIMARY KEY)", "START TRANSACTION"}
}
func (scriptForm) Refuse(query, before, after string) []string {
	return []string{"INSERT INTO " + tempRefused + " (refused) SELECT CONCAT(" + scriptText(before) + ", COALESCE(CAST(q.fault_id AS CHAR), 'NULL'), " + scriptText(after) + ") FROM (" + query + ") q LIMIT 1"}
}
func (scriptForm) Allocate(inst, instCol, rel, relCol string) []string {
	return []string{
		"SET @profdb_inst_id = (SELECT COALESCE(MAX(" + instCol + "), 0) + 1 FROM " + inst + ")",
		"SET @profdb_rel_id = (SELECT COALESCE(MAX(" + relCol + "), 0) FROM " + rel + ")",
	}
}
func (scriptForm) InstID() string        { return "@profdb_inst_id" }
func (f scriptForm) CheckInstID() string { return f.InstID() }
func (scriptForm) UTCNow() string        { return "DATE_FORMAT(UTC_TIMESTAMP(), '%Y-%m-%dT%H:%i:%sZ')" }
func (scriptForm) RelID(k int) string    { return "@profdb_rel_id + " + strconv.Itoa(k) }
func (f scriptForm) End() []string {
	return []string{"COMMIT", "DROP TEMPORARY TABLE IF EXISTS " + tempRefused, "DO " + releaseLock(f.schema)}
}
func (scriptForm) Batch(_ int, stmts []string, _ bool) []string { return stmts }

// literals writes doubles as dialects.FloatLiteral does, decimals as
// numeric literals and text as scriptText.
var literals = dialects.Literals{Dialect: "mysql", Text: textForm.Write}

func (scriptForm) Literal(t ddl.Type, v any) (string, error) { return literals.Literal(t, v) }
func (scriptForm) WriteLiteral(w io.StringWriter, t ddl.Type, v any) error {
	return literals.Write(w, t, v)
}

// scriptChar writes a rune as CHAR of its UTF-8 bytes.
func scriptChar(r rune) string {
	var b strings.Builder
	b.WriteString("CHAR(")
	for i, c := range utf8.AppendRune(nil, r) {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Itoa(int(c)))
	}
	b.WriteString(" USING utf8mb4)")
	return b.String()
}

// textForm quotes text in single quotes, doubling single quotes inside
// (the script sets NO_BACKSLASH_ESCAPES). A rune that is not
// dialects.ScriptSafe is written as CHAR of its bytes USING utf8mb4 inside
// CONCAT: a carriage return because the mariadb client drops it from a CR
// LF inside a literal, the others (NUL among them) so that the script
// shows no control sequence.
var textForm = dialects.TextForm{Char: scriptChar, Open: "CONCAT(", Sep: ", ", Close: ")"}

// scriptText is the literal textForm writes.
func scriptText(s string) string { return textForm.Quote(s) }

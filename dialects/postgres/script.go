package postgres

import (
	"errors"
	"io"
	"strconv"
	"strings"

	"github.com/profdb/profdb/ddl"
	"github.com/profdb/profdb/dialects"
)

var _ dialects.Scripter = Dialect{}

// RunHint returns how psql runs a script, stopping at the first error.
func (Dialect) RunHint(dialects.ScriptKind) string {
	return "psql -v ON_ERROR_STOP=1 -d DATABASE -f FILE"
}

// ScriptForm returns the form of a PostgreSQL script: the
// transaction-scoped advisory lock of an export (allocLock), taken in a DO
// block so that psql prints nothing; the IDs live in two settings local to
// the transaction (profdb.inst_id, profdb.rel_id), read by current_setting.
// A Citus coordinator evaluates that call before it routes an INSERT, so
// the same script writes into distributed tables, where a subquery in
// VALUES is refused; the checks pass the INST_ID to EXECUTE as a parameter,
// which Citus prunes to the one shard that holds the result set.
// client_encoding and standard_conforming_strings make the
// literals mean what they say whatever the client's locale;
// client_min_messages keeps the notices of CREATE ... IF NOT EXISTS quiet.
// The schema does not change the form: advisory locks are per database.
func (Dialect) ScriptForm(string) dialects.ScriptForm { return scriptForm{} }

type scriptForm struct{}

// The settings that hold a script's IDs, and the expressions that read
// them.
const (
	instSetting = "profdb.inst_id"
	relSetting  = "profdb.rel_id"
	instExpr    = "current_setting('" + instSetting + "')::bigint"
	relExpr     = "current_setting('" + relSetting + "')::bigint"
)

func (scriptForm) Begin() []string {
	return []string{
		"SET client_encoding = 'UTF8'",
		"SET client_min_messages = warning",
		"SET standard_conforming_strings = on",
		"BEGIN",
		"DO $$BEGIN PERFORM " + allocLock() + "; END$$",
	}
}

// NULGuard returns nil: Literal refuses text with NUL.
func (scriptForm) NULGuard() []string { return nil }
func (scriptForm) AfterDDL() []string { return nil }
func (scriptForm) Allocate(inst, instCol, rel, relCol string) []string {
	return []string{"DO $$BEGIN\n" +
		"  PERFORM set_config('" + instSetting + "', (SELECT COALESCE(MAX(" + instCol + "), 0) + 1 FROM " + inst + ")::text, true);\n" +
		"  PERFORM set_config('" + relSetting + "', (SELECT COALESCE(MAX(" + relCol + "), 0) FROM " + rel + ")::text, true);\nEND$$"}
}
func (scriptForm) InstID() string { return instExpr }

// CheckInstID is $1, which Refuse binds to the INST_ID: a plan with the
// value as a parameter, which Citus prunes to one shard, where the setting
// would be read on every worker (which lacks it).
func (scriptForm) CheckInstID() string { return "$1" }
func (scriptForm) UTCNow() string {
	return `to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')`
}
func (scriptForm) RelID(k int) string { return relExpr + " + " + strconv.Itoa(k) }
func (scriptForm) End() []string      { return []string{"COMMIT"} }
func (scriptForm) Refuse(query, before, after string) []string {
	msg, _ := scriptText(strings.ReplaceAll(before, "%", "%%") + "%" + strings.ReplaceAll(after, "%", "%%"))
	return []string{"DO $$DECLARE v text;\nBEGIN\n  EXECUTE " +
		textLiteral("SELECT COALESCE(q.fault_id::text, 'NULL') FROM ("+query+") q LIMIT 1") +
		" INTO v USING " + instExpr + ";\n" +
		"  IF v IS NOT NULL THEN RAISE EXCEPTION " + msg + ", v; END IF;\nEND$$"}
}
func (scriptForm) Batch(_ int, stmts []string, _ bool) []string { return stmts }

// literals writes doubles as dialects.FloatLiteral does, decimals as
// numeric literals and text as scriptText.
var literals = dialects.Literals{Dialect: "postgres", Text: writeText}

func (scriptForm) Literal(t ddl.Type, v any) (string, error) { return literals.Literal(t, v) }
func (scriptForm) WriteLiteral(w io.StringWriter, t ddl.Type, v any) error {
	return literals.Write(w, t, v)
}

// errNUL is the error for text PostgreSQL cannot store.
var errNUL = errors.New("text contains the character U+0000, which PostgreSQL text cannot hold")

// textForm quotes text in single quotes, doubling single quotes inside
// (the script sets standard_conforming_strings). A rune that is not
// dialects.ScriptSafe is written as chr(n) joined to the rest with ||: a
// carriage return because psql on Windows reads its input in text mode,
// the others so that the script shows no control sequence.
var textForm = dialects.TextForm{Char: func(r rune) string { return "chr(" + strconv.Itoa(int(r)) + ")" }, Open: "(", Sep: " || ", Close: ")"}

// writeText writes text as textForm does. NUL is an error, text cannot
// hold it: nothing is written then.
func writeText(w io.StringWriter, s string) error {
	if strings.IndexByte(s, 0) >= 0 {
		return errNUL
	}
	return textForm.Write(w, s)
}

// scriptText is the literal writeText writes.
func scriptText(s string) (string, error) {
	var b strings.Builder
	err := writeText(&b, s)
	return b.String(), err
}

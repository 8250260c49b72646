package sqlserver_test

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/sqlc-dev/teesql/ast"
	"github.com/sqlc-dev/teesql/parser"
)

// This file holds the T-SQL parser the tests read SQL with: teesql, a
// hand-written port of SqlScriptDOM's parser (lenient: it accepts unknown
// words as procedure calls, so the tests check the trees it returns, not
// only that it parses). Whether the SQL runs is for the real server
// (Babelfish in CI: TestConformance, TestRealServer, TestCreateNewTable,
// cmd/profdb's TestDDLScriptInSQLServer). teesql stays for what Babelfish
// cannot tell:
//   - the ']]' escape inside brackets, which SQL Server reads and Babelfish
//     rejects (TestQuote, TestCreateTableInSchema);
//   - a type name that is no SQL Server type, such as PostgreSQL's INT8,
//     which Babelfish accepts (checkCreateTable's builtinTypes);
//   - the exact case of names, which Babelfish compares without case
//     (checkCreateTable, checkCreateIndex, TestConsumerQuery).

// teeParse parses src with teesql.
func teeParse(src string) (*ast.Script, error) {
	return parser.Parse(context.Background(), strings.NewReader(src))
}

// mustParse fails the test unless teesql parses src, and returns its tree.
func mustParse(t *testing.T, what, src string) *ast.Script {
	t.Helper()
	script, err := teeParse(src)
	if err != nil {
		t.Fatalf("%s: teesql: %v\n%s", what, err, src)
	}
	return script
}

// walk calls fn for every AST node reachable from v (pointers to structs,
// slices and interfaces of them), depth first.
func walk(v any, fn func(any)) {
	var rec func(reflect.Value)
	rec = func(rv reflect.Value) {
		switch rv.Kind() {
		case reflect.Interface, reflect.Pointer:
			if rv.IsNil() {
				return
			}
			if rv.Kind() == reflect.Pointer && rv.Elem().Kind() == reflect.Struct {
				fn(rv.Interface())
			}
			rec(rv.Elem())
		case reflect.Struct:
			for i := 0; i < rv.NumField(); i++ {
				if rv.Type().Field(i).IsExported() {
					rec(rv.Field(i))
				}
			}
		case reflect.Slice:
			for i := 0; i < rv.Len(); i++ {
				rec(rv.Index(i))
			}
		}
	}
	rec(reflect.ValueOf(v))
}

// stringLiterals returns the values of the string literals under v,
// unescaped by the parser.
func stringLiterals(v any) []string {
	var out []string
	walk(v, func(n any) {
		if s, ok := n.(*ast.StringLiteral); ok {
			out = append(out, s.Value)
		}
	})
	return out
}

// teesql must reject broken SQL, or the tests built on it prove nothing.
// What it lets through (an unclosed list, a stray word it takes for a
// procedure call) the checks of the trees catch (checkCreateTable wants one
// explicit NULL or NOT NULL per column), or the real server does.
func TestParserRejectsBrokenSQL(t *testing.T) {
	for _, src := range []string{
		"CREATE TABLE [X] ([A] BIGINT NOT NULL, [B] NVARCHAR(MAX) NULL))",
		"IF OBJECT_ID(N'[X]', N'U') IS NULL BEGIN CREATE TABLE [X] ([A] BIGINT NOT NULL); END END",
	} {
		if _, err := teeParse(src); err == nil {
			t.Errorf("teesql accepts %q", src)
		}
	}
}

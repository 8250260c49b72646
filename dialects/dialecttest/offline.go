package dialecttest

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/profdb/profdb/ddl"
	"github.com/profdb/profdb/dialects"
)

// These checks need no database: the dialects' unit tests share them.

// CheckRegistered checks that dialects.ForDSN picks a dialect of want's
// type for every DSN of dsns, named name, whose driver is driver.
func CheckRegistered(t testing.TB, want dialects.Dialect, name, driver string, dsns ...string) {
	t.Helper()
	for _, dsn := range dsns {
		d, err := dialects.ForDSN(dsn)
		if err != nil {
			t.Fatal(err)
		}
		if reflect.TypeOf(d) != reflect.TypeOf(want) || d.Name() != name || d.Facts().Driver != driver {
			t.Errorf("ForDSN(%q) = %T %s", dsn, d, d.Name())
		}
	}
}

// CheckColumnTypes checks that d.ColumnType maps every logical type as
// want says, and the zero Type to "".
func CheckColumnTypes(t testing.TB, d dialects.Dialect, want map[ddl.Type]string) {
	t.Helper()
	for typ, w := range want {
		if got := d.ColumnType(typ); got != w {
			t.Errorf("ColumnType(%s) = %s, want %s", typ, got, w)
		}
	}
	if got := d.ColumnType(0); got != "" {
		t.Errorf("ColumnType(0) = %q", got)
	}
}

// CheckBindUnchanged checks that d.Bind hands an int64, a float64, a
// string and nil to the driver unchanged as each of types.
func CheckBindUnchanged(t testing.TB, d dialects.Dialect, types ...ddl.Type) {
	t.Helper()
	for _, v := range []any{int64(5), 1.25, "text", nil} {
		for _, typ := range types {
			if got := d.Bind(typ, v); got != v {
				t.Errorf("Bind(%s, %#v) = %#v, want it unchanged", typ, v, got)
			}
		}
	}
}

// CheckQuote checks that d.Quote quotes every identifier of cases as the
// map says.
func CheckQuote(t testing.TB, d dialects.Dialect, cases map[string]string) {
	t.Helper()
	for in, want := range cases {
		if got := d.Quote(in); got != want {
			t.Errorf("Quote(%q) = %s, want %s", in, got, want)
		}
	}
}

// CheckTempSchemas checks that dialects.WritableSchema refuses every
// schema of temporary, in an error that wraps dialects.ErrTempSchema and
// names the dialect and the schema, and lets every schema of lasting
// through.
func CheckTempSchemas(t testing.TB, d dialects.Dialect, temporary, lasting []string) {
	t.Helper()
	for _, schema := range temporary {
		err := dialects.WritableSchema(d, schema)
		if !errors.Is(err, dialects.ErrTempSchema) || !strings.HasPrefix(err.Error(), fmt.Sprintf("%s: schema %q is ", d.Name(), schema)) {
			t.Errorf("WritableSchema(%q) = %v, want the temporary schema refused, named", schema, err)
		}
	}
	for _, schema := range lasting {
		if err := dialects.WritableSchema(d, schema); err != nil {
			t.Errorf("WritableSchema(%q) = %v, want nil", schema, err)
		}
	}
}

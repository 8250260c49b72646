package exporter_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/profdb/profdb/dialects"
	"github.com/profdb/profdb/exporter"
	"github.com/profdb/profdb/profilers/functiontrace"
	"github.com/profdb/profdb/resultset"
	"github.com/profdb/profdb/store"
)

// TestNarrowNVARCHARCountsUTF16: SQL Server's NVARCHAR(n) holds n UTF-16
// code units (dialects.ColumnInfo.MaxCharsUTF16), of which a character
// beyond U+FFFF takes two: text that fits by characters but not by code
// units is refused before anything is written, on the server named by
// PROFDB_TEST_SQLSERVER.
func TestNarrowNVARCHARCountsUTF16(t *testing.T) {
	db, _ := openFresh(t, "sqlserver", store.Options{}, exporter.Options{})
	ctx := ctxT(t)
	d := db.DB().Dialect()
	if _, err := resultset.Export(ctx, db, callTraceSet("seed", 1)); err != nil {
		t.Fatal(err)
	}
	rt := dialects.Qualify(d, "", d.StoredName(functiontrace.Routines))
	q := func(s string) string { return d.Quote(d.StoredName(s)) }
	mustExec(t, db, "DROP TABLE "+rt)
	mustExec(t, db, fmt.Sprintf("CREATE TABLE %s (%s BIGINT NOT NULL, %s BIGINT, %s BIGINT, %s NVARCHAR(2))",
		rt, q("INST_ID"), q("ID"), q("PARENT_ID"), q("COL_CLASS_NAME")))
	set := func(name string) *resultset.ResultSet {
		return &resultset.ResultSet{Header: resultset.Header{Profiler: functiontrace.Name, Caption: name},
			Tables: []resultset.TableRows{{Name: functiontrace.Routines, Columns: []string{"ID", "PARENT_ID", "COL_CLASS_NAME"},
				Rows: rowsOf([]any{int64(1), int64(-1), name})}}}
	}
	if _, err := resultset.Export(ctx, db, set("𝄞")); err != nil { // 1 character, 2 code units
		t.Fatalf("text of 2 code units: %v", err)
	}
	before := counts(t, db, functiontrace.Name)
	_, err := resultset.Export(ctx, db, set("𝄞x")) // 2 characters, 3 code units
	if want := "column COL_CLASS_NAME, row 1: text of 3 characters does not fit column type nvarchar(2)"; err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("text of 3 code units: error = %v, want %q", err, want)
	}
	if after := counts(t, db, functiontrace.Name); !reflect.DeepEqual(before, after) {
		t.Fatalf("row counts changed: %v -> %v", before, after)
	}
}

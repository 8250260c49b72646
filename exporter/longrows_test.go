package exporter_test

import (
	"strings"
	"testing"

	"github.com/profdb/profdb/dialects"
	"github.com/profdb/profdb/dialects/sqlite"
	"github.com/profdb/profdb/exporter"
	"github.com/profdb/profdb/profilers/functiontrace"
	"github.com/profdb/profdb/resultset"
	"github.com/profdb/profdb/store"
)

// TestLongRowsSessionBack: batched INSERT (BulkOff) writes rows of long
// strings with the session a dialects.LongRowTuner sets for them, and
// gives the connection back as it was, after an export that lands and
// after one that fails past its long rows; the strings land whole.
func TestLongRowsSessionBack(t *testing.T) {
	var _ dialects.LongRowTuner = sqlite.Dialect{}
	db, _ := openFresh(t, "sqlite", store.Options{}, exporter.Options{Bulk: exporter.BulkOff})
	db.DB().SQL().SetMaxOpenConns(1) // the export's connection is the one asked after
	ctx := ctxT(t)
	long := strings.Repeat("ж", dialects.BatchBytes/3) // 2 MiB: two rows fill a batch
	set := func(bad bool) *resultset.ResultSet {
		rows := [][]any{
			{int64(0), int64(-1), int64(0), long + "0"},
			{int64(1), int64(-1), int64(1), long + "1"},
			{int64(2), int64(-1), int64(2), "short"},
		}
		if bad {
			rows = append(rows, []any{int64(3), int64(-1), int64(3), int64(7)}) // a number for a text
		}
		return &resultset.ResultSet{Header: resultset.Header{Profiler: functiontrace.Name, Caption: "long rows"},
			Tables: []resultset.TableRows{
				{Name: functiontrace.Routines, Columns: []string{"ID", "PARENT_ID", "REC_ID", "COL_CLASS_NAME"}, Rows: rowsOf(rows...)},
				{Name: functiontrace.Threads, Columns: []string{"ID", "PARENT_ID"}, Rows: rowsOf([]any{int64(0), int64(-1)})},
			}}
	}
	cacheSize := func(when string) {
		t.Helper()
		var kib int
		if err := db.DB().SQL().QueryRowContext(ctx, "PRAGMA cache_size").Scan(&kib); err != nil {
			t.Fatal(err)
		}
		if kib != -sqlite.CacheKiB {
			t.Errorf("%s: cache_size %d, want %d", when, kib, -sqlite.CacheKiB)
		}
	}
	res, err := resultset.Export(ctx, db, set(false))
	if err != nil {
		t.Fatal(err)
	}
	cacheSize("after an export of long rows")
	var n int
	if err := db.DB().SQL().QueryRowContext(ctx, "SELECT COUNT(*) FROM "+functiontrace.Routines+
		" WHERE INST_ID = ? AND (COL_CLASS_NAME = ? OR COL_CLASS_NAME = ?)", res.InstID, long+"0", long+"1").Scan(&n); err != nil || n != 2 {
		t.Errorf("%d long strings read back whole (%v), want 2", n, err)
	}
	if _, err := resultset.Export(ctx, db, set(true)); err == nil || !strings.Contains(err.Error(), "column COL_CLASS_NAME, row 4: want text") {
		t.Fatalf("error %v, want the bad row's", err)
	}
	cacheSize("after an export that failed past its long rows")
}

package exporter_test

import (
	"testing"

	"github.com/profdb/profdb/dialects"
	"github.com/profdb/profdb/exporter"
	"github.com/profdb/profdb/profilers"
	"github.com/profdb/profdb/profilers/functiontrace"
	"github.com/profdb/profdb/resultset"
	"github.com/profdb/profdb/store"
)

// TestRowKeyTables: tables made by `profdb ddl --primary-key` (an
// invisible PROFDB_ROW_ID as primary key) take exports on both write paths,
// and read back, verify and delete as any others: the column is never
// written, read or reported.
func TestRowKeyTables(t *testing.T) {
	for _, bulk := range bulkModes {
		t.Run("bulk="+bulk.String(), func(t *testing.T) {
			db, _ := openFresh(t, "mysql", store.Options{}, exporter.Options{Bulk: bulk})
			ctx := ctxT(t)
			rk := db.DB().Dialect().(dialects.RowKeyer)
			def := profilers.MustLookup(functiontrace.Name)
			for _, tb := range append(profilers.Shared(), def.Tables...) {
				for _, st := range rk.CreateTableWithRowKey("", tb, true) {
					mustExec(t, db, st)
				}
			}
			for range 2 {
				if _, err := resultset.Export(ctx, db, edgeSet()); err != nil {
					t.Fatal(err)
				}
			}
			got, err := db.DB().Read(ctx, 2)
			if err != nil {
				t.Fatal(err)
			}
			compareSets(t, edgeSet(), got)
			if f, err := db.DB().Verify(ctx, 0); err != nil || len(f) != 0 {
				t.Fatalf("verify: %v %v", f, err)
			}
			if _, err := db.DB().Delete(ctx, 1); err != nil {
				t.Fatal(err)
			}
			var keyed int
			if err := db.DB().SQL().QueryRowContext(ctx, `SELECT COUNT(*) FROM information_schema.COLUMNS
WHERE TABLE_SCHEMA = DATABASE() AND COLUMN_NAME = ? AND EXTRA LIKE '%INVISIBLE%'`, dialects.RowKeyColumn).Scan(&keyed); err != nil {
				t.Fatal(err)
			}
			if keyed != len(def.Tables) {
				t.Errorf("%d tables keep the invisible key, want %d", keyed, len(def.Tables))
			}
		})
	}
}

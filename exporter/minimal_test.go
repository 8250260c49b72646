package exporter_test

import (
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/profdb/profdb/dialects"
	"github.com/profdb/profdb/dialects/sqlite"
	"github.com/profdb/profdb/exporter"
	"github.com/profdb/profdb/resultset"
	"github.com/profdb/profdb/store"
)

// minimalDialect is SQLite with nothing but the methods of
// dialects.Dialect: none of the optional capabilities, so that the
// exporter takes the portable path wherever it would use one.
type minimalDialect struct{ dialects.Dialect }

func implements[T any](v any) bool { _, ok := v.(T); return ok }

// TestMinimalDialect: a dialect that implements no optional capability
// exports and reads back all the same: batched INSERT without a
// dialects.BulkLoader (with Options.Bulk at BulkAuto), no
// lock of its own without a dialects.Locker, no retry without a
// dialects.Retrier, indexes with their tables without a
// dialects.IndexSplitter, and reads ordered by ID.
func TestMinimalDialect(t *testing.T) {
	ctx := ctxT(t)
	d := minimalDialect{sqlite.Dialect{}}
	for name, has := range map[string]bool{
		"BulkLoader":      implements[dialects.BulkLoader](d),
		"Locker":          implements[dialects.Locker](d),
		"Retrier":         implements[dialects.Retrier](d),
		"IndexSplitter":   implements[dialects.IndexSplitter](d),
		"InstReader":      implements[dialects.InstReader](d),
		"NewTableCreator": implements[dialects.NewTableCreator](d),
		"ReadOnlyTeller":  implements[dialects.ReadOnlyTeller](d),
		"StaleSnapshots":  implements[dialects.StaleSnapshots](d),
		"LockWaiter":      implements[dialects.LockWaiter](d),
		"TempSchemas":     implements[dialects.TempSchemas](d),
		"RowKeyer":        implements[dialects.RowKeyer](d),
		"Connector":       implements[dialects.Connector](d),
		"AccessDSN":       implements[dialects.AccessDSN](d),
	} {
		if has {
			t.Fatalf("the minimal dialect implements dialects.%s", name)
		}
	}
	drv, err := d.DriverDSN("sqlite:" + filepath.Join(t.TempDir(), "minimal.db"))
	if err != nil {
		t.Fatal(err)
	}
	sqldb, err := sql.Open(d.Facts().Driver, drv)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sqldb.Close() })
	db := exporter.New(store.New(sqldb, d, store.Options{}), exporter.Options{Bulk: exporter.BulkAuto, Retries: 2})
	want := edgeSet()
	for inst := int64(1); inst <= 2; inst++ {
		res, err := resultset.Export(ctx, db, edgeSet())
		if err != nil {
			t.Fatal(err)
		}
		if res.InstID != inst || res.Rows != 7 {
			t.Fatalf("result = %+v, want INST_ID %d with 7 rows", res, inst)
		}
	}
	got, err := db.DB().Read(ctx, 2)
	if err != nil {
		t.Fatal(err)
	}
	compareSets(t, want, got)
}

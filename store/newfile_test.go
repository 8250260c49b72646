package store_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/profdb/profdb/exporter"
	"github.com/profdb/profdb/profilers/lightcoverage"
	"github.com/profdb/profdb/store"
)

// TestNewFileKeptWhileAnotherHasItOpen: the empty SQLite file that one
// DB created is not removed when that DB closes without writing (its
// command failed on bad input) while another DB has the file open and has
// yet to write: the other's export lands in the file at the path, where
// the next command finds it. (Two commands started at once on a new path:
// the first to open created the file, the second opened it.) The file
// was removed under the second: its export failed ("disk I/O error"), or,
// when a third DB had meanwhile made the file anew, went into the removed
// file and reported success; the result set was lost.
func TestNewFileKeptWhileAnotherHasItOpen(t *testing.T) {
	for _, third := range []bool{false, true} {
		name := "alone"
		if third {
			name = "third opens the path meanwhile"
		}
		t.Run(name, func(t *testing.T) {
			ctx := ctxT(t)
			path := filepath.Join(t.TempDir(), "new.db")
			dsn := "sqlite:" + path
			first, err := store.Open(ctx, dsn, store.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := os.Lstat(path); err != nil {
				t.Fatalf("Open created no file to test with: %v", err)
			}
			second, err := exporter.Open(ctx, dsn, store.Options{}, exporter.Options{})
			if err != nil {
				first.Close()
				t.Fatal(err)
			}
			defer second.Close()
			if err := first.Close(); err != nil {
				t.Fatalf("Close of the DB that wrote nothing: %v", err)
			}
			if third {
				db, err := store.Open(ctx, dsn, store.Options{})
				if err != nil {
					t.Fatal(err)
				}
				defer db.Close()
			}
			id := exportOne(ctx, t, second)
			if err := second.Close(); err != nil {
				t.Fatal(err)
			}
			db, err := store.Open(ctx, dsn, store.Options{ReadOnly: true})
			if err != nil {
				t.Fatalf("the file of the export that succeeded: %v", err)
			}
			defer db.Close()
			list, err := db.List(ctx)
			if err != nil || len(list) != 1 || list[0].InstID != id {
				t.Errorf("result sets in %s after the export of INST_ID %d: %+v, %v", path, id, list, err)
			}
		})
	}
}

// exportOne exports a small light-coverage result set through x and
// returns its INST_ID.
func exportOne(ctx context.Context, t *testing.T, x *exporter.Exporter) int64 {
	t.Helper()
	b := lightcoverage.NewBuilder()
	b.AddRoutine(lightcoverage.RoutineInfo{Name: "parse", SourceFile: "parse.go", SourceLine: 10, Count: 1, LineLevel: true}).AddLine(11, 1)
	r, err := b.Export(ctx, x, "one")
	if err != nil {
		t.Fatalf("export: %v", err)
	}
	return r.InstID
}

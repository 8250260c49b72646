package store_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/profdb/profdb/dialects"
	"github.com/profdb/profdb/exporter"
	"github.com/profdb/profdb/internal/dbtest"
	"github.com/profdb/profdb/store"
)

// TestNothingThere: what a DSN and schema name but that holds no result
// sets is an error that names it and that store.Missing recognises, never
// an empty list or a verification without findings: a schema or MySQL
// database that does not exist, a database without an INSTANCES table,
// and, for a reader, an SQLite file that is empty or no database.
func TestNothingThere(t *testing.T) {
	for _, dialect := range dbtest.Dialects("sqlserver") {
		t.Run(dialect, func(t *testing.T) {
			ctx := ctxT(t)
			dsn := dbtest.Fresh(t, dialect)
			if dialect == "sqlite" {
				// An SQLite database with a table of another application's.
				db := dbtest.Open(t, dsn)
				if _, err := db.ExecContext(ctx, "CREATE TABLE OTHER (X INTEGER)"); err != nil {
					t.Fatal(err)
				}
			}
			db, err := store.Open(ctx, dsn, store.Options{ReadOnly: true})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			list, err := db.List(ctx)
			if !errors.Is(err, store.ErrNoResultSets) || !store.Missing(err) || !strings.Contains(err.Error(), "no INSTANCES table") {
				t.Errorf("List of a database without tables: %v, %v; want an error wrapping ErrNoResultSets", list, err)
			}
			findings, err := db.Verify(ctx, 0)
			if !errors.Is(err, store.ErrNoResultSets) || !strings.Contains(err.Error(), "no INSTANCES table") {
				t.Errorf("Verify of a database without tables: %v, %v; want an error wrapping ErrNoResultSets", findings, err)
			}
			if _, err := db.InstIDs(ctx); !errors.Is(err, store.ErrNoResultSets) {
				t.Errorf("InstIDs of a database without tables: %v; want an error wrapping ErrNoResultSets", err)
			}
			if dialect == "sqlite" {
				return
			}
			other, err := store.Open(ctx, dsn, store.Options{ReadOnly: true, Schema: "profdb_no_such_schema"})
			if err != nil {
				t.Fatal(err)
			}
			defer other.Close()
			list, err = other.List(ctx)
			if !errors.Is(err, dialects.ErrNoSchema) || !store.Missing(err) || !strings.Contains(err.Error(), `"profdb_no_such_schema"`) {
				t.Errorf("List of a schema that does not exist: %v, %v; want an error naming it, wrapping dialects.ErrNoSchema", list, err)
			}
			if _, err := other.Verify(ctx, 0); !errors.Is(err, dialects.ErrNoSchema) {
				t.Errorf("Verify of a schema that does not exist: %v; want an error wrapping dialects.ErrNoSchema", err)
			}
		})
	}
}

// TestMySQLUnknownDatabase: a MySQL DSN naming a database that does not
// exist fails to open (the server refuses the connection) with an error
// that store.Missing recognises and that names the database.
func TestMySQLUnknownDatabase(t *testing.T) {
	dsn, err := dbtest.WithNamespace(dbtest.DSN(t, "mysql"), "profdb_no_such_db")
	if err != nil {
		t.Fatal(err)
	}
	db, err := store.Open(ctxT(t), dsn, store.Options{ReadOnly: true})
	if err == nil {
		db.Close()
		t.Fatal("opened a database that does not exist")
	}
	if !errors.Is(err, dialects.ErrNoSchema) || !store.Missing(err) || !strings.Contains(err.Error(), "profdb_no_such_db") {
		t.Errorf("open: %v; want an error naming the database, wrapping dialects.ErrNoSchema", err)
	}
}

// TestSQLiteFileNotDatabase: a reader of an SQLite file that is empty or
// not a database, or missing, fails to open with an error naming the file
// that store.Missing recognises, and leaves the file as it was.
func TestSQLiteFileNotDatabase(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string]string{"empty.db": "", "text.db": "not a database, but a text file long enough to be read as a header..............................................\n"} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		db, err := store.Open(ctxT(t), "sqlite:"+path, store.Options{ReadOnly: true})
		if err == nil {
			db.Close()
			t.Errorf("%s: opened for reading", name)
			continue
		}
		if !store.Missing(err) || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: %v; want an error naming the file that store.Missing recognises", name, err)
		}
		if got, err := os.ReadFile(path); err != nil || string(got) != content {
			t.Errorf("%s now holds %q, %v", name, got, err)
		}
	}
	missing := filepath.Join(dir, "missing.db")
	if _, err := store.Open(ctxT(t), "sqlite:"+missing, store.Options{ReadOnly: true}); !store.Missing(err) {
		t.Errorf("missing file: %v; want an error that store.Missing recognises", err)
	}
	if _, err := os.Lstat(missing); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a reader created %s: %v", missing, err)
	}
}

// TestNewFileRemovedWhileEmpty: an SQLite file that Open created is
// removed by Close while nothing was committed into it (a command that
// failed leaves no empty file, which readers would open as an empty
// database); one holding a result set stays, and so does an empty file
// that existed before.
func TestNewFileRemovedWhileEmpty(t *testing.T) {
	ctx := ctxT(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "new.db")
	db, err := store.Open(ctx, "sqlite:"+path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(path); err != nil {
		t.Fatalf("Open created no file to test with: %v", err)
	}
	if _, err := db.List(ctx); !errors.Is(err, store.ErrNoResultSets) {
		t.Fatalf("List of a new database: %v", err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the empty file Open created is still there after Close: %v", err)
	}

	x, err := exporter.Open(ctx, "sqlite:"+path, store.Options{}, exporter.Options{})
	if err != nil {
		t.Fatal(err)
	}
	exportOne(ctx, t, x)
	if err := x.Close(); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(path); err != nil || fi.Size() == 0 {
		t.Errorf("the file of an export is gone or empty after Close: %v", err)
	}

	before := filepath.Join(dir, "before.db")
	if err := os.WriteFile(before, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	db, err = store.Open(ctx, "sqlite:"+before, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(before); err != nil {
		t.Errorf("Close removed an empty file that existed before Open: %v", err)
	}
}

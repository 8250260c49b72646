package store_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	_ "github.com/profdb/profdb/dialects/sqlite"
	"github.com/profdb/profdb/exporter"
	"github.com/profdb/profdb/profilers/lightcoverage"
	"github.com/profdb/profdb/store"
)

// ExampleOpen opens a SQLite database in a new file. The DSN's scheme picks
// the dialect, whose package must be imported (here with a blank import of
// dialects/sqlite); "postgres://", "mysql://" and "sqlserver://" DSNs open
// the other databases the same way.
func ExampleOpen() {
	dir, err := os.MkdirTemp("", "profdb-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)

	ctx := context.Background()
	db, err := store.Open(ctx, "sqlite:"+filepath.Join(dir, "results.db"), store.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer db.Close()
	fmt.Println("dialect:", db.Dialect().Name())

	// A new database has no tables until the first export creates them.
	// List says so with an error wrapping store.ErrNoResultSets, never an
	// empty list, which is the answer for a database whose result sets were
	// all deleted.
	_, err = db.List(ctx)
	fmt.Println("no result sets:", errors.Is(err, store.ErrNoResultSets))
	// Output:
	// dialect: sqlite
	// no result sets: true
}

// ExampleDB_List lists the result sets of a database: each one's INST_ID,
// profiler, caption and rows per table. Two Light Coverage result sets are
// exported first (see package exporter).
func ExampleDB_List() {
	dir, err := os.MkdirTemp("", "profdb-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)

	ctx := context.Background()
	db, err := store.Open(ctx, "sqlite:"+filepath.Join(dir, "results.db"), store.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer db.Close()

	x := exporter.New(db, exporter.Options{})
	for _, run := range []struct {
		caption string
		count   int64
	}{{"nightly", 4}, {"smoke", 0}} {
		b := lightcoverage.NewBuilder()
		r := b.AddRoutine(lightcoverage.RoutineInfo{
			Name: "parse", Module: "example.com/app", SourceFile: "parse.go", SourceLine: 10, Count: run.count, LineLevel: true,
		})
		r.AddLine(11, run.count)
		r.AddLine(12, 0)
		if _, err := b.Export(ctx, x, run.caption); err != nil {
			fmt.Println(err)
			return
		}
	}

	list, err := db.List(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, l := range list {
		fmt.Printf("%d %s %q: %d rows, %d in %s\n", l.InstID, l.Profiler, l.Caption, l.Rows,
			l.Tables[lightcoverage.Lines], lightcoverage.Lines)
	}
	// Output:
	// 1 light-coverage "nightly": 10 rows, 2 in LIGHT_COVERAGE_PROFILER_LINES
	// 2 light-coverage "smoke": 10 rows, 2 in LIGHT_COVERAGE_PROFILER_LINES
}

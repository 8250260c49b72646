package exporter_test

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"

	_ "github.com/profdb/profdb/dialects/sqlite"
	"github.com/profdb/profdb/exporter"
	"github.com/profdb/profdb/profilers/lightcoverage"
	"github.com/profdb/profdb/resultset"
	"github.com/profdb/profdb/store"
)

// ExampleNew exports a Light Coverage result set, assembled with the
// profiler's typed builder, into a SQLite database. The builder fills the
// identifier columns and the derived figures (% covered per module and
// source file); the Exporter creates the tables on first use and writes the
// result set in one transaction, with the next free INST_ID.
func ExampleNew() {
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

	b := lightcoverage.NewBuilder()
	parse := b.AddRoutine(lightcoverage.RoutineInfo{
		Name: "parse", Namespace: "app", Module: "example.com/app", SourceFile: "parse.go",
		SourceLine: 10, CodeType: "x64", Count: 2, LineLevel: true,
	})
	parse.AddLine(11, 2)
	parse.AddLine(12, 0)
	emit := b.AddRoutine(lightcoverage.RoutineInfo{
		Name: "emit", Namespace: "app", Module: "example.com/app", SourceFile: "emit.go",
		SourceLine: 4, CodeType: "x64", Count: 2, LineLevel: true,
	})
	emit.AddLine(5, 2)

	// The builder's Export is resultset.Export of its ResultSet.
	res, err := b.Export(ctx, x, "app: go test -cover")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("INST_ID %d (%s, %q): %d rows\n", res.InstID, res.Profiler, res.Caption, res.Rows)
	for _, t := range slices.Sorted(maps.Keys(res.Tables)) {
		fmt.Printf("  %-42s %d\n", t, res.Tables[t])
	}

	// Any resultset.ResultSet goes the same way; the next one gets the next
	// INST_ID.
	res, err = resultset.Export(ctx, x, b.ResultSet("app: again"))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("INST_ID %d (%s, %q): %d rows\n", res.InstID, res.Profiler, res.Caption, res.Rows)
	// Output:
	// INST_ID 1 (light-coverage, "app: go test -cover"): 16 rows
	//   LIGHT_COVERAGE_PROFILER_LINES              3
	//   LIGHT_COVERAGE_PROFILER_META_LINES         3
	//   LIGHT_COVERAGE_PROFILER_META_MODULES       1
	//   LIGHT_COVERAGE_PROFILER_META_ROUTINES      2
	//   LIGHT_COVERAGE_PROFILER_META_SOURCE_FILES  2
	//   LIGHT_COVERAGE_PROFILER_MODULES_DATA       1
	//   LIGHT_COVERAGE_PROFILER_ROUTINES_DATA      2
	//   LIGHT_COVERAGE_PROFILER_SOURCE_FILES_DATA  2
	// INST_ID 2 (light-coverage, "app: again"): 16 rows
}

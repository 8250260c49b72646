package readback_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	_ "github.com/profdb/profdb/dialects/sqlite"
	"github.com/profdb/profdb/exporter"
	"github.com/profdb/profdb/profilers/lightcoverage"
	"github.com/profdb/profdb/readback"
	"github.com/profdb/profdb/store"
)

// ExampleReader_Summarize reads back the figures `profdb show` prints about
// a Light Coverage result set: lines and routines covered, modules and
// source files worst covered first, and the least covered routines. Each
// list holds at most Options.Top entries and records how many there were.
func ExampleReader_Summarize() {
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

	// A result set to read: four routines of two modules, in three files.
	b := lightcoverage.NewBuilder()
	for _, r := range []struct {
		name, module, file string
		lines              []int64 // how often each line ran
	}{
		{"parse", "example.com/app", "parse.go", []int64{5, 5, 0, 5}},
		{"emit", "example.com/app", "emit.go", []int64{2, 2}},
		{"retry", "example.com/app", "emit.go", []int64{0, 0, 0}},
		{"load", "example.com/app/config", "config/load.go", []int64{1, 0}},
	} {
		rt := b.AddRoutine(lightcoverage.RoutineInfo{Name: r.name, Module: r.module, SourceFile: r.file, LineLevel: true})
		for i, n := range r.lines {
			rt.AddLine(int64(10+i), n)
		}
	}
	res, err := b.Export(ctx, exporter.New(db, exporter.Options{}), "app: go test -cover")
	if err != nil {
		fmt.Println(err)
		return
	}

	// A Reader reads in one consistent snapshot until it is closed.
	r, err := readback.Begin(ctx, db)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer r.Close()
	s, err := r.Summarize(ctx, res.InstID, readback.Options{Top: 3})
	if err != nil {
		fmt.Println(err)
		return
	}
	c := s.Coverage
	fmt.Printf("result set %d (%s, %q): %s\n", s.Instance.InstID, s.Instance.Profiler, s.Instance.Caption, s.Headline())
	fmt.Printf("lines:    %d of %d (%.1f%%)\n", c.Lines.Covered, c.Lines.Total, c.Lines.Percent())
	fmt.Printf("routines: %d of %d\n", c.Routines.Covered, c.Routines.Total)
	for _, m := range c.Modules.Items {
		fmt.Printf("module %s: %.1f%%\n", m.Name, m.Percent)
	}
	fmt.Printf("least covered routines (%d of %d):\n", len(c.Least.Items), c.Least.Total)
	for _, rc := range c.Least.Items {
		fmt.Printf("  %-6s %-15s %d/%d\n", rc.Name, rc.File, rc.Covered, rc.Total)
	}
	// Output:
	// result set 1 (light-coverage, "app: go test -cover"): 54.5% of lines covered
	// lines:    6 of 11 (54.5%)
	// routines: 3 of 4
	// module example.com/app/config: 50.0%
	// module example.com/app: 55.6%
	// least covered routines (3 of 4):
	//   retry  emit.go         0/3
	//   load   config/load.go  1/2
	//   parse  parse.go        3/4
}

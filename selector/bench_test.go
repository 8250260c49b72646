package selector_test

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/profdb/profdb/exporter"
	"github.com/profdb/profdb/internal/dbtest"
	"github.com/profdb/profdb/profilers/functiontrace"
	"github.com/profdb/profdb/profilers/lightcoverage"
	"github.com/profdb/profdb/resultset"
	"github.com/profdb/profdb/selector"
	"github.com/profdb/profdb/store"
)

var (
	historySize = flag.Int("history", 1000, "result sets BenchmarkHistory builds per database")
	historyKeep = flag.Bool("history.keep", false, "keep BenchmarkHistory's SQLite file (its name is logged)")
)

// history builds a database of *historySize tiny result sets, one in ten
// a function trace, alternating between branches main and feature/N, with
// a label each; it returns the DB.
func history(b *testing.B, dialect string) *store.DB {
	b.Helper()
	ctx := context.Background()
	dsn := dbtest.Fresh(b, dialect)
	if dialect == "sqlite" && *historyKeep {
		dir, err := os.MkdirTemp("", "profdb-history")
		if err != nil {
			b.Fatal(err)
		}
		dsn = "sqlite:" + filepath.Join(dir, "history.db")
		b.Logf("history kept in %s", dsn)
	}
	x, err := exporter.Open(ctx, dsn, store.Options{}, exporter.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { x.Close() })
	for i := range *historySize {
		prof, branch := lightcoverage.Name, "main"
		if i%10 == 8 {
			prof = functiontrace.Name
		}
		if i%2 == 1 {
			branch = fmt.Sprintf("feature/%d", i%50)
		}
		run := resultset.Run{Commit: fmt.Sprintf("%040x", i*7919+1), Branch: branch, Labels: map[string]string{"suite": "unit", "shard": fmt.Sprint(i % 4)}}
		set := &resultset.ResultSet{Header: resultset.Header{Profiler: prof, Caption: "run", Run: &run}}
		if _, err := resultset.Export(ctx, x, set); err != nil {
			b.Fatal(err)
		}
	}
	return x.DB()
}

// BenchmarkHistory times, on a database of -history result sets, what
// list --last 20 reads (the newest 20 with their row counts), list
// --branch main --last 20, and the selectors latest, branch:main~1,
// label:shard=3 and a second result set picked by branch:main beside the
// newest (check latest --baseline branch:main).
func BenchmarkHistory(b *testing.B) {
	for _, dialect := range []string{"sqlite", "postgres"} {
		b.Run(fmt.Sprintf("%s/%d", dialect, *historySize), func(b *testing.B) {
			db := history(b, dialect)
			ctx := context.Background()
			r := &selector.Resolver{DB: db}
			parse := func(s string) selector.Selector {
				sel, err := selector.Parse(s)
				if err != nil {
					b.Fatal(err)
				}
				return sel
			}
			for _, c := range []struct {
				name string
				run  func() error
			}{
				{"list-last-20", func() error {
					l, err := db.Select(ctx, store.Filter{Last: 20, Counted: true})
					if err == nil && len(l) != 20 {
						err = fmt.Errorf("%d listed", len(l))
					}
					return err
				}},
				{"list-branch-main-last-20", func() error {
					_, err := db.Select(ctx, store.Filter{Branch: "main", Last: 20, Counted: true})
					return err
				}},
				{"latest", func() error { _, err := r.Resolve(ctx, parse("latest")); return err }},
				{"branch-main~1", func() error { _, err := r.Resolve(ctx, parse("branch:main~1")); return err }},
				{"label-shard-3", func() error { _, err := r.Resolve(ctx, parse("label:shard=3")); return err }},
				{"baseline-branch-main", func() error {
					first, err := r.Resolve(ctx, parse("latest"))
					if err == nil {
						_, err = r.Second(ctx, parse("branch:main"), first)
					}
					return err
				}},
			} {
				b.Run(c.name, func(b *testing.B) {
					for b.Loop() {
						if err := c.run(); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		})
	}
}

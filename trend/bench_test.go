package trend_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/profdb/profdb/dialects"
	"github.com/profdb/profdb/internal/clibin"
	"github.com/profdb/profdb/internal/launch"
	"github.com/profdb/profdb/internal/testdb"
	"github.com/profdb/profdb/profilers"
)

func TestMain(m *testing.M) {
	launch.Main() // the benchmark measures profdb through the launcher
	os.Exit(m.Run())
}

var (
	benchSets = flag.Int("trend-sets", 5000, "BenchmarkTrend: result sets the database holds")
	benchLast = flag.Int("trend-last", 100, "BenchmarkTrend: --last")
)

// pflagModule is the module whose tests' coverage profile the history is
// made of: profdb's own dependency, in the module cache.
const pflagModule = "github.com/spf13/pflag@v1.0.9"

// BenchmarkTrend times `profdb trend --branch main --profiler
// light-coverage --last 100` (-trend-last) on a database that holds 5,000
// (-trend-sets) coverage result sets, on SQLite and, with
// PROFDB_TEST_POSTGRES, on PostgreSQL: the CLI run three times through the
// launcher, its median time and peak RSS reported. The history is one real
// coverage profile (pflag's tests, go test -coverprofile), exported once
// and copied inside the database by INSERT … SELECT with INST_ID and
// RELATIONS.ID shifted; every tenth result set is on branch feature, the
// others on main. docs/performance.md has the figures.
func BenchmarkTrend(b *testing.B) {
	ctx := b.Context()
	profile, src := coverprofile(b)
	bin, err := clibin.Build(ctx, b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	for _, dialect := range []string{"sqlite", "postgres"} {
		b.Run(dialect, func(b *testing.B) {
			dsn := testdb.Fresh(b, dialect)
			start := time.Now()
			if r := launch.Measure(b, nil, bin, "export", "--db", dsn, "-q", "--source-root", src, profile); r.Err != "" {
				b.Fatalf("profdb export: %s\n%s", r.Err, r.Stderr)
			}
			db := testdb.Open(b, dsn)
			d, err := dialects.ForDSN(dsn)
			if err != nil {
				b.Fatal(err)
			}
			if err := replicate(ctx, db, d, 1, *benchSets); err != nil {
				b.Fatal(err)
			}
			fmt.Printf("%s: %d result sets built in %.1f s\n", dialect, *benchSets, time.Since(start).Seconds())
			args := []string{bin, "trend", "--db", dsn, "--branch", "main", "--profiler", "light-coverage", "--last", fmt.Sprint(*benchLast), "--json"}
			var secs, mib []float64
			for b.Loop() {
				secs, mib = secs[:0], mib[:0]
				for range 3 {
					r := launch.Measure(b, nil, args...)
					if r.Err != "" {
						b.Fatalf("profdb trend: %s\n%s", r.Err, r.Stderr)
					}
					var out struct{ Runs []json.RawMessage }
					if err := json.Unmarshal([]byte(r.Stdout), &out); err != nil || len(out.Runs) != *benchLast {
						b.Fatalf("profdb trend printed %d runs (%v), want %d", len(out.Runs), err, *benchLast)
					}
					secs = append(secs, r.Elapsed.Seconds())
					mib = append(mib, float64(r.MaxRSS)/(1<<20))
				}
			}
			b.ReportMetric(median(secs), "s/trend")
			b.ReportMetric(median(mib), "MiB-peak-RSS")
			fmt.Printf("%s: trend --branch main --last %d of %d result sets: median %.3f s, %.1f MiB peak RSS (runs: %.3f s)\n",
				dialect, *benchLast, *benchSets, median(secs), median(mib), secs)
		})
	}
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}

// coverprofile runs pflag's tests with -coverprofile in a copy of the
// module (the module cache is read-only) and returns the profile and the
// module's folder.
func coverprofile(b *testing.B) (profile, src string) {
	ctx := b.Context()
	dir := b.TempDir()
	out, err := goCmd(ctx, ".", "mod", "download", "-json", pflagModule)
	if err != nil {
		b.Fatal(err)
	}
	var mod struct{ Dir string }
	if err := json.Unmarshal(out, &mod); err != nil || mod.Dir == "" {
		b.Fatalf("go mod download %s said %q: %v", pflagModule, out, err)
	}
	src = filepath.Join(dir, "pflag")
	if err := os.CopyFS(src, os.DirFS(mod.Dir)); err != nil {
		b.Fatal(err)
	}
	profile = filepath.Join(dir, "pflag.coverprofile")
	if _, err := goCmd(ctx, src, "test", "-count=1", "-coverprofile="+profile, "."); err != nil {
		b.Fatal(err)
	}
	return profile, src
}

func goCmd(ctx context.Context, dir string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=", "GOTOOLCHAIN=local")
	out, err := cmd.Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			err = fmt.Errorf("%w\n%s", err, ee.Stderr)
		}
		return nil, fmt.Errorf("go %s (in %s): %w", strings.Join(args, " "), dir, err)
	}
	return out, nil
}

// replicate copies result sets 1..have inside the database, doubling them
// until it holds want: the copy of set i is set i+have. It writes what
// exports of the same input would: INST_ID in every table that has one
// (INSTANCES, RELATIONS, the profiler's tables, profdb's own), and
// RELATIONS' ID, unique in the whole table, past the largest; a column the
// server numbers itself (PROFDB_ROW_ID) is left to it. Then it puts every
// tenth result set on branch feature and the others on main.
func replicate(ctx context.Context, db *sql.DB, d dialects.Dialect, have, want int) error {
	names, err := d.Tables(ctx, db, "")
	if err != nil {
		return fmt.Errorf("replicate: %w", err)
	}
	type table struct {
		name, inst, relID string // quoted
		cols              []string
	}
	var tables []table
	ledger, ledgerName := "", ""
	for _, name := range names {
		if strings.EqualFold(name, profilers.ResultSetsTable) {
			ledger, ledgerName = d.Quote(name), name
		}
		cols, err := d.Columns(ctx, db, "", name)
		if err != nil {
			return fmt.Errorf("replicate: %w", err)
		}
		t := table{name: d.Quote(name)}
		for _, c := range cols {
			switch {
			case strings.EqualFold(c.Name, "PROFDB_ROW_ID"):
				continue
			case strings.EqualFold(c.Name, "INST_ID"):
				t.inst = d.Quote(c.Name)
			case strings.EqualFold(c.Name, "ID") && strings.EqualFold(name, "RELATIONS"):
				t.relID = d.Quote(c.Name)
			}
			t.cols = append(t.cols, d.Quote(c.Name))
		}
		if t.inst != "" {
			tables = append(tables, t)
		}
	}
	for have < want {
		n := min(have, want-have)
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return fmt.Errorf("replicate: %w", err)
		}
		for _, t := range tables {
			exprs := slices.Clone(t.cols)
			for i, c := range exprs {
				switch c {
				case t.inst:
					exprs[i] = fmt.Sprintf("%s + %d", c, have)
				case t.relID:
					var top int64
					if err := tx.QueryRowContext(ctx, "SELECT MAX("+c+") FROM "+t.name).Scan(&top); err != nil {
						tx.Rollback()
						return fmt.Errorf("replicate: largest RELATIONS ID: %w", err)
					}
					exprs[i] = fmt.Sprintf("%s + %d", c, top)
				}
			}
			q := fmt.Sprintf("INSERT INTO %s (%s) SELECT %s FROM %s WHERE %s BETWEEN 1 AND %d",
				t.name, strings.Join(t.cols, ", "), strings.Join(exprs, ", "), t.name, t.inst, n)
			if _, err := tx.ExecContext(ctx, q); err != nil {
				tx.Rollback()
				return fmt.Errorf("replicate: %s: %w", q, err)
			}
		}
		if err := tx.Commit(); err != nil {
			return fmt.Errorf("replicate: commit: %w", err)
		}
		have += n
	}
	if ledger == "" {
		return fmt.Errorf("replicate: no %s among %v", profilers.ResultSetsTable, names)
	}
	col := func(want string) (string, error) {
		cols, err := d.Columns(ctx, db, "", ledgerName)
		if err != nil {
			return "", err
		}
		for _, c := range cols {
			if strings.EqualFold(c.Name, want) {
				return d.Quote(c.Name), nil
			}
		}
		return "", fmt.Errorf("replicate: %s has no column %s", ledger, want)
	}
	var qc [3]string
	for i, name := range []string{profilers.ColBranch, "INST_ID", profilers.ColProfiler} {
		if qc[i], err = col(name); err != nil {
			return err
		}
	}
	q := fmt.Sprintf("UPDATE %s SET %s = CASE WHEN %s %% 10 = 0 THEN 'feature' ELSE 'main' END, %s = 'light-coverage'", ledger, qc[0], qc[1], qc[2])
	if _, err := db.ExecContext(ctx, q); err != nil {
		return fmt.Errorf("replicate: %s: %w", q, err)
	}
	return nil
}

package trend_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	_ "github.com/profdb/profdb/dialects/mysql"
	_ "github.com/profdb/profdb/dialects/postgres"
	_ "github.com/profdb/profdb/dialects/sqlite"
	_ "github.com/profdb/profdb/dialects/sqlserver"
	"github.com/profdb/profdb/exporter"
	"github.com/profdb/profdb/internal/dbtest"
	"github.com/profdb/profdb/internal/trendtest"
	"github.com/profdb/profdb/optionerr"
	"github.com/profdb/profdb/profilers/functiontrace"
	"github.com/profdb/profdb/profilers/lightcoverage"
	"github.com/profdb/profdb/profilers/referencecount"
	"github.com/profdb/profdb/profilers/resource"
	"github.com/profdb/profdb/readback"
	"github.com/profdb/profdb/resultset"
	"github.com/profdb/profdb/store"
	"github.com/profdb/profdb/trend"
)

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

func begin(t *testing.T, ctx context.Context, dsn string) *readback.Reader {
	t.Helper()
	r, err := readback.Open(ctx, dsn, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// TestFiguresEqualShow: on every database, each run's figures in a trend
// are the figures show prints for that result set, the runs are the ones
// the filter chooses, oldest first, and a file's, a routine's figures and
// the movers are those show and compare read.
func TestFiguresEqualShow(t *testing.T) {
	for _, dialect := range dbtest.Dialects() {
		t.Run(dialect, func(t *testing.T) {
			ctx := ctxT(t)
			dsn := dbtest.Fresh(t, dialect)
			h, err := trendtest.Export(ctx, dsn)
			if err != nil {
				t.Fatal(err)
			}
			r := begin(t, ctx, dsn)
			for _, c := range []struct {
				profiler string
				branch   string
				want     []int64
			}{
				{lightcoverage.Name, "main", h.Coverage},
				{lightcoverage.Name, "feature/x", h.CoverageFeature},
				{functiontrace.Name, "main", h.Trace},
				{resource.Name, "main", h.Resource},
				{referencecount.Name, "main", h.ReferenceCount},
			} {
				tr, err := trend.Compute(ctx, r, trend.Options{Filter: store.Filter{Profiler: c.profiler, Branch: c.branch}})
				if err != nil {
					t.Fatalf("%s on %s: %v", c.profiler, c.branch, err)
				}
				if tr.Profiler != c.profiler || len(tr.Runs) != len(c.want) {
					t.Fatalf("%s on %s: %s with %d runs, want %d", c.profiler, c.branch, tr.Profiler, len(tr.Runs), len(c.want))
				}
				for i, run := range tr.Runs {
					if run.InstID != c.want[i] {
						t.Errorf("%s on %s: run %d is result set %d, want %d", c.profiler, c.branch, i, run.InstID, c.want[i])
					}
					if run.Identity == nil || run.Identity.Branch != c.branch || len(run.Identity.Commit) != 40 {
						t.Errorf("%s: result set %d: identity %+v", c.profiler, run.InstID, run.Identity)
					}
					sameAsShow(t, ctx, r, run)
				}
				for _, s := range tr.Series {
					if len(s.Values) != len(c.want) {
						t.Errorf("%s: series %s has %d values for %d runs", c.profiler, s.Key, len(s.Values), len(c.want))
					}
				}
			}
			// One file's coverage over the runs is show's line for it.
			for _, file := range []string{"a.go", trendtest.HostileFile, "c.go"} {
				tr, err := trend.Compute(ctx, r, trend.Options{Filter: store.Filter{Profiler: lightcoverage.Name, Branch: "main"}, File: file})
				if err != nil {
					t.Fatal(err)
				}
				for _, run := range tr.Runs {
					s, err := r.Summarize(ctx, run.InstID, readback.Options{Top: 100})
					if err != nil {
						t.Fatal(err)
					}
					var want *readback.Ratio
					for _, g := range s.Coverage.Files.Items {
						if g.Name == file {
							want = &readback.Ratio{Covered: g.Covered, Total: g.Total}
						}
					}
					got := run.Item
					if got == nil || got.Present != (want != nil) || want != nil && *got.Lines != *want {
						t.Errorf("file %q in result set %d: %+v, show has %+v", file, run.InstID, got, want)
					}
				}
			}
			// One routine's times over the traces are show's.
			tr, err := trend.Compute(ctx, r, trend.Options{Filter: store.Filter{Profiler: functiontrace.Name}, Routine: "app.work"})
			if err != nil {
				t.Fatal(err)
			}
			for _, run := range tr.Runs {
				s, err := r.Summarize(ctx, run.InstID, readback.Options{Top: 100})
				if err != nil {
					t.Fatal(err)
				}
				found := false
				for _, rt := range s.Trace.ByOwn.Items {
					if rt.FullName() == "app.work" {
						found = true
						if it := run.Item; it == nil || !it.Present || *it.Own != rt.Own || *it.Calls != rt.Calls || *it.WithChild != rt.WithChild {
							t.Errorf("routine app.work in result set %d: %+v, show has %+v", run.InstID, it, rt)
						}
					}
				}
				if !found {
					t.Fatalf("show has no app.work in result set %d", run.InstID)
				}
			}
			// The movers between the first and the last run: work's own
			// time grew most (20 ms once, then 60 ms three times).
			m := tr.Movers
			if m == nil || m.A != h.Trace[0] || m.B != h.Trace[2] || len(m.Items) == 0 || m.Items[0].Name != "app.work" ||
				m.Items[0].A != 20 || m.Items[0].B != 180 || m.Unit != "ms" {
				t.Errorf("trace movers: %+v", m)
			}
			cov, err := trend.Compute(ctx, r, trend.Options{Filter: store.Filter{Profiler: lightcoverage.Name, Branch: "main"}})
			if err != nil {
				t.Fatal(err)
			}
			// a.go: 1 of 14 lines, then 6 of 14; the hostile file 7 of 8, then 2 of 8.
			if m := cov.Movers; m == nil || m.Total != 2 || m.Items[0].Name != trendtest.HostileFile || m.Items[1].Name != "a.go" ||
				m.Items[0].Delta() != -62.5 {
				t.Errorf("coverage movers: %+v", m)
			}
			// Limits: the last N, oldest first.
			last, err := trend.Compute(ctx, r, trend.Options{Filter: store.Filter{Profiler: lightcoverage.Name, Branch: "main", Last: 2}})
			if err != nil {
				t.Fatal(err)
			}
			if len(last.Runs) != 2 || last.Runs[0].InstID != h.Coverage[2] || last.Runs[1].InstID != h.Coverage[3] {
				t.Errorf("--last 2: %+v", last.Runs)
			}
		})
	}
}

// sameAsShow checks a run's figures against show's summary of it.
func sameAsShow(t *testing.T, ctx context.Context, r *readback.Reader, run trend.Run) {
	t.Helper()
	s, err := r.Summarize(ctx, run.InstID, readback.Options{})
	if err != nil {
		t.Fatal(err)
	}
	f := run.Figures
	switch {
	case s.Coverage != nil:
		if f.Lines == nil || *f.Lines != s.Coverage.Lines || f.Routines == nil || *f.Routines != s.Coverage.Routines {
			t.Errorf("result set %d: lines %v routines %v; show: %v %v", run.InstID, f.Lines, f.Routines, s.Coverage.Lines, s.Coverage.Routines)
		}
		if s.Coverage.Lines.Total == 0 || s.Coverage.Routines.Total == 0 {
			t.Errorf("result set %d: show reads no lines", run.InstID)
		}
	case s.Trace != nil:
		if f.TotalTime == nil || *f.TotalTime != s.Trace.TotalTime || f.Calls == nil || *f.Calls != s.Trace.Calls || s.Trace.TotalTime == 0 {
			t.Errorf("result set %d: time %v calls %v; show: %d %d", run.InstID, f.TotalTime, f.Calls, s.Trace.TotalTime, s.Trace.Calls)
		}
		if f.Counter != s.Instance.CounterName || f.Frequency != s.Instance.CounterFrequency.Float() || f.Counter == "" || f.Frequency == 0 {
			t.Errorf("result set %d: counter %q at %v a second; show: %q at %v", run.InstID, f.Counter, f.Frequency, s.Instance.CounterName, s.Instance.CounterFrequency)
		}
	case s.Resource != nil:
		if f.LiveCount == nil || f.LiveCount.Float() != s.Resource.LiveCount.Float() || f.LiveSize == nil || f.LiveSize.Float() != s.Resource.LiveSize.Float() ||
			s.Resource.LiveCount.Float() == 0 {
			t.Errorf("result set %d: live %v size %v; show: %v %v", run.InstID, f.LiveCount, f.LiveSize, s.Resource.LiveCount, s.Resource.LiveSize)
		}
	case s.ReferenceCount != nil:
		if f.Objects == nil || *f.Objects != s.ReferenceCount.Objects.Total || f.Alive == nil || *f.Alive != s.ReferenceCount.Alive.Total ||
			s.ReferenceCount.Objects.Total == 0 {
			t.Errorf("result set %d: objects %v alive %v; show: %d %d", run.InstID, f.Objects, f.Alive, s.ReferenceCount.Objects.Total, s.ReferenceCount.Alive.Total)
		}
	default:
		t.Errorf("result set %d: show has no figures", run.InstID)
	}
}

// TestOtherCounters: traces measured with another counter, or at another
// frequency, are not set in one trend (the counters come with the
// listing, not from each run's description).
func TestOtherCounters(t *testing.T) {
	ctx := ctxT(t)
	for _, c := range []resultset.Counter{{Name: "CPU", Frequency: 1000}, {Name: "Time", Frequency: 2000}} {
		dsn := dbtest.Fresh(t, "sqlite")
		x, err := exporter.Open(ctx, dsn, store.Options{}, exporter.Options{})
		if err != nil {
			t.Fatal(err)
		}
		for i := range 2 {
			b, err := trendtest.Trace(i)
			if err != nil {
				t.Fatal(err)
			}
			if i == 1 {
				b.SetCounter(&c)
			}
			_, err = b.Export(ctx, x, fmt.Sprintf("trace %d", i))
			b.Close()
			if err != nil {
				t.Fatal(err)
			}
		}
		x.Close()
		r := begin(t, ctx, dsn)
		_, err = trend.Compute(ctx, r, trend.Options{Filter: store.Filter{Profiler: functiontrace.Name}})
		if !errors.Is(err, trend.ErrMixed) {
			t.Errorf("a trace of counter %s at %v beside one of Time at 1000: %v", c.Name, c.Frequency, err)
		}
	}
}

// TestRefused: a filter that matches nothing, or result sets of several
// profilers, is an error that says so; a file of a trace is refused.
func TestRefused(t *testing.T) {
	ctx := ctxT(t)
	dsn := dbtest.Fresh(t, "sqlite")
	if _, err := trendtest.Export(ctx, dsn); err != nil {
		t.Fatal(err)
	}
	r := begin(t, ctx, dsn)
	_, err := trend.Compute(ctx, r, trend.Options{Filter: store.Filter{Branch: "main"}})
	var mixed *optionerr.Error
	if !errors.Is(err, trend.ErrMixed) || !errors.As(err, &mixed) || !mixed.Names("Filter.Profiler") ||
		!strings.HasSuffix(err.Error(), "): name one with trend.Options.Filter.Profiler") {
		t.Errorf("several profilers: %v; want ErrMixed naming trend.Options.Filter.Profiler", err)
	}
	_, err = trend.Compute(ctx, r, trend.Options{Filter: store.Filter{Branch: "nope"}})
	if !errors.Is(err, trend.ErrNoMatch) || err.Error() != `trend: no result set matches branch "nope"` {
		t.Errorf("nothing: %v", err)
	}
	_, err = trend.Compute(ctx, r, trend.Options{Filter: store.Filter{Profiler: functiontrace.Name}, File: "a.go"})
	var noFile *optionerr.Error
	if !errors.Is(err, trend.ErrNoItemFigures) || !errors.As(err, &noFile) || !noFile.Names("File") ||
		err.Error() != "trend: trend.Options.File: function-trace result sets have no source file figures (light-coverage ones do)" {
		t.Errorf("a file of a trace: %v; want ErrNoItemFigures naming trend.Options.File", err)
	}
	_, err = trend.Compute(ctx, r, trend.Options{Filter: store.Filter{Profiler: resource.Name}, Routine: "f"})
	if !errors.Is(err, trend.ErrNoItemFigures) || !errors.As(err, &noFile) || !noFile.Names("Routine") {
		t.Errorf("a routine of a resource result set: %v; want ErrNoItemFigures naming trend.Options.Routine", err)
	}
	// A file and a routine: the options' error, naming the fields (the
	// command line words it with its flags), before anything is read.
	both := trend.Options{Filter: store.Filter{Profiler: lightcoverage.Name}, File: "a.go", Routine: "f"}
	var oe *optionerr.Error
	if err := both.Check(); !errors.Is(err, trend.ErrUsage) || !errors.As(err, &oe) || !oe.Names("File") || !oe.Names("Routine") {
		t.Errorf("Check of a file and a routine: %v; want an optionerr.Error naming File and Routine", err)
	}
	_, err = trend.Compute(ctx, r, both)
	if !errors.Is(err, trend.ErrUsage) || err.Error() != "trend: trend.Options.File and trend.Options.Routine: give one of them" {
		t.Errorf("Compute of a file and a routine: %v", err)
	}
	for _, one := range []trend.Options{{File: "a.go"}, {Routine: "f"}, {}} {
		if err := one.Check(); err != nil {
			t.Errorf("Check(%+v): %v", one, err)
		}
	}
}

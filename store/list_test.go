package store_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	_ "github.com/profdb/profdb/dialects/mysql"
	_ "github.com/profdb/profdb/dialects/postgres"
	_ "github.com/profdb/profdb/dialects/sqlite"
	"github.com/profdb/profdb/exporter"
	"github.com/profdb/profdb/internal/dbtest"
	"github.com/profdb/profdb/profilers"
	"github.com/profdb/profdb/profilers/functiontrace"
	"github.com/profdb/profdb/profilers/lightcoverage"
	"github.com/profdb/profdb/resultset"
	"github.com/profdb/profdb/store"
)

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

func rows(rs ...[]any) func(func([]any, error) bool) {
	return func(yield func([]any, error) bool) {
		for _, r := range rs {
			if !yield(r, nil) {
				return
			}
		}
	}
}

// fixtures exports a function trace with a counter and a light coverage
// result set, and returns the store and their INST_IDs.
func fixtures(t *testing.T, dialect string) (*store.DB, int64, int64) {
	t.Helper()
	ctx := ctxT(t)
	x, err := exporter.Open(ctx, dbtest.Fresh(t, dialect), store.Options{}, exporter.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { x.Close() })
	trace := &resultset.ResultSet{
		Header: resultset.Header{Profiler: functiontrace.Name, Caption: "trace",
			Counter: &resultset.Counter{Name: "Elapsed Time", Description: "wall clock", Frequency: int64(1000000)}},
		Tables: []resultset.TableRows{
			{Name: functiontrace.Threads, Columns: []string{"ID", "PARENT_ID", "REC_ID", "COL_WIN32THREADID"},
				Rows: rows([]any{int64(1), int64(-1), int64(1), int64(7)})},
			{Name: functiontrace.Routines, Columns: []string{"ID", "PARENT_ID", "REC_ID", "COL_CLASS_NAME"},
				Rows: rows([]any{int64(1), int64(-1), int64(1), "A"}, []any{int64(2), int64(-1), int64(2), "B"})},
		},
	}
	cov := &resultset.ResultSet{
		Header: resultset.Header{Profiler: lightcoverage.Name, Caption: "coverage"},
		Tables: []resultset.TableRows{
			{Name: lightcoverage.SourceFilesData, Columns: []string{"ID", "PARENT_ID", "REC_ID", "COL_FILE_NAME"},
				Rows: rows([]any{int64(1), int64(-1), int64(1), "a.go"})},
		},
	}
	a, err := resultset.Export(ctx, x, trace)
	if err != nil {
		t.Fatal(err)
	}
	b, err := resultset.Export(ctx, x, cov)
	if err != nil {
		t.Fatal(err)
	}
	return x.DB(), a.InstID, b.InstID
}

// A catalogue lists one result set exactly as DB.List lists it among all,
// counter included; an INST_ID that is not there is an error naming it.
func TestCatalogListOne(t *testing.T) {
	for _, dialect := range dbtest.Dialects("sqlserver") {
		t.Run(dialect, func(t *testing.T) {
			ctx := ctxT(t)
			db, trace, cov := fixtures(t, dialect)
			all, err := db.List(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if len(all) != 2 || all[0].InstID != trace || all[1].InstID != cov {
				t.Fatalf("List = %+v, want INST_IDs %d and %d", all, trace, cov)
			}
			if ids, err := db.InstIDs(ctx); err != nil || !slices.Equal(ids, []int64{trace, cov}) {
				t.Errorf("InstIDs = %v, %v; want %d and %d, as List", ids, err, trace, cov)
			}
			snap, err := db.BeginSnapshot(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer snap.Close()
			cat, err := db.Catalog(ctx, snap.Querier())
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range all {
				one, err := cat.List(ctx, want.InstID)
				if err != nil {
					t.Fatal(err)
				}
				if len(one) != 1 || !reflect.DeepEqual(one[0], want) {
					t.Errorf("List(%d) = %+v, want %+v", want.InstID, one, want)
				}
			}
			if all[0].Counter == nil || all[0].Counter.Name != "Elapsed Time" || fmt.Sprint(all[0].Counter.Frequency) != "1000000" {
				t.Errorf("counter of the trace = %+v", all[0].Counter)
			}
			if all[1].Counter != nil {
				t.Errorf("counter of the coverage = %+v, want none", all[1].Counter)
			}
			if all[0].Rows != 3 || all[0].Tables[functiontrace.Routines] != 2 {
				t.Errorf("rows of the trace = %d %v, want 3 with 2 routines", all[0].Rows, all[0].Tables)
			}
			_, err = cat.List(ctx, trace, cov+100)
			if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("no result set %d in INSTANCES", cov+100)) {
				t.Errorf("List of a missing INST_ID: %v", err)
			}
		})
	}
}

// A result set whose RELATIONS rows name no registered profiler has one
// explanation, which List, Read and Verify's caller all see alike.
func TestUnknownProfiler(t *testing.T) {
	ctx := ctxT(t)
	db, trace, cov := fixtures(t, "sqlite")
	q := db.SQL()
	if _, err := q.ExecContext(ctx, "UPDATE "+profilers.RelationsTable+" SET COL_CHILD_TABLE = 'NOT_A_TABLE_' || COL_CHILD_TABLE WHERE INST_ID = ?", trace); err != nil {
		t.Fatal(err)
	}
	if _, err := q.ExecContext(ctx, "DELETE FROM "+profilers.RelationsTable+" WHERE INST_ID = ?", cov); err != nil {
		t.Fatal(err)
	}
	list, err := db.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 || list[0].Profiler != "" || list[1].Profiler != "" {
		t.Fatalf("List = %+v, want both profilers unknown", list)
	}
	for _, c := range []struct {
		inst int64
		want string
	}{
		{trace, fmt.Sprintf("result set %d: RELATIONS names tables of a profiler this build does not know (NOT_A_TABLE_", trace)},
		{cov, fmt.Sprintf("result set %d has no RELATIONS rows: its profiler is unknown", cov)},
	} {
		l := list[0]
		if c.inst == cov {
			l = list[1]
		}
		if err := l.ProfilerErr(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ProfilerErr of %d = %v, want %q", c.inst, err, c.want)
		}
		if _, err := db.Read(ctx, c.inst); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Read of %d: %v, want %q", c.inst, err, c.want)
		}
	}
	def, err := profilers.Lookup(functiontrace.Name)
	if err != nil {
		t.Fatal(err)
	}
	more := fmt.Sprintf("and %d more)", len(def.Tables)-2)
	if err := list[0].ProfilerErr(); err == nil || !strings.Contains(err.Error(), more) {
		t.Errorf("%d tables named, two shown: %v, want %q", len(def.Tables), err, more)
	}
}

// Select names result sets as Pick does with the whole list, and ListOf
// lists some of them as List lists them among all.
func TestSelectAndListOf(t *testing.T) {
	for _, dialect := range dbtest.Dialects("sqlserver") {
		t.Run(dialect, func(t *testing.T) {
			ctx := ctxT(t)
			db, trace, cov := fixtures(t, dialect)
			all, err := db.List(ctx)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range []struct {
				sel  store.Selection
				want []int64
			}{
				{store.Selection{IDs: []int64{cov}}, []int64{cov}},
				{store.Selection{IDs: []int64{cov, trace, cov}}, []int64{trace, cov}},
				{store.Selection{Ranges: []store.Range{{From: trace, To: cov + 10}}}, []int64{trace, cov}},
				{store.Selection{IDs: []int64{trace}, Ranges: []store.Range{{From: cov, To: cov}}}, []int64{trace, cov}},
				{store.Selection{ExportedBefore: time.Now().Add(time.Hour)}, []int64{trace, cov}},
				{store.Selection{ExportedBefore: time.Now().Add(-time.Hour)}, nil},
			} {
				got, undated, err := db.Named(ctx, c.sel)
				if err != nil || !slices.Equal(got, c.want) || undated != 0 {
					t.Errorf("Named(%+v) = %v, %d undated, %v; want %v", c.sel, got, undated, err, c.want)
				}
				if want, _, err := c.sel.Pick(all); err != nil || !slices.Equal(got, want) {
					t.Errorf("Select(%+v) = %v, Pick of List = %v, %v", c.sel, got, want, err)
				}
			}
			var missing *store.NoResultSetError
			if _, _, err := db.Named(ctx, store.Selection{IDs: []int64{trace, cov + 100}}); !errors.As(err, &missing) || missing.InstID != cov+100 {
				t.Errorf("Select of a missing INST_ID: %v", err)
			}
			if _, _, err := db.Named(ctx, store.Selection{Ranges: []store.Range{{From: cov + 1, To: cov + 9}}}); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("no result set in %d-%d", cov+1, cov+9)) {
				t.Errorf("Select of an empty range: %v", err)
			}
			some, err := db.ListOf(ctx, []int64{trace, cov})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(some, all) {
				t.Errorf("ListOf(%d, %d) = %+v, want %+v as List", trace, cov, some, all)
			}
			if _, err := db.ListOf(ctx, []int64{cov + 100}); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("no result set %d", cov+100)) {
				t.Errorf("ListOf of a missing INST_ID: %v", err)
			}
		})
	}
}

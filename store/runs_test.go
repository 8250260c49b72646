package store_test

import (
	"reflect"
	"testing"

	"github.com/profdb/profdb/exporter"
	"github.com/profdb/profdb/internal/dbtest"
	"github.com/profdb/profdb/profilers"
	"github.com/profdb/profdb/profilers/lightcoverage"
	"github.com/profdb/profdb/resultset"
	"github.com/profdb/profdb/store"
)

// TestRuns: Catalog.Runs reads back, by INST_ID, the identity export
// recorded — commit, branch, dirty flag, CI, build, labels and what a
// merge combined (ascending) — of the result sets asked for only; a result
// set with nothing recorded, or deleted, has no entry; a database without
// profdb's tables (one AQTime wrote) has none, and is no error.
func TestRuns(t *testing.T) {
	for _, dialect := range dbtest.Dialects() {
		t.Run(dialect, func(t *testing.T) {
			ctx := ctxT(t)
			x := exporterOn(t, dialect)
			dirty := true
			full := resultset.Run{Commit: "0123456789abcdef0123456789abcdef01234567", Branch: "main", Dirty: &dirty, CI: "github-actions",
				BuildID: "7", BuildURL: "https://ci.example/7", Labels: map[string]string{"suite": "unit", "os": "linux"}}
			var ids []int64
			export := func(run *resultset.Run) {
				t.Helper()
				set := &resultset.ResultSet{Header: resultset.Header{Profiler: lightcoverage.Name, Caption: "run", Run: run}}
				res, err := resultset.Export(ctx, x, set)
				if err != nil {
					t.Fatal(err)
				}
				ids = append(ids, res.InstID)
			}
			export(&full)                                                                    // 0
			export(nil)                                                                      // 1: nothing recorded
			export(&resultset.Run{Labels: map[string]string{"k": "v"}})                      // 2: labels only
			export(&resultset.Run{Branch: "b", MergedFrom: []int64{ids[2], ids[0], ids[2]}}) // 3: a merge
			export(&full)                                                                    // 4: deleted below
			export(&resultset.Run{Branch: "not asked for"})                                  // 5
			if _, err := x.DB().DeleteAll(ctx, ids[4:5]); err != nil {
				t.Fatal(err)
			}

			db := x.DB()
			c, err := db.Catalog(ctx, db.SQL())
			if err != nil {
				t.Fatal(err)
			}
			got, err := c.Runs(ctx, ids[:5]...)
			if err != nil {
				t.Fatal(err)
			}
			want := map[int64]*resultset.Run{
				ids[0]: &full,
				ids[2]: {Labels: map[string]string{"k": "v"}},
				ids[3]: {Branch: "b", MergedFrom: []int64{ids[0], ids[2], ids[2]}},
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("Runs:\n got  %+v\n want %+v", runsText(got), runsText(want))
			}
			if got, err := c.Runs(ctx); err != nil || got != nil {
				t.Errorf("Runs of none: %v, %v", got, err)
			}

			// List gives each result set the identity Select gives it.
			listed, err := db.List(ctx)
			if err != nil {
				t.Fatal(err)
			}
			selected, err := db.Select(ctx, store.Filter{})
			if err != nil {
				t.Fatal(err)
			}
			listRuns, selectRuns := map[int64]*resultset.Run{}, map[int64]*resultset.Run{}
			for _, l := range listed {
				if l.Run != nil {
					listRuns[l.InstID] = l.Run
				}
			}
			for _, l := range selected {
				if l.Run != nil {
					selectRuns[l.InstID] = l.Run
				}
			}
			if len(listRuns) != 4 || !reflect.DeepEqual(listRuns, selectRuns) || !reflect.DeepEqual(listRuns[ids[0]], &full) {
				t.Errorf("List's runs:\n got  %+v\n want %+v as Select's", runsText(listRuns), runsText(selectRuns))
			}

			// One AQTime wrote: none of profdb's own tables.
			for _, tb := range profilers.Own() {
				if _, err := db.SQL().ExecContext(ctx, "DROP TABLE "+db.Dialect().Quote(db.Dialect().StoredName(tb.Name))); err != nil {
					t.Fatal(err)
				}
			}
			if c, err = db.Catalog(ctx, db.SQL()); err != nil {
				t.Fatal(err)
			}
			if got, err := c.Runs(ctx, ids[0]); err != nil || len(got) != 0 {
				t.Errorf("Runs without profdb's tables: %+v, %v", runsText(got), err)
			}
		})
	}
}

func runsText(m map[int64]*resultset.Run) map[int64]resultset.Run {
	out := map[int64]resultset.Run{}
	for k, v := range m {
		out[k] = *v
	}
	return out
}

// exporterOn opens an exporter on a fresh database of the dialect, closed
// when the test ends.
func exporterOn(t *testing.T, dialect string) *exporter.Exporter {
	t.Helper()
	x, err := exporter.Open(ctxT(t), dbtest.Fresh(t, dialect), store.Options{}, exporter.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { x.Close() })
	return x
}

package store_test

import (
	"slices"
	"testing"

	"github.com/profdb/profdb/internal/dbtest"
	"github.com/profdb/profdb/profilers"
	"github.com/profdb/profdb/profilers/functiontrace"
	"github.com/profdb/profdb/profilers/lightcoverage"
	"github.com/profdb/profdb/resultset"
	"github.com/profdb/profdb/store"
)

// TestSelectLast: a count asks for the newest rows alone
// (dialects.RowLimiter), and still finds the newest of a profiler when
// ledger rows that name no profiler (an earlier profdb's) come before
// them: then every row is read and RELATIONS tells the profilers.
func TestSelectLast(t *testing.T) {
	for _, dialect := range dbtest.Dialects() {
		t.Run(dialect, func(t *testing.T) {
			ctx := ctxT(t)
			x := exporterOn(t, dialect)
			var ids []int64
			for _, p := range []string{functiontrace.Name, lightcoverage.Name, lightcoverage.Name, lightcoverage.Name} {
				res, err := resultset.Export(ctx, x, &resultset.ResultSet{Header: resultset.Header{Profiler: p, Caption: p, Run: &resultset.Run{Branch: "main"}}})
				if err != nil {
					t.Fatal(err)
				}
				ids = append(ids, res.InstID)
			}
			db := x.DB()
			check := func(what string, f store.Filter, want ...int64) {
				t.Helper()
				checkSelect(t, db, what, f, want...)
			}
			check("last 2", store.Filter{Last: 2}, ids[2], ids[3])
			check("last 1 of the trace", store.Filter{Profiler: functiontrace.Name, Last: 1}, ids[0])
			q := func(name string) string { return db.Dialect().Quote(db.Dialect().StoredName(name)) }
			if _, err := db.SQL().ExecContext(ctx, "UPDATE "+q(profilers.ResultSetsTable)+" SET "+q(profilers.ColProfiler)+" = NULL"); err != nil {
				t.Fatal(err)
			}
			check("none recorded: last 1 of the trace", store.Filter{Profiler: functiontrace.Name, Last: 1}, ids[0])
			check("none recorded: last 2 of coverage", store.Filter{Profiler: lightcoverage.Name, Last: 2}, ids[2], ids[3])
			check("none recorded: last 3", store.Filter{Last: 3}, ids[1], ids[2], ids[3])
		})
	}
}

// checkSelect fails t unless db.Select(f) chooses the result sets want,
// in that order.
func checkSelect(t *testing.T, db *store.DB, what string, f store.Filter, want ...int64) {
	t.Helper()
	got, err := db.Select(ctxT(t), f)
	var gotIDs []int64
	for _, l := range got {
		gotIDs = append(gotIDs, l.InstID)
	}
	if err != nil || !slices.Equal(gotIDs, want) {
		t.Errorf("%s: %v, %v; want %v", what, gotIDs, err, want)
	}
}

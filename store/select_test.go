package store_test

import (
	"errors"
	"slices"
	"testing"

	_ "github.com/profdb/profdb/dialects/sqlserver"
	"github.com/profdb/profdb/internal/dbtest"
	"github.com/profdb/profdb/internal/runid"
	"github.com/profdb/profdb/profilers"
	"github.com/profdb/profdb/profilers/functiontrace"
	"github.com/profdb/profdb/profilers/lightcoverage"
	"github.com/profdb/profdb/resultset"
	"github.com/profdb/profdb/store"
)

// TestSelect: result sets are chosen by the identity export recorded —
// profiler, branch, commit prefix, labels, a bound and a count — oldest
// first, with that identity read back.
func TestSelect(t *testing.T) {
	for _, dialect := range dbtest.Dialects() {
		t.Run(dialect, func(t *testing.T) {
			ctx := ctxT(t)
			x := exporterOn(t, dialect)
			clean, dirty := false, true
			runs := []struct {
				profiler string
				run      resultset.Run
			}{
				{lightcoverage.Name, resultset.Run{Commit: "AAAA1111bbbb", Branch: "main", Dirty: &clean, CI: "github-actions", BuildID: "7", BuildURL: "https://ci.example/7", Labels: map[string]string{"suite": "unit"}}},
				{functiontrace.Name, resultset.Run{Commit: "aaaa1112cccc", Branch: "main"}},
				{lightcoverage.Name, resultset.Run{Commit: "bbbb3333dddd", Branch: "feature/x", Dirty: &dirty, Labels: map[string]string{"suite": "unit", "os": "linux"}}},
				{lightcoverage.Name, resultset.Run{Commit: "aaaa1114eeee", Branch: "main", Labels: map[string]string{"suite": "e2e"}}},
			}
			var ids []int64
			for i, r := range runs {
				set := &resultset.ResultSet{Header: resultset.Header{Profiler: r.profiler, Caption: "run", Run: &runs[i].run}}
				res, err := resultset.Export(ctx, x, set)
				if err != nil {
					t.Fatal(err)
				}
				ids = append(ids, res.InstID)
			}
			for _, c := range []struct {
				name string
				f    store.Filter
				want []int
			}{
				{"all", store.Filter{}, []int{0, 1, 2, 3}},
				{"profiler", store.Filter{Profiler: lightcoverage.Name}, []int{0, 2, 3}},
				{"branch", store.Filter{Branch: "main"}, []int{0, 1, 3}},
				{"commit prefix, any case", store.Filter{Commit: "AAAA111"}, []int{0, 1, 3}},
				{"commit prefix of one", store.Filter{Commit: "aaaa1114"}, []int{3}},
				{"label", store.Filter{Labels: map[string]string{"suite": "unit"}}, []int{0, 2}},
				{"two labels", store.Filter{Labels: map[string]string{"suite": "unit", "os": "linux"}}, []int{2}},
				{"last", store.Filter{Profiler: lightcoverage.Name, Last: 2}, []int{2, 3}},
				{"before", store.Filter{Branch: "main", Before: ids[3]}, []int{0, 1}},
				{"inst", store.Filter{InstID: ids[2]}, []int{2}},
				{"inst of another profiler", store.Filter{InstID: ids[1], Profiler: lightcoverage.Name}, nil},
				{"last of a profiler", store.Filter{Profiler: functiontrace.Name, Last: 1}, []int{1}},
				{"last of a branch and profiler", store.Filter{Profiler: lightcoverage.Name, Branch: "main", Last: 1}, []int{3}},
				{"nothing", store.Filter{Branch: "main", Labels: map[string]string{"os": "linux"}}, nil},
			} {
				got, err := x.DB().Select(ctx, c.f)
				if err != nil {
					t.Fatalf("%s: %v", c.name, err)
				}
				var gotIDs, wantIDs []int64
				for _, l := range got {
					gotIDs = append(gotIDs, l.InstID)
				}
				for _, i := range c.want {
					wantIDs = append(wantIDs, ids[i])
				}
				if len(gotIDs) != len(wantIDs) {
					t.Errorf("%s: %v, want %v", c.name, gotIDs, wantIDs)
					continue
				}
				for i := range gotIDs {
					if gotIDs[i] != wantIDs[i] {
						t.Errorf("%s: %v, want %v", c.name, gotIDs, wantIDs)
						break
					}
				}
			}
			// KeepLast keeps the newest n of those a filter chooses and
			// selects the rest, oldest first.
			for _, c := range []struct {
				f        store.Filter
				n        int
				want     []int
				wantKept int
			}{
				{store.Filter{Branch: "main"}, 1, []int{0, 1}, 1},
				{store.Filter{Branch: "main", Profiler: lightcoverage.Name}, 1, []int{0}, 1},
				{store.Filter{Profiler: lightcoverage.Name, Last: 1}, 2, []int{0}, 2},
				{store.Filter{}, 3, []int{0}, 3},
				{store.Filter{}, 9, nil, 4},
			} {
				got, kept, err := x.DB().KeepLast(ctx, c.f, c.n)
				var want []int64
				for _, i := range c.want {
					want = append(want, ids[i])
				}
				if err != nil || !slices.Equal(got, want) || kept != c.wantKept {
					t.Errorf("KeepLast(%+v, %d) = %v, %d, %v; want %v, %d", c.f, c.n, got, kept, err, want, c.wantKept)
				}
			}
			if _, _, err := x.DB().KeepLast(ctx, store.Filter{}, 0); err == nil {
				t.Error("KeepLast of 0: no error; it would delete them all")
			}
			// A commit prefix is runid.ParseCommitPrefix's: one of 4
			// digits is an error, not a match of whatever begins so.
			if got, err := x.DB().Select(ctx, store.Filter{Commit: "aaaa"}); !errors.Is(err, runid.ErrCommitPrefix) {
				t.Errorf("Select of commit prefix aaaa: %v, %v; want an error wrapping runid.ErrCommitPrefix", got, err)
			}
			all, err := x.DB().Select(ctx, store.Filter{})
			if err != nil {
				t.Fatal(err)
			}
			first := all[0]
			if first.Profiler != lightcoverage.Name || first.Run == nil || first.Run.Commit != "aaaa1111bbbb" || first.Run.Branch != "main" ||
				first.Run.Dirty == nil || *first.Run.Dirty || first.Run.CI != "github-actions" || first.Run.BuildID != "7" ||
				first.Run.BuildURL != "https://ci.example/7" || first.Run.Labels["suite"] != "unit" || len(first.Run.Labels) != 1 {
				t.Errorf("identity read back: %+v %+v", first, first.Run)
			}
			if d := all[2].Run.Dirty; d == nil || !*d {
				t.Errorf("dirty tree read back as %v", d)
			}
			if all[1].Run.Dirty != nil || all[1].Run.Labels != nil {
				t.Errorf("unknown dirtiness or labels read back as %+v", all[1].Run)
			}

			// Rows that name no profiler (an earlier profdb's): RELATIONS
			// tells it.
			db := x.DB()
			q := func(name string) string { return db.Dialect().Quote(db.Dialect().StoredName(name)) }
			if _, err := db.SQL().ExecContext(ctx, "UPDATE "+q(profilers.ResultSetsTable)+" SET "+q(profilers.ColProfiler)+" = NULL"); err != nil {
				t.Fatal(err)
			}
			for f, want := range map[string][]int64{"": ids, lightcoverage.Name: {ids[0], ids[2], ids[3]}, functiontrace.Name: {ids[1]}} {
				got, err := db.Select(ctx, store.Filter{Profiler: f})
				var gotIDs []int64
				for _, l := range got {
					gotIDs = append(gotIDs, l.InstID)
					of := lightcoverage.Name
					if l.InstID == ids[1] {
						of = functiontrace.Name
					}
					if l.Profiler != of {
						t.Errorf("profiler %q: INST_ID %d is of %q, want %q", f, l.InstID, l.Profiler, of)
					}
				}
				if err != nil || !slices.Equal(gotIDs, want) {
					t.Errorf("profiler %q, none recorded: %v, %v; want %v", f, gotIDs, err, want)
				}
			}
		})
	}
}

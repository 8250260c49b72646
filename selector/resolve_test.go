package selector_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	_ "github.com/profdb/profdb/dialects/mysql"
	_ "github.com/profdb/profdb/dialects/postgres"
	_ "github.com/profdb/profdb/dialects/sqlite"
	_ "github.com/profdb/profdb/dialects/sqlserver"
	"github.com/profdb/profdb/exporter"
	"github.com/profdb/profdb/internal/dbtest"
	"github.com/profdb/profdb/internal/gittest"
	"github.com/profdb/profdb/profilers/functiontrace"
	"github.com/profdb/profdb/profilers/lightcoverage"
	"github.com/profdb/profdb/resultset"
	"github.com/profdb/profdb/selector"
	"github.com/profdb/profdb/store"
)

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// run is a result set to export: its profiler and identity.
type run struct {
	profiler string
	run      resultset.Run
}

// exportRuns exports an empty result set per run into a fresh database of
// dialect and returns the exporter (its DB) and the INST_IDs.
func exportRuns(t *testing.T, dialect string, runs []run) (*store.DB, []int64) {
	t.Helper()
	ctx := ctxT(t)
	x, err := exporter.Open(ctx, dbtest.Fresh(t, dialect), store.Options{}, exporter.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { x.Close() })
	var ids []int64
	for i := range runs {
		set := &resultset.ResultSet{Header: resultset.Header{Profiler: runs[i].profiler, Caption: "run", Run: &runs[i].run}}
		res, err := resultset.Export(ctx, x, set)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, res.InstID)
	}
	return x.DB(), ids
}

const (
	c1  = "1111111aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	c2  = "2222222bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
	c2b = "2222222ccccccccccccccccccccccccccccccccc"
)

// TestResolve: every selector form, ~N, and the rules of a second result
// set, on every database; a selector matching nothing says what it
// looked for, and an ambiguous commit prefix names the commits.
func TestResolve(t *testing.T) {
	lc, ft := lightcoverage.Name, functiontrace.Name
	unit, e2e := map[string]string{"suite": "unit"}, map[string]string{"suite": "e2e"}
	runs := []run{
		{lc, resultset.Run{Commit: c1, Branch: "main", Labels: unit}},
		{ft, resultset.Run{Commit: c1, Branch: "main"}},
		{lc, resultset.Run{Commit: c2, Branch: "feature/x", Labels: e2e}},
		{lc, resultset.Run{Commit: c2b, Branch: "main", Labels: unit}},
		{ft, resultset.Run{Commit: c2b, Branch: "main"}},
	}
	for _, dialect := range dbtest.Dialects() {
		t.Run(dialect, func(t *testing.T) {
			ctx := ctxT(t)
			db, ids := exportRuns(t, dialect, runs)
			r := &selector.Resolver{DB: db}
			itoa := func(i int) string { return strconv.FormatInt(ids[i], 10) }
			for _, c := range []struct {
				sel  string
				want int
			}{
				{"latest", 4}, {"latest~1", 3}, {"latest~4", 0},
				{"branch:main", 4}, {"branch:main~1", 3}, {"branch:main~3", 0}, {"branch:feature/x", 2},
				{"commit:1111111", 1}, {"commit:1111111~1", 0}, {"commit:2222222b", 2}, {"commit:2222222C", 4},
				{"label:suite=unit", 3}, {"label:suite=unit~1", 0}, {"label:suite=e2e", 2},
				{itoa(3), 3}, {itoa(3) + "~1", 2}, {itoa(3) + "~3", 0},
			} {
				got := resolve(t, ctx, r, c.sel, nil)
				if got.InstID != ids[c.want] {
					t.Errorf("%s: INST_ID %d, want %d", c.sel, got.InstID, ids[c.want])
				}
			}
			// A second result set: of the first one's profiler, the first
			// counted among the candidates, so that ~N means what it means
			// for the first; a selector without ~N passes over the first
			// when it is the newest candidate; one with ~N that lands on the
			// first is ErrFirst; a plain INST_ID is taken as given. The
			// light-coverage result sets, newest first: 3, 2, 0.
			first := resolve(t, ctx, r, itoa(3), nil) // only its INST_ID: Second looks up its profiler
			older := resolve(t, ctx, r, "branch:feature/x", nil)
			trace := resolve(t, ctx, r, "latest", nil)
			for _, c := range []struct {
				sel   string
				first *store.Listing
				want  int // -1: NotFoundError, -2: ErrFirst
			}{
				{"latest", &first, 2}, {"latest~1", &first, 2}, {"latest~2", &first, 0}, {"latest~3", &first, -1}, {"latest~0", &first, -2},
				{"branch:main", &first, 0}, {"branch:main~1", &first, 0}, {"branch:main~0", &first, -2}, {"branch:main~2", &first, -1},
				{"label:suite=unit", &first, 0}, {"label:suite=unit~1", &first, 0},
				{"commit:2222222c", &first, -1}, {"commit:2222222c~0", &first, -2},
				{itoa(4), &first, 4}, {itoa(3) + "~0", &first, -2}, {itoa(4) + "~1", &first, -2}, {itoa(4) + "~2", &first, 2},
				{"latest", &trace, 1}, {"latest~1", &trace, 1}, {"latest~0", &trace, -2},
				// A first that is not the newest: no ~N takes the newest.
				{"latest", &older, 3}, {"latest~1", &older, -2}, {"latest~2", &older, 0},
			} {
				if c.want < 0 {
					_, err := secondErr(ctx, r, c.sel, *c.first)
					var nf *selector.NotFoundError
					if c.want == -1 && !errors.As(err, &nf) {
						t.Errorf("second %s beside %d: %v, want NotFoundError", c.sel, c.first.InstID, err)
					}
					want := fmt.Sprintf("%q: names the first result set itself, INST_ID %d", c.sel, c.first.InstID)
					if c.want == -2 && (!errors.Is(err, selector.ErrFirst) || !strings.Contains(err.Error(), want)) {
						t.Errorf("second %s beside %d: %v, want ErrFirst saying %s", c.sel, c.first.InstID, err, want)
					}
					continue
				}
				got := resolve(t, ctx, r, c.sel, c.first)
				if got.InstID != ids[c.want] {
					t.Errorf("second %s beside %d: INST_ID %d, want %d", c.sel, c.first.InstID, got.InstID, ids[c.want])
				}
			}
			// What matches nothing says what it looked for.
			for _, c := range []struct {
				sel   string
				first *store.Listing
				want  string
			}{
				{"branch:nope", nil, `"branch:nope": no result set on branch nope`},
				{"latest~5", nil, `"latest~5": no result set (newest first, skipping 5; 5 match)`},
				{"label:os=linux", nil, "no result set labelled os=linux"},
				{"commit:9999999", nil, "no result set at a commit beginning 9999999"},
				{"branch:main~2", &first, "no result set of profiler light-coverage on branch main (newest first, skipping 2; 2 match)"},
				{"commit:2222222c", &first, "no result set of profiler light-coverage at a commit beginning 2222222c other than INST_ID " + itoa(3)},
				{"branch:\x1b[31mred", nil, `no result set on branch "\x1b[31mred"`},
			} {
				var err error
				if c.first != nil {
					_, err = secondErr(ctx, r, c.sel, *c.first)
				} else {
					_, err = resolveErr(ctx, r, c.sel)
				}
				var nf *selector.NotFoundError
				if !errors.As(err, &nf) || !strings.Contains(err.Error(), c.want) {
					t.Errorf("%s: %v, want a NotFoundError saying %s", c.sel, err, c.want)
				}
				if err != nil && strings.ContainsRune(err.Error(), 0x1b) {
					t.Errorf("%s: the error holds a raw escape: %q", c.sel, err)
				}
			}
			_, err := resolveErr(ctx, r, "commit:2222222")
			var amb *selector.AmbiguousError
			if !errors.As(err, &amb) || len(amb.Commits) != 2 || !strings.Contains(err.Error(), c2) || !strings.Contains(err.Error(), c2b) {
				t.Errorf("commit:2222222: %v, want an AmbiguousError naming %s and %s", err, c2, c2b)
			}
		})
	}
}

func resolveErr(ctx context.Context, r *selector.Resolver, text string) (store.Listing, error) {
	s, err := selector.Parse(text)
	if err != nil {
		return store.Listing{}, err
	}
	return r.Resolve(ctx, s)
}

func secondErr(ctx context.Context, r *selector.Resolver, text string, first store.Listing) (store.Listing, error) {
	s, err := selector.Parse(text)
	if err != nil {
		return store.Listing{}, err
	}
	return r.Second(ctx, s, first)
}

// resolve resolves text (beside first when not nil) and fails the test on
// an error.
func resolve(t *testing.T, ctx context.Context, r *selector.Resolver, text string, first *store.Listing) store.Listing {
	t.Helper()
	var l store.Listing
	var err error
	if first != nil {
		l, err = secondErr(ctx, r, text, *first)
	} else {
		l, err = resolveErr(ctx, r, text)
	}
	if err != nil {
		t.Fatalf("%s: %v", text, err)
	}
	return l
}

// gitRepo makes a git repository on branch main in a temporary folder.
func gitRepo(t *testing.T) (string, gittest.Git) { return gittest.Repo(t, "main") }

// commit makes a commit changing a file and returns its object name.
func commit(t *testing.T, dir string, git gittest.Git, msg string) string {
	t.Helper()
	return gittest.Commit(t, dir, git, "f.txt", msg, msg)
}

// TestAncestor: ancestor:REV on a real git history, result sets exported
// for some commits only: the newest result set of the nearest ancestor
// that has one (REV included), ancestor~N:REV going further back, a second
// result set of the first one's profiler only, the first counted among
// the candidates; a revision git does not know, or no repository, is an
// error naming git's complaint.
func TestAncestor(t *testing.T) {
	dir, git := gitRepo(t)
	m1 := commit(t, dir, git, "m1")
	m2 := commit(t, dir, git, "m2")
	git("checkout", "-q", "-b", "feat")
	f1 := commit(t, dir, git, "f1")
	f2 := commit(t, dir, git, "f2")
	git("checkout", "-q", "main")
	m3 := commit(t, dir, git, "m3")
	_ = m2 // no result set for m2
	lc, ft := lightcoverage.Name, functiontrace.Name
	runs := []run{
		{lc, resultset.Run{Commit: m1, Branch: "main"}},  // 0
		{lc, resultset.Run{Commit: m3, Branch: "main"}},  // 1
		{ft, resultset.Run{Commit: f1, Branch: "feat"}},  // 2
		{lc, resultset.Run{Commit: f2, Branch: "feat"}},  // 3
		{lc, resultset.Run{Commit: "", Branch: "other"}}, // 4: no commit
		{lc, resultset.Run{Commit: m1, Branch: "main"}},  // 5: m1 again, newer
	}
	for _, dialect := range dbtest.Dialects() {
		t.Run(dialect, func(t *testing.T) {
			ctx := ctxT(t)
			db, ids := exportRuns(t, dialect, runs)
			r := &selector.Resolver{DB: db, Dir: dir}
			for _, c := range []struct {
				sel  string
				want int
			}{
				{"ancestor:main", 1}, {"ancestor~1:main", 5}, {"ancestor~2:main", 0},
				{"ancestor:feat", 3}, {"ancestor~1:feat", 2}, {"ancestor~2:feat", 5},
				{"ancestor:" + m2, 5}, {"ancestor:feat^", 2}, {"ancestor:HEAD", 1}, {"ancestor~0:HEAD", 1},
			} {
				if got := resolve(t, ctx, r, c.sel, nil); got.InstID != ids[c.want] {
					t.Errorf("%s: INST_ID %d, want %d", c.sel, got.InstID, ids[c.want])
				}
			}
			// Beside the light coverage at f2, the candidates of feat are
			// 3 (the first), 5, 0: without ~N the first is passed over.
			first := resolve(t, ctx, r, "ancestor:feat", nil)
			runsM1 := resolve(t, ctx, r, "ancestor:"+m1, nil) // ids[5], the newer of m1's two
			for _, c := range []struct {
				sel  string
				want int
			}{{"ancestor:feat", 5}, {"ancestor~1:feat", 5}, {"ancestor~2:feat", 0}, {"ancestor:main", 1}, {"ancestor~1:main", 5}} {
				if got := resolve(t, ctx, r, c.sel, &first); got.InstID != ids[c.want] {
					t.Errorf("second %s beside %d: INST_ID %d, want %d", c.sel, first.InstID, got.InstID, ids[c.want])
				}
			}
			if _, err := secondErr(ctx, r, "ancestor~0:feat", first); !errors.Is(err, selector.ErrFirst) {
				t.Errorf("ancestor~0:feat beside %d: %v, want ErrFirst", first.InstID, err)
			}
			_, err := secondErr(ctx, r, "ancestor~3:feat", first)
			var nf *selector.NotFoundError
			if !errors.As(err, &nf) || !strings.Contains(err.Error(), "no result set of profiler light-coverage at feat or an ancestor of it (") ||
				!strings.Contains(err.Error(), "(newest first, skipping 3; 3 match)") {
				t.Errorf("ancestor~3:feat beside %d: %v", first.InstID, err)
			}
			if got := resolve(t, ctx, r, "ancestor:"+m1, &runsM1); got.InstID != ids[0] {
				t.Errorf("second ancestor:m1 beside %d: INST_ID %d, want %d", runsM1.InstID, got.InstID, ids[0])
			}
			trace := resolve(t, ctx, r, "ancestor:feat^", nil) // the only trace
			_, err = secondErr(ctx, r, "ancestor:feat", trace)
			if !errors.As(err, &nf) || !strings.Contains(err.Error(), "no result set of profiler function-trace at feat or an ancestor of it other than INST_ID "+strconv.FormatInt(ids[2], 10)) {
				t.Errorf("ancestor:feat beside %d: %v", trace.InstID, err)
			}
			_, err = resolveErr(ctx, r, "ancestor:nosuch")
			if !errors.Is(err, selector.ErrGit) || !strings.Contains(err.Error(), "nosuch") {
				t.Errorf("ancestor:nosuch: %v, want ErrGit naming the revision", err)
			}
			elsewhere := &selector.Resolver{DB: db, Dir: t.TempDir()}
			if _, err := resolveErr(ctx, elsewhere, "ancestor:main"); !errors.Is(err, selector.ErrGit) {
				t.Errorf("ancestor:main outside a repository: %v, want ErrGit", err)
			}
		})
	}
}

// TestAncestorRevisionIsGits: all of the text after ancestor: is git's
// revision, ~ and ^ included: each names the result set of the commit
// git rev-parse names (HEAD~1, HEAD~3, HEAD^2 of a merge, a tag's v1.2~3,
// a remote-tracking origin/main~1), never profdb's "N-th before" of
// ancestor~N:REV, which still counts result sets along the walk.
func TestAncestorRevisionIsGits(t *testing.T) {
	dir, git := gitRepo(t)
	c1 := commit(t, dir, git, "c1")
	c2 := commit(t, dir, git, "c2")
	git("checkout", "-q", "-b", "side")
	s1 := gittest.Commit(t, dir, git, "side.txt", "s1", "s1")
	git("checkout", "-q", "main")
	c3 := commit(t, dir, git, "c3")
	c4 := commit(t, dir, git, "c4")
	git("tag", "v1.2")
	git("merge", "-q", "--no-ff", "-m", "merge side", "side")
	m := git("rev-parse", "HEAD")
	git("update-ref", "refs/remotes/origin/main", c4)
	// Two result sets at each commit: profdb's ~N along the walk and
	// git's ~N name different ones.
	lc := lightcoverage.Name
	var runs []run
	for _, c := range []string{c1, c2, s1, c3, c4, m} {
		runs = append(runs, run{lc, resultset.Run{Commit: c, Branch: "main"}}, run{lc, resultset.Run{Commit: c, Branch: "main"}})
	}
	db, ids := exportRuns(t, "sqlite", runs) // resolving is the same on every database: TestAncestor runs them all
	older, newer := map[string]int64{}, map[string]int64{}
	for i := 0; i < len(runs); i += 2 {
		older[runs[i].run.Commit], newer[runs[i].run.Commit] = ids[i], ids[i+1]
	}
	ctx := ctxT(t)
	r := &selector.Resolver{DB: db, Dir: dir}
	for _, rev := range []string{"HEAD~1", "HEAD~3", "HEAD^2", "v1.2~3", "origin/main~1", "HEAD^", "HEAD"} {
		at := git("rev-parse", rev)
		if got, err := resolveErr(ctx, r, "ancestor:"+rev); err != nil || got.InstID != newer[at] {
			t.Errorf("ancestor:%s: INST_ID %d, %v; want %d, the newest result set of git's %s (%s)", rev, got.InstID, err, newer[at], rev, at[:12])
		}
		if got, err := resolveErr(ctx, r, "ancestor~1:"+rev); err != nil || got.InstID != older[at] {
			t.Errorf("ancestor~1:%s: INST_ID %d, %v; want %d, the older result set of git's %s (%s)", rev, got.InstID, err, older[at], rev, at[:12])
		}
	}
}

// TestAncestorRunsNoProgram: the walk runs git through gitexec: in a
// repository made to look like a partial clone whose promisor remote is a
// command, a walk through a missing commit does not fetch it, so the
// command does not run (gittest.FetchTrap checks that plain git rev-list
// runs it); the walk fails instead, as git's error.
func TestAncestorRunsNoProgram(t *testing.T) {
	dir, git := gitRepo(t)
	c1 := commit(t, dir, git, "c1")
	commit(t, dir, git, "c2")
	commit(t, dir, git, "c3")
	markers := gittest.FetchTrap(t, dir, git)
	db, _ := exportRuns(t, "sqlite", []run{{lightcoverage.Name, resultset.Run{Commit: c1, Branch: "main"}}})
	_, err := resolveErr(ctxT(t), &selector.Resolver{DB: db, Dir: dir}, "ancestor:HEAD")
	gittest.Unsprung(t, markers)
	if !errors.Is(err, selector.ErrGit) {
		t.Errorf("ancestor:HEAD through a missing commit: %v, want ErrGit", err)
	}
}

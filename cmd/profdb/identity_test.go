package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/profdb/profdb/internal/dbtest"
	"github.com/profdb/profdb/internal/gittest"
	"github.com/profdb/profdb/profilers"
	"github.com/profdb/profdb/resultset"
	"github.com/profdb/profdb/store"
)

// ciMarkers are the variables by which profdb tells a CI system: emptied
// so that a test runs as outside any CI (the CI that runs it included).
var ciMarkers = []string{"GITHUB_ACTIONS", "GITLAB_CI", "JENKINS_URL", "TF_BUILD", "TEAMCITY_VERSION", "CIRCLECI", "BUILDKITE", "BITBUCKET_BUILD_NUMBER"}

// inGitRepo makes a git repository with one commit on branch "trunk", makes
// it the current folder for the test, with no CI in the environment, and
// returns its commit.
func inGitRepo(t *testing.T) string {
	t.Helper()
	for _, v := range ciMarkers {
		t.Setenv(v, "")
	}
	dir, git := gittest.Repo(t, "trunk")
	head := gittest.Commit(t, dir, git, "main.go", "package main\n", "one")
	t.Chdir(dir)
	return head
}

// runs returns the identity the database records of each result set, by
// INST_ID, and what PROFDB_MERGE_SOURCES records of it.
func runs(t *testing.T, dsn string) (map[int64]*resultset.Run, map[int64][]int64) {
	t.Helper()
	return identities(t, dsn), mergeSources(t, dsn)
}

// identities returns the identity store.Select reads of each result set,
// by INST_ID.
func identities(t *testing.T, dsn string) map[int64]*resultset.Run {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, dsn, store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	list, err := db.Select(ctx, store.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	out := map[int64]*resultset.Run{}
	for _, l := range list {
		out[l.InstID] = l.Run
	}
	return out
}

// mergeSources returns the rows of PROFDB_MERGE_SOURCES, by INST_ID.
func mergeSources(t *testing.T, dsn string) map[int64][]int64 {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, dsn, store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	d := db.Dialect()
	rows, err := db.SQL().QueryContext(ctx, "SELECT "+d.Quote(d.StoredName("INST_ID"))+", "+d.Quote(d.StoredName(profilers.ColSourceInstID))+" FROM "+
		d.Quote(d.StoredName(profilers.MergeSourcesTable))+" ORDER BY 1, 2")
	if err != nil {
		t.Fatalf("read %s: %v", profilers.MergeSourcesTable, err)
	}
	defer rows.Close()
	sources := map[int64][]int64{}
	for rows.Next() {
		var inst, src int64
		if err := rows.Scan(&inst, &src); err != nil {
			t.Fatal(err)
		}
		sources[inst] = append(sources[inst], src)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return sources
}

func example(t *testing.T, name string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("..", "..", "examples", name))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestIdentityRecorded: export records the identity git gives and the
// labels; a CI's variables win over git; merge records its inputs and
// takes its identity as export does; copy carries the source's identity
// and labels, with the flags over them; a script records them as export
// does. On every database.
func TestIdentityRecorded(t *testing.T) {
	for _, dialect := range dbtest.Dialects() {
		t.Run(dialect, func(t *testing.T) {
			cov := example(t, "light-coverage.json")
			head := inGitRepo(t)
			dsn := dbtest.Fresh(t, dialect)
			clean := false
			mustRun(t, "export", "--db", dsn, "-q", "--label", "suite=unit", "--label", "os=linux", cov) // 1
			mustRun(t, "export", "--db", dsn, "-q", "--branch", "release/2", "--no-identity", cov)       // 2

			const ciSHA = "89abcdef0123456789abcdef0123456789abcdef"
			t.Setenv("CIRCLECI", "true")
			t.Setenv("CIRCLE_SHA1", ciSHA)
			t.Setenv("CIRCLE_BRANCH", "feature")
			t.Setenv("CIRCLE_BUILD_NUM", "77")
			t.Setenv("CIRCLE_BUILD_URL", "https://circleci.com/gh/acme/app/77")
			mustRun(t, "export", "--db", dsn, "-q", cov)                                        // 3
			mustRun(t, "merge", "--db", dsn, "1", "3", "--label", "shards=2", "--commit", head) // 4
			t.Setenv("CIRCLECI", "")

			got, sources := runs(t, dsn)
			want := map[int64]*resultset.Run{
				1: {Commit: head, Branch: "trunk", Dirty: &clean, CI: "git", Labels: map[string]string{"suite": "unit", "os": "linux"}},
				2: {Branch: "release/2"},
				3: {Commit: ciSHA, Branch: "feature", CI: "circleci", BuildID: "77", BuildURL: "https://circleci.com/gh/acme/app/77"},
				4: {Commit: head, Branch: "feature", CI: "circleci", BuildID: "77", BuildURL: "https://circleci.com/gh/acme/app/77",
					Labels: map[string]string{"shards": "2"}},
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("identities:\n got  %s\n want %s", showRuns(got), showRuns(want))
			}
			if want := map[int64][]int64{4: {1, 3}}; !reflect.DeepEqual(sources, want) {
				t.Errorf("%s: got %v, want %v", profilers.MergeSourcesTable, sources, want)
			}

			// copy carries the identity and labels, the flags over them.
			to := "sqlite:" + filepath.Join(t.TempDir(), "copy.db")
			mustRun(t, "copy", "--from", dsn, "--to", to, "--inst", "1", "-q")
			mustRun(t, "copy", "--from", dsn, "--to", to, "--inst", "1", "-q", "--label", "os=mac", "--branch", "b2")
			mustRun(t, "copy", "--from", dsn, "--to", to, "--inst", "1", "-q", "--no-identity", "--label", "k=v")
			got = identities(t, to)
			want = map[int64]*resultset.Run{
				1: want[1],
				2: {Commit: head, Branch: "b2", Dirty: &clean, CI: "git", Labels: map[string]string{"suite": "unit", "os": "mac"}},
				3: {Labels: map[string]string{"k": "v"}},
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("copies:\n got  %s\n want %s", showRuns(got), showRuns(want))
			}
		})
	}
}

// TestIdentityScript: a script records the identity and labels as export
// does.
func TestIdentityScript(t *testing.T) {
	runScript := sqlite3Runner(t)
	cov := example(t, "light-coverage.json")
	head := inGitRepo(t)
	dsn := "sqlite:" + filepath.Join(t.TempDir(), "s.db")
	mustRun(t, "export", "--db", dsn, "-q", cov)
	script := filepath.Join(t.TempDir(), "run.sql")
	mustRun(t, "script", "--dialect", "sqlite", "-o", script, "-q", "--label", "suite=it", "--build-id", "B-1", cov)
	if out, err := runScript(dsn, script); err != nil {
		t.Fatalf("run the script: %v\n%s", err, out)
	}
	clean := false
	got := identities(t, dsn)
	want := map[int64]*resultset.Run{
		1: {Commit: head, Branch: "trunk", Dirty: &clean, CI: "git"},
		2: {Commit: head, Branch: "trunk", Dirty: &clean, CI: "git", BuildID: "B-1", Labels: map[string]string{"suite": "it"}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("identities:\n got  %s\n want %s", showRuns(got), showRuns(want))
	}
}

// TestIdentityUsage: a bad --label, a key given twice, or a commit that is
// no full object name is a usage error, exit 2, and writes nothing.
func TestIdentityUsage(t *testing.T) {
	cov := example(t, "light-coverage.json")
	dir := t.TempDir()
	dsn := "sqlite:" + filepath.Join(dir, "u.db")
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"export", "--db", dsn, "--label", "suite", cov}, "KEY=VALUE"},
		{[]string{"export", "--db", dsn, "--label", "a b=c", cov}, "KEY=VALUE"},
		{[]string{"export", "--db", dsn, "--label", "k=1", "--label", "k=2", cov}, `key "k" given twice`},
		{[]string{"export", "--db", dsn, "--commit", "abc123", cov}, "40 or 64 hexadecimal digits"},
		{[]string{"script", "--dialect", "sqlite", "--label", "=x", cov}, "KEY=VALUE"},
		{[]string{"merge", "--db", dsn, "1", "2", "--label", "k=\x1b[2J"}, "control characters"},
		{[]string{"copy", "--from", dsn, "--to", dsn, "--branch", "a\nb"}, "branch"},
	} {
		stdout, stderr, code := runCLI(t, tc.args...)
		if code != 2 || !strings.Contains(stderr, tc.msg) {
			t.Errorf("profdb %q: exit %d, stderr %q; want exit 2 naming %q", tc.args, code, stderr, tc.msg)
		}
		if strings.Contains(stdout, "INST_ID") {
			t.Errorf("profdb %q wrote: %s", tc.args, stdout)
		}
		if strings.Contains(stderr, "\x1b") {
			t.Errorf("profdb %q: the message holds an escape: %q", tc.args, stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "u.db")); err == nil {
		t.Errorf("a usage error created the database")
	}
}

func showRuns(m map[int64]*resultset.Run) string {
	keys := make([]int64, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b strings.Builder
	for _, k := range keys {
		j, _ := json.Marshal(m[k])
		fmt.Fprintf(&b, "\n  %d: %s", k, j)
	}
	return b.String()
}

// TestIdentityListed: list shows the commit (short, "+" when dirty), the
// branch and the labels, escaped; --json gives the run whole.
func TestIdentityListed(t *testing.T) {
	cov := example(t, "light-coverage.json")
	head := inGitRepo(t)
	dsn := "sqlite:" + filepath.Join(t.TempDir(), "l.db")
	mustRun(t, "export", "--db", dsn, "-q", "--label", "suite=unit", "--label", "os=linux", cov)
	if err := os.WriteFile("main.go", []byte("package main // changed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	mustRun(t, "export", "--db", dsn, "-q", cov)
	mustRun(t, "export", "--db", dsn, "-q", "--no-identity", cov)
	execAll(t, dsn, "UPDATE {"+profilers.ResultSetsTable+"} SET {"+profilers.ColBranch+"} = 'evil"+"\x1b"+"[2J' WHERE {INST_ID} = 2")
	out := mustRun(t, "list", "--db", dsn)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 4 || !strings.Contains(lines[0], "COMMIT") || !strings.Contains(lines[0], "BRANCH") || !strings.Contains(lines[0], "LABELS") {
		t.Fatalf("list:\n%s", out)
	}
	for i, want := range [][]string{
		{head[:12] + " ", "trunk", "os=linux,suite=unit"},
		{head[:12] + "+", "evil"},
		{" - ", " - "},
	} {
		for _, w := range want {
			if !strings.Contains(lines[i+1], w) {
				t.Errorf("list, INST_ID %d: %q lacks %q", i+1, lines[i+1], w)
			}
		}
	}
	if strings.Contains(out, "\x1b") {
		t.Errorf("list printed an escape from the database: %q", out)
	}
	var got []struct {
		InstID int64          `json:"inst_id"`
		Run    *resultset.Run `json:"run"`
	}
	if err := json.Unmarshal([]byte(mustRun(t, "list", "--db", dsn, "--json")), &got); err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[0].Run == nil || got[0].Run.Commit != head || got[0].Run.Labels["suite"] != "unit" || got[2].Run != nil {
		t.Errorf("list --json: %+v", got)
	}
}

// TestIdentityRunsNoProgram: reading a run's identity runs none of the
// filter drivers that the repository's configuration, or the user's,
// names for files git status must read (gittest.FilterTrap checks that
// plain git status runs them): not in export, alone or in GitHub Actions'
// mode (where git gives the dirty flag), nor in script or merge; the run
// is still recorded dirty. Nor does the walk of an ancestor: selector run
// the program a partial clone's remote names (gittest.FetchTrap).
func TestIdentityRunsNoProgram(t *testing.T) {
	for _, where := range []string{gittest.InRepo, gittest.InGlobal} {
		t.Run(where, func(t *testing.T) {
			cov := example(t, "light-coverage.json")
			inGitRepo(t)
			dir, err := os.Getwd()
			if err != nil {
				t.Fatal(err)
			}
			git := gittest.At(t, dir)
			markers := gittest.FilterTrap(t, dir, git, where)
			head := git("rev-parse", "HEAD")
			dsn := "sqlite:" + filepath.Join(t.TempDir(), "i.db")
			dirty := true
			mustRun(t, "export", "--db", dsn, "-q", cov) // 1
			gittest.Unsprung(t, markers)
			t.Setenv("GITHUB_ACTIONS", "true")
			t.Setenv("GITHUB_SHA", head)
			t.Setenv("GITHUB_REF", "refs/heads/trunk")
			t.Setenv("GITHUB_REF_NAME", "trunk")
			t.Setenv("GITHUB_RUN_ID", "5")
			mustRun(t, "export", "--db", dsn, "-q", cov) // 2
			gittest.Unsprung(t, markers)
			mustRun(t, "script", "--dialect", "sqlite", "-o", filepath.Join(t.TempDir(), "s.sql"), "-q", cov)
			gittest.Unsprung(t, markers)
			t.Setenv("GITHUB_ACTIONS", "")
			mustRun(t, "merge", "--db", dsn, "1", "2") // 3
			gittest.Unsprung(t, markers)
			got := identities(t, dsn)
			want := map[int64]*resultset.Run{
				1: {Commit: head, Branch: "trunk", Dirty: &dirty, CI: "git"},
				2: {Commit: head, Branch: "trunk", Dirty: &dirty, CI: "github-actions", BuildID: "5"},
				3: {Commit: head, Branch: "trunk", Dirty: &dirty, CI: "git"},
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("identities:\n got  %s\n want %s", showRuns(got), showRuns(want))
			}

			markers = gittest.FetchTrap(t, dir, git) // HEAD~1 is inGitRepo's commit

			_, stderr, code := runCLI(t, "compare", "--db", dsn, "latest", "ancestor:HEAD")
			gittest.Unsprung(t, markers)
			if code != 2 || !strings.Contains(stderr, "git rev-list") {
				t.Errorf("compare latest ancestor:HEAD through a missing commit: exit %d, want 2 quoting git\n%s", code, stderr)
			}
		})
	}
}

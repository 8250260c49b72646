package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/profdb/profdb/internal/dbtest"
	"github.com/profdb/profdb/internal/exampletest"
	"github.com/profdb/profdb/resultset"
	"github.com/profdb/profdb/store"
)

// exportWithRun exports the example name of the repository at root into
// dsn with the identity run and returns its INST_ID.
func exportWithRun(t *testing.T, dsn, root, name string, run resultset.Run) int64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	inst, err := exampletest.ExportRun(ctx, root, dsn, name, &run)
	if err != nil {
		t.Fatalf("export %s: %v", name, err)
	}
	return inst
}

// moduleRoot returns the repository's root folder, which holds examples/.
func moduleRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// selectorRepo makes a git history: main m1 - m2, feature f1 off m1; it
// returns the folder and m1, m2, f1.
func selectorRepo(t *testing.T) (dir, m1, m2, f1 string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git on the PATH")
	}
	dir = t.TempDir()
	git := func(args ...string) string {
		t.Helper()
		c := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@t"}, args...)...)
		c.Dir = dir
		c.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir)
		out, err := c.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	commit := func(msg string) string {
		if err := os.WriteFile(filepath.Join(dir, "f"), []byte(msg), 0o644); err != nil {
			t.Fatal(err)
		}
		git("add", "f")
		git("commit", "-q", "-m", msg)
		return git("rev-parse", "HEAD")
	}
	git("init", "-q", "-b", "main")
	m1 = commit("m1")
	git("checkout", "-q", "-b", "feature")
	f1 = commit("f1")
	git("checkout", "-q", "main")
	m2 = commit("m2")
	return dir, m1, m2, f1
}

// TestSelectorsCLI: every command that names a result set takes
// selectors — show, compare (B among A's profiler, never A), check and
// --baseline (ancestor: on a real git history), merge, report, copy,
// verify and delete --inst — and one that matches nothing exits 2 saying
// what it looked for; list filters by branch, label, profiler, time and
// count; delete --keep-last keeps the newest N of a branch or profiler.
// It tests the commands' wiring, which is the same on every database, on
// SQLite and PostgreSQL; selector's TestResolve and TestAncestor resolve
// every form on all four databases (a CLI run on Babelfish took 3 minutes).
func TestSelectorsCLI(t *testing.T) {
	dir, m1, m2, f1 := selectorRepo(t)
	root := moduleRoot(t)
	for _, dialect := range dbtest.Dialects("mysql", "sqlserver") {
		t.Run(dialect, func(t *testing.T) {
			dsn := dbtest.Fresh(t, dialect)
			ids := []int64{
				exportWithRun(t, dsn, root, "light-coverage", resultset.Run{Commit: m1, Branch: "main", Labels: map[string]string{"suite": "unit"}}),
				exportWithRun(t, dsn, root, "function-trace", resultset.Run{Commit: m1, Branch: "main"}),
				exportWithRun(t, dsn, root, "light-coverage", resultset.Run{Commit: f1, Branch: "feature", Labels: map[string]string{"suite": "e2e"}}),
				exportWithRun(t, dsn, root, "light-coverage", resultset.Run{Commit: m2, Branch: "main"}),
			}
			id := func(i int) string { return strconv.FormatInt(ids[i], 10) }
			t.Chdir(dir)

			// list's filters, as JSON and as text.
			for _, c := range []struct {
				args []string
				want []int
			}{
				{[]string{"--branch", "main"}, []int{0, 1, 3}},
				{[]string{"--label", "suite=unit"}, []int{0}},
				{[]string{"--label", "suite=e2e", "--branch", "feature"}, []int{2}},
				{[]string{"--profiler", "function-trace"}, []int{1}},
				{[]string{"--profiler", "light-coverage", "--last", "2"}, []int{2, 3}},
				{[]string{"--last", "1"}, []int{3}},
				{[]string{"--since", "1d"}, []int{0, 1, 2, 3}},
				{[]string{"--since", "2999-01-01"}, nil},
				{[]string{"--branch", "nope"}, nil},
			} {
				out := mustRun(t, append([]string{"list", "--db", dsn, "--json"}, c.args...)...)
				var got []store.Listing
				if err := json.Unmarshal([]byte(out), &got); err != nil {
					t.Fatalf("list %v: %v\n%s", c.args, err, out)
				}
				var gotIDs, want []int64
				for _, l := range got {
					gotIDs = append(gotIDs, l.InstID)
					if l.Rows == 0 {
						t.Errorf("list %v: INST_ID %d counted no rows", c.args, l.InstID)
					}
				}
				for _, i := range c.want {
					want = append(want, ids[i])
				}
				if !slices.Equal(gotIDs, want) {
					t.Errorf("list %v: %v, want %v", c.args, gotIDs, want)
				}
			}
			text := mustRun(t, "list", "--db", dsn, "--branch", "feature")
			if !strings.Contains(text, "COMMIT") || !strings.Contains(text, f1[:12]) || !strings.Contains(text, "feature") {
				t.Errorf("list --branch feature prints no commit and branch:\n%s", text)
			}
			for _, bad := range [][]string{{"--label", "suite"}, {"--last", "-1"}, {"--since", "yesterday"}, {"--profiler", "nope"}} {
				if _, stderr, code := runCLI(t, append([]string{"list", "--db", dsn}, bad...)...); code != 2 {
					t.Errorf("list %v: exit %d, want 2\n%s", bad, code, stderr)
				}
			}

			// show, compare, check.
			if out := mustRun(t, "show", "--db", dsn, "--json", "label:suite=e2e"); !strings.Contains(out, `"inst_id": `+id(2)) {
				t.Errorf("show label:suite=e2e is not INST_ID %s:\n%.300s", id(2), out)
			}
			out := mustRun(t, "compare", "--db", dsn, "latest", "branch:main")
			if !strings.Contains(out, "A: INST_ID "+id(3)+" ") || !strings.Contains(out, "B: INST_ID "+id(0)+" ") {
				t.Errorf("compare latest branch:main: want A %s, B %s (main's newest coverage other than A):\n%.300s", id(3), id(0), out)
			}
			out = mustRun(t, "compare", "--db", dsn, "latest", "ancestor:feature")
			if !strings.Contains(out, "B: INST_ID "+id(2)+" ") {
				t.Errorf("compare latest ancestor:feature: want B %s:\n%.300s", id(2), out)
			}
			out = mustRun(t, "check", "--db", dsn, "latest", "--baseline", "ancestor:main", "--max-drop", "100", "--format", "json")
			var rep struct {
				InstID   int64 `json:"inst_id"`
				Baseline int64 `json:"baseline"`
			}
			if err := json.Unmarshal([]byte(out), &rep); err != nil || rep.InstID != ids[3] || rep.Baseline != ids[0] {
				t.Errorf("check latest --baseline ancestor:main: %v; want INST_ID %s, baseline %s (main's newest coverage at an ancestor other than latest)\n%.300s",
					err, id(3), id(0), out)
			}
			for _, c := range []struct {
				args []string
				want string
			}{
				{[]string{"show", "branch:nope"}, `show: "branch:nope": no result set on branch nope`},
				{[]string{"show", "latest~9"}, `"latest~9": no result set (newest first, skipping 9; 4 match)`},
				{[]string{"check", "latest", "--baseline", "branch:main~2", "--max-drop", "1"},
					`check: --baseline: "branch:main~2": no result set of profiler light-coverage on branch main (newest first, skipping 2; 2 match)`},
				{[]string{"check", "label:suite=e2e", "--baseline", "label:suite=e2e", "--max-drop", "1"},
					`check: --baseline: "label:suite=e2e": no result set of profiler light-coverage labelled suite=e2e other than INST_ID ` + id(2)},
				{[]string{"check", "latest", "--baseline", "ancestor:nosuch", "--max-drop", "1"}, "nosuch"},
				{[]string{"compare", "latest", "commit:" + strings.ToUpper(f1[:7]) + "~1"}, "no result set of profiler light-coverage at a commit beginning " + f1[:7]},
				{[]string{"show", "commit:abc"}, "commit: want 7 or more hexadecimal digits"},
				{[]string{"show", "newest"}, `INST_ID must be a positive integer or a selector`},
				{[]string{"merge", "latest", "label:x=y"}, "no result set labelled x=y"},
				{[]string{"verify", "--inst", "1,branch:nope"}, "--inst: \"branch:nope\": no result set on branch nope"},
				{[]string{"delete", "--inst", "label:x=\x1b[2J"}, `--inst "label:x=\x1b[2J": not a selector: label "x=\x1b[2J": want KEY=VALUE`},
			} {
				stdout, stderr, code := runCLI(t, append([]string{c.args[0], "--db", dsn}, c.args[1:]...)...)
				if code != 2 || !strings.Contains(stderr, c.want) {
					t.Errorf("%v: exit %d, want 2 saying %q\n%s%s", c.args, code, c.want, stdout, stderr)
				}
				if strings.ContainsRune(stderr, 0x1b) {
					t.Errorf("%v: a raw escape reached the terminal: %q", c.args, stderr)
				}
			}

			// report, verify, copy, merge by selector.
			mustRun(t, "report", "--db", dsn, "--inst", "label:suite=unit", "--compare", "latest", "branch:main", "-o", filepath.Join(t.TempDir(), "r.html"))
			if out := mustRun(t, "verify", "--db", dsn, "--inst", "latest,branch:feature", "--inst", id(0)+"-"+id(1)); strings.TrimSpace(out) != "ok" {
				t.Errorf("verify: %s", out)
			}
			lite := "sqlite:" + filepath.Join(t.TempDir(), "copy.db")
			if out := mustRun(t, "copy", "--from", dsn, "--to", lite, "--inst", "branch:feature"); !strings.HasPrefix(out, "INST_ID "+id(2)+" -> INST_ID 1 ") {
				t.Errorf("copy --inst branch:feature: %s", out)
			}
			out = mustRun(t, "merge", "--db", dsn, "--json", "latest", "branch:feature")
			var merged resultset.Result
			if err := json.Unmarshal([]byte(out), &merged); err != nil || merged.InstID != ids[3]+1 {
				t.Fatalf("merge latest branch:feature: %v\n%s", err, out)
			}
			if out := mustRun(t, "show", "--db", dsn, "--json", "latest"); !strings.Contains(out, `"inst_id": `+strconv.FormatInt(merged.InstID, 10)) {
				t.Errorf("show latest after merge is not the merge, INST_ID %d:\n%.300s", merged.InstID, out)
			}

			// delete --keep-last and --inst by selector. The merge was
			// made in the repository's working tree, on main: it is main's
			// newest.
			for _, c := range []struct {
				args []string
				want []int64
			}{
				{[]string{"--keep-last", "1", "--branch", "main"}, []int64{ids[0], ids[1], ids[3]}},
				{[]string{"--keep-last", "1", "--branch", "main", "--profiler", "light-coverage"}, []int64{ids[0], ids[3]}},
				{[]string{"--keep-last", "2", "--branch", "main", "--profiler", "light-coverage"}, []int64{ids[0]}},
				{[]string{"--keep-last", "4"}, []int64{ids[0]}},
				{[]string{"--keep-last", "9"}, nil},
				{[]string{"--inst", "latest~1"}, []int64{ids[3]}},
			} {
				out := mustRun(t, append([]string{"delete", "--db", dsn, "--dry-run", "--json"}, c.args...)...)
				var got []store.Deleted
				if err := json.Unmarshal([]byte(out), &got); err != nil {
					t.Fatalf("delete %v: %v\n%s", c.args, err, out)
				}
				var gotIDs []int64
				for _, d := range got {
					gotIDs = append(gotIDs, d.InstID)
				}
				if !slices.Equal(gotIDs, c.want) {
					t.Errorf("delete --dry-run %v: %v, want %v", c.args, gotIDs, c.want)
				}
			}
			for _, bad := range [][]string{{"--keep-last", "0"}, {"--branch", "main", "--inst", "1"}, {"--keep-last", "1", "--profiler", "nope"}} {
				if _, stderr, code := runCLI(t, append([]string{"delete", "--db", dsn}, bad...)...); code != 2 {
					t.Errorf("delete %v: exit %d, want 2\n%s", bad, code, stderr)
				}
			}
			out = mustRun(t, "delete", "--db", dsn, "--keep-last", "2", "--branch", "main", "--profiler", "light-coverage")
			if !strings.HasPrefix(out, "deleted INST_ID "+id(0)+" (") || strings.Count(out, "\n") != 1 {
				t.Errorf("delete --keep-last 1 --branch main --profiler light-coverage: %q", out)
			}
			if out := mustRun(t, "list", "--db", dsn, "--json", "--branch", "main"); strings.Contains(out, `"inst_id": `+id(0)+",") || !strings.Contains(out, `"inst_id": `+id(3)+",") {
				t.Errorf("after delete --keep-last 2: want INST_ID %s gone and %s kept:\n%s", id(0), id(3), out)
			}
		})
	}
}

// TestSecondSelectorCLI: ~N means the same for the second result set of
// every command that takes one — compare's B, check's --baseline, report
// --compare's B — as for the first: the first is counted among the
// candidates. With runs 1 and 2, latest~1 beside latest is 1; with three,
// 2; with eight, 7. A selector with ~N that lands on the first is a usage
// error (exit 2) saying so; one without ~N passes over the first when it
// is its newest match.
func TestSecondSelectorCLI(t *testing.T) {
	root := moduleRoot(t)
	for _, dialect := range dbtest.Dialects("mysql", "sqlserver") {
		t.Run(dialect, func(t *testing.T) {
			dsn := dbtest.Fresh(t, dialect)
			var ids []int64
			exportTo := func(n int) {
				for len(ids) < n {
					ids = append(ids, exportWithRun(t, dsn, root, "light-coverage", resultset.Run{Branch: "main"}))
				}
			}
			id := func(i int) string { return strconv.FormatInt(ids[i], 10) }
			// second runs cmd with A and B and returns the INST_IDs it set
			// side by side (0, 0 when it failed, which it reports).
			second := func(cmd, a, b string) (int64, int64) {
				t.Helper()
				html := filepath.Join(t.TempDir(), "r.html")
				args := map[string][]string{
					"compare": {"compare", "--db", dsn, a, b},
					"check":   {"check", "--db", dsn, a, "--baseline", b, "--max-drop", "100", "--format", "json"},
					"report":  {"report", "--db", dsn, "--compare", a, b, "-o", html},
				}[cmd]
				out, stderr, code := runCLI(t, args...)
				if code != 0 {
					t.Errorf("profdb %s: exit %d\n%s", strings.Join(args, " "), code, stderr)
					return 0, 0
				}
				var ga, gb int64
				switch cmd {
				case "compare":
					for _, line := range strings.Split(out, "\n") {
						if rest, ok := strings.CutPrefix(line, "A: INST_ID "); ok {
							ga, _ = strconv.ParseInt(strings.Fields(rest)[0], 10, 64)
						}
						if rest, ok := strings.CutPrefix(line, "B: INST_ID "); ok {
							gb, _ = strconv.ParseInt(strings.Fields(rest)[0], 10, 64)
						}
					}
				case "check":
					var rep struct {
						InstID   int64 `json:"inst_id"`
						Baseline int64 `json:"baseline"`
					}
					if err := json.Unmarshal([]byte(out), &rep); err != nil {
						t.Fatalf("check %s --baseline %s: %v\n%s", a, b, err, out)
					}
					ga, gb = rep.InstID, rep.Baseline
				case "report":
					page, err := os.ReadFile(html)
					if err != nil {
						t.Fatal(err)
					}
					for _, x := range ids {
						for _, y := range ids {
							if strings.Contains(string(page), fmt.Sprintf(`<a href="#compare">Compare %d and %d</a>`, x, y)) {
								ga, gb = x, y
							}
						}
					}
				}
				return ga, gb
			}
			for _, c := range []struct {
				runs int
				a, b string
				want [2]int // indexes into ids
			}{
				{2, "latest", "latest~1", [2]int{1, 0}},
				{3, "latest", "latest~1", [2]int{2, 1}},
				{3, "latest", "latest~2", [2]int{2, 0}},
				{3, "latest~1", "latest", [2]int{1, 2}},
				{3, "latest", "latest", [2]int{2, 1}},      // no ~N: the first passed over
				{3, "latest", "branch:main", [2]int{2, 1}}, // no ~N: the first passed over
				{3, "latest", "branch:main~1", [2]int{2, 1}},
				{8, "latest", "latest~1", [2]int{7, 6}},
				{8, "latest~2", "latest~1", [2]int{5, 6}},
				{8, "latest~2", "latest~3", [2]int{5, 4}},
			} {
				exportTo(c.runs)
				for _, cmd := range []string{"compare", "check", "report"} {
					if a, b := second(cmd, c.a, c.b); a != ids[c.want[0]] || b != ids[c.want[1]] {
						t.Errorf("%d runs: %s %s %s: A %d, B %d; want %s, %s", c.runs, cmd, c.a, c.b, a, b, id(c.want[0]), id(c.want[1]))
					}
				}
			}
			for _, c := range []struct{ a, b string }{{"latest~1", "latest~1"}, {"latest", "latest~0"}, {id(6), "branch:main~1"}, {id(6), id(7) + "~1"}} {
				want := fmt.Sprintf("%q: names the first result set itself, INST_ID %d", c.b, ids[6])
				if c.a == "latest" {
					want = fmt.Sprintf("%q: names the first result set itself, INST_ID %d", c.b, ids[7])
				}
				for _, args := range [][]string{
					{"compare", "--db", dsn, c.a, c.b},
					{"check", "--db", dsn, c.a, "--baseline", c.b, "--max-drop", "1"},
					{"report", "--db", dsn, "--compare", c.a, c.b, "-o", filepath.Join(t.TempDir(), "r.html")},
				} {
					stdout, stderr, code := runCLI(t, args...)
					if code != 2 || !strings.Contains(stderr, want) {
						t.Errorf("%v: exit %d, want 2 saying %s\n%s%s", args, code, want, stdout, stderr)
					}
				}
			}
		})
	}
}

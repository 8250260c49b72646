package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/profdb/profdb/gate"
	"github.com/profdb/profdb/internal/dbtest"
)

// ciVarPrefixes are the prefixes of the environment variables by which
// profdb (internal/runid) or a tool of the job would take the test's own
// environment for the CI the test plays.
var ciVarPrefixes = []string{
	"GITHUB_", "GITLAB_", "CI_", "JENKINS_", "BUILD_", "TF_BUILD", "SYSTEM_", "TEAMCITY_", "CIRCLE",
	"BUILDKITE", "BITBUCKET_", "GIT_", "PROFDB_", "GOFLAGS", "GOWORK", "GOTOOLCHAIN",
}

// guideCI is a git history and the GitHub Actions runs of the guide's CI
// job on it.
type guideCI struct {
	t      *testing.T
	root   string // the temporary folder: origin.git, dev, jobs, bin
	script string // the guide's CI job, as the guide prints it
	env    []string
	jobs   int
}

// git runs git in dir and returns its standard output.
func (g *guideCI) git(dir string, args ...string) string {
	g.t.Helper()
	c := exec.Command("git", args...)
	c.Dir = dir
	c.Env = g.env
	out, err := c.Output()
	if err != nil {
		msg := ""
		if ee, ok := err.(*exec.ExitError); ok {
			msg = string(ee.Stderr)
		}
		g.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, msg)
	}
	return strings.TrimSpace(string(out))
}

// job runs the guide's script in a fresh clone of origin.git checked out
// as GitHub Actions checks out the event (a push to main: the commit; a
// pull request: the merge of its branch into main's newest commit), with
// GitHub Actions' variables set and PROFDB_DB the database's DSN. It
// returns the clone, the commit checked out, the script's output and its
// exit status.
func (g *guideCI) job(dsn, event, ref string) (dir, sha, stdout, stderr string, code int) {
	g.t.Helper()
	g.jobs++
	dir = filepath.Join(g.root, "job"+strconv.Itoa(g.jobs))
	g.git(g.root, "clone", "-q", filepath.Join(g.root, "origin.git"), dir)
	vars := []string{"GITHUB_ACTIONS=true", "GITHUB_EVENT_NAME=" + event, "GITHUB_RUN_ID=" + strconv.Itoa(1000+g.jobs),
		"GITHUB_SERVER_URL=https://github.com", "GITHUB_REPOSITORY=example/calc"}
	switch event {
	case "push":
		g.git(dir, "checkout", "-q", "--detach", ref)
		sha = g.git(dir, "rev-parse", "HEAD")
		vars = append(vars, "GITHUB_SHA="+sha, "GITHUB_REF=refs/heads/main", "GITHUB_REF_NAME=main", "GITHUB_REF_TYPE=branch")
	case "pull_request":
		g.git(dir, "checkout", "-q", "--detach", "origin/main")
		g.git(dir, "merge", "-q", "--no-ff", "-m", "Merge "+ref+" into main", "origin/"+ref)
		sha = g.git(dir, "rev-parse", "HEAD")
		vars = append(vars, "GITHUB_SHA="+sha, "GITHUB_REF=refs/pull/7/merge", "GITHUB_REF_NAME=7/merge",
			"GITHUB_REF_TYPE=branch", "GITHUB_HEAD_REF="+ref, "GITHUB_BASE_REF=main")
	default:
		g.t.Fatalf("no event %q", event)
	}
	scriptPath := filepath.Join(g.root, "ci.sh")
	c := exec.Command("bash", scriptPath)
	c.Dir = dir
	c.Env = append(append([]string(nil), g.env...), vars...)
	c.Env = append(c.Env, "PROFDB_DB="+dsn, "GOTOOLCHAIN=local", "GOWORK=off", "GOFLAGS=")
	var out, errOut strings.Builder
	c.Stdout, c.Stderr = &out, &errOut
	err := c.Run()
	code = c.ProcessState.ExitCode()
	if err != nil && code < 0 {
		g.t.Fatalf("%s job on %s: %v", event, ref, err)
	}
	return dir, sha, out.String(), errOut.String(), code
}

// newGuideCI makes origin.git, with main's history and two pull requests'
// branches, made from testdata/calc: the change the worked example shows
// (change.diff), applied backwards, is main's code.
//
//	c1 calc             main's run
//	c2 a test of Abs    main's run
//	c3 README           no run (its job was skipped): the pull requests' base
//	feature             c3 + change.diff (the fix and its tests)
//	untested            c3 + change.diff without TestAbs
func newGuideCI(t *testing.T, script string) (g *guideCI, c1, c2, c3 string) {
	for _, tool := range []string{"go", "git", "bash"} {
		if _, err := exec.LookPath(tool); err != nil {
			if dbtest.InCI() {
				t.Fatalf("%s is not on PATH (CI=true: the guide's CI job must run): %v", tool, err)
			}
			t.Skipf("%s is not on PATH", tool)
		}
	}
	root := t.TempDir()
	g = &guideCI{t: t, root: root, script: script}
	bin := filepath.Join(root, "bin")
	if err := os.Mkdir(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	// profdb on the job's PATH is this test binary, run as profdb.
	wrapper := "#!/bin/sh\n" + asProfdb + "=1 exec " + strconv.Quote(profdbBin(t)) + " \"$@\"\n"
	if err := os.WriteFile(filepath.Join(bin, "profdb"), []byte(wrapper), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "ci.sh"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		skip := name == "CI" || name == "PATH" || name == "JENKINS_URL" || name == asProfdb
		for _, p := range ciVarPrefixes {
			skip = skip || strings.HasPrefix(name, p)
		}
		if !skip {
			g.env = append(g.env, kv)
		}
	}
	g.env = append(g.env, "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"),
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_AUTHOR_NAME=dev", "GIT_AUTHOR_EMAIL=dev@example.com",
		"GIT_COMMITTER_NAME=dev", "GIT_COMMITTER_EMAIL=dev@example.com")

	g.git(root, "init", "-q", "--bare", "-b", "main", "origin.git")
	dev := filepath.Join(root, "dev")
	g.git(root, "clone", "-q", filepath.Join(root, "origin.git"), dev)
	write := func(name, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dev, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	commit := func(msg string) string {
		t.Helper()
		g.git(dev, "add", "-A")
		g.git(dev, "commit", "-q", "-m", msg)
		return g.git(dev, "rev-parse", "HEAD")
	}
	src := filepath.Join("testdata", "calc")
	for _, name := range []string{"go.mod", "calc.go", "calc_test.go"} {
		b, err := os.ReadFile(filepath.Join(src, name))
		if err != nil {
			t.Fatal(err)
		}
		write(name, string(b))
	}
	change, err := filepath.Abs(filepath.Join(src, "change.diff"))
	if err != nil {
		t.Fatal(err)
	}
	g.git(dev, "checkout", "-q", "-b", "main")
	g.git(dev, "apply", "-R", change)
	c1 = commit("calc")
	write("abs_test.go", "package calc\n\nimport \"testing\"\n\nfunc TestAbsPositive(t *testing.T) {\n\tif got := Abs(2); got != 2 {\n\t\tt.Errorf(\"Abs(2) = %d, want 2\", got)\n\t}\n}\n")
	c2 = commit("a test of Abs")
	write("README.md", "# calc\n")
	c3 = commit("README [skip ci]")
	g.git(dev, "push", "-q", "origin", "main")

	g.git(dev, "checkout", "-q", "-b", "feature", c3)
	g.git(dev, "apply", change)
	commit("Div by zero gives 0; Abs of a negative number")
	g.git(dev, "push", "-q", "origin", "feature")

	g.git(dev, "checkout", "-q", "-b", "untested", c3)
	g.git(dev, "apply", change)
	b, err := os.ReadFile(filepath.Join(dev, "calc_test.go"))
	if err != nil {
		t.Fatal(err)
	}
	i := strings.Index(string(b), "\nfunc TestAbs(")
	if i < 0 {
		t.Fatalf("testdata/calc/change.diff adds no TestAbs:\n%s", b)
	}
	write("calc_test.go", string(b[:i]))
	commit("Div by zero gives 0; Abs of a negative number, untested")
	g.git(dev, "push", "-q", "origin", "untested")
	return g, c1, c2, c3
}

// TestGuideCIJob runs the guide's CI job (docs/guide.md, "A CI job for a Go
// module"), as the guide prints it, under bash with profdb on the PATH, as
// GitHub Actions would on a real git history: main's pushes export runs
// (identity from GitHub Actions' variables), a pull request's job exports
// its own and gates it against ancestor:origin/main, whose newest commit
// has no run, so that the run of the commit before it is the baseline. No
// INST_ID is kept by hand. A pull request whose changed lines are not all
// covered fails the job (exit 1) with the annotations the guide shows.
func TestGuideCIJob(t *testing.T) {
	guide := readRepoFile(t, "docs/guide.md")
	const from = "A CI job for a Go module"
	script := guideBlock(t, guide, from, "```sh")
	for _, want := range []string{
		"#!/bin/bash\nset -euo pipefail",
		"profdb export c.out --label suite=unit\n",
		"git diff origin/main...HEAD |\n",
		"profdb check latest --baseline ancestor:origin/main --max-drop 1 \\\n      --diff - --min-patch-coverage 80 --format github\n",
	} {
		if !strings.Contains(script, want) {
			t.Errorf("docs/guide.md's CI job has no %q:\n%s", want, script)
		}
	}
	if strings.Contains(script, "INST_ID") || strings.Contains(script, "MAIN_RUN") {
		t.Errorf("docs/guide.md's CI job keeps an INST_ID:\n%s", script)
	}
	wantFail := guideBlock(t, guide, "A second pull request, the same change", "```")
	wantTrend, cut := strings.CutSuffix(guideBlock(t, guide, "After main's two runs in the test", "```"), "...\n")
	if !cut {
		t.Fatalf("docs/guide.md: the trend over main's runs does not end in ...")
	}

	for _, dialect := range []string{"sqlite", "postgres"} {
		t.Run(dialect, func(t *testing.T) {
			dsn := dbtest.Fresh(t, dialect)
			g, c1, c2, c3 := newGuideCI(t, script)
			var runs []string // the commit of each INST_ID, from 1
			for _, c := range []string{c1, c2} {
				_, sha, stdout, stderr, code := g.job(dsn, "push", c)
				if code != 0 || sha != c {
					t.Fatalf("main's job on %s: exit %d (commit %s)\n%s%s", c, code, sha, stdout, stderr)
				}
				runs = append(runs, sha)
			}

			// The pull request that covers its change passes, gated
			// against c2's run (INST_ID 2): c3, main's newest, has none.
			dir, sha, stdout, stderr, code := g.job(dsn, "pull_request", "feature")
			runs = append(runs, sha)
			if code != 0 || strings.Contains(stdout, "::") || !strings.HasSuffix(stdout, "\nINST_ID 3  light-coverage  24 rows  \"go coverage: c.out\"\n") {
				t.Fatalf("the pull request's job: exit %d, want 0\n%s%s", code, stdout, stderr)
			}
			if base := g.git(dir, "merge-base", "origin/main", "HEAD"); base != c3 {
				t.Fatalf("the pull request's base is %s, want main's newest, %s", base, c3)
			}
			g.checkBaseline(dir, dsn, 3, 2)

			// export recorded each run's identity from GitHub Actions.
			var list []struct {
				InstID int64 `json:"inst_id"`
				Run    struct {
					Commit   string            `json:"commit"`
					Branch   string            `json:"branch"`
					CI       string            `json:"ci"`
					BuildID  string            `json:"build_id"`
					BuildURL string            `json:"build_url"`
					Labels   map[string]string `json:"labels"`
				} `json:"run"`
			}
			decodeJSON(t, mustRun(t, "list", "--db", dsn, "--json"), &list)
			if len(list) != 3 {
				t.Fatalf("list: %d result sets, want 3", len(list))
			}
			for i, rs := range list {
				branch := "main"
				if i == 2 {
					branch = "feature"
				}
				if rs.InstID != int64(i+1) || rs.Run.Commit != runs[i] || rs.Run.Branch != branch || rs.Run.CI != "github-actions" ||
					rs.Run.BuildID != strconv.Itoa(1001+i) || rs.Run.BuildURL != "https://github.com/example/calc/actions/runs/"+rs.Run.BuildID ||
					rs.Run.Labels["suite"] != "unit" {
					t.Errorf("list: result set %d is %+v, want INST_ID %d, commit %s, branch %s, github-actions, build %d and its URL, suite=unit",
						i, rs, i+1, runs[i], branch, 1001+i)
				}
			}

			// The pull request that leaves Abs's fix uncovered fails the
			// job with the annotation the guide shows, gated against the
			// same baseline.
			dir, _, stdout, stderr, code = g.job(dsn, "pull_request", "untested")
			if code != 1 {
				t.Fatalf("the untested pull request's job: exit %d, want 1\n%s%s", code, stdout, stderr)
			}
			if got := stdout[strings.Index(stdout, "\nINST_ID")+1:]; got != wantFail {
				t.Errorf("the untested pull request's job prints\n%s\nthe guide shows\n%s", got, wantFail)
			}
			g.checkBaseline(dir, dsn, 4, 2)

			// main's history, as the guide's trend shows it.
			trend, _, code := runCLI(t, "trend", "--db", dsn, "--branch", "main", "--last", "20")
			if code != 0 || !strings.HasPrefix(trend, wantTrend) {
				t.Errorf("trend --branch main --last 20: exit %d\n%s\nthe guide shows\n%s", code, trend, wantTrend)
			}
		})
	}
}

// checkBaseline checks that the guide's check, run in the pull request's
// checkout, gates INST_ID inst against INST_ID baseline.
func (g *guideCI) checkBaseline(dir, dsn string, inst, baseline int64) {
	g.t.Helper()
	c := profdbCommand(profdbBin(g.t), "check", "--db", dsn, "latest", "--baseline", "ancestor:origin/main", "--max-drop", "1", "--format", "json")
	c.Dir = dir
	c.Env = append(append(c.Env[:0:0], g.env...), asProfdb+"=1")
	out, err := c.Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
			g.t.Fatalf("check --format json: %v\n%s", err, out)
		}
	}
	var rep gate.Report
	decodeJSON(g.t, string(out), &rep)
	if rep.InstID != inst || rep.Baseline != baseline {
		g.t.Errorf("check latest --baseline ancestor:origin/main: INST_ID %d against %d, want %d against %d (the run of main's newest commit that has one)",
			rep.InstID, rep.Baseline, inst, baseline)
	}
}

package runid_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/profdb/profdb/internal/gittest"
	"github.com/profdb/profdb/internal/runid"
	"github.com/profdb/profdb/resultset"
)

const (
	sha  = "0123456789abcdef0123456789abcdef01234567"
	sha2 = "89abcdef0123456789abcdef0123456789abcdef"
)

func lookup(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

// TestFromEnv reads each CI system's variables, as its documentation
// names them.
func TestFromEnv(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  map[string]string
		want *resultset.Run
	}{
		{"none", map[string]string{"HOME": "/root", "GIT_COMMIT": sha}, nil},
		{"github push", map[string]string{"GITHUB_ACTIONS": "true", "GITHUB_SHA": sha, "GITHUB_REF": "refs/heads/main",
			"GITHUB_REF_NAME": "main", "GITHUB_REF_TYPE": "branch", "GITHUB_RUN_ID": "4711", "GITHUB_SERVER_URL": "https://github.com",
			"GITHUB_REPOSITORY": "acme/app"},
			&resultset.Run{Commit: sha, Branch: "main", CI: "github-actions", BuildID: "4711", BuildURL: "https://github.com/acme/app/actions/runs/4711"}},
		{"github pull request", map[string]string{"GITHUB_ACTIONS": "true", "GITHUB_SHA": sha, "GITHUB_REF": "refs/pull/7/merge",
			"GITHUB_REF_NAME": "7/merge", "GITHUB_HEAD_REF": "feature/x", "GITHUB_RUN_ID": "12", "GITHUB_SERVER_URL": "https://ghe.example.com/",
			"GITHUB_REPOSITORY": "acme/app"},
			&resultset.Run{Commit: sha, Branch: "feature/x", CI: "github-actions", BuildID: "12", BuildURL: "https://ghe.example.com/acme/app/actions/runs/12"}},
		{"github tag", map[string]string{"GITHUB_ACTIONS": "true", "GITHUB_SHA": sha, "GITHUB_REF": "refs/tags/v1", "GITHUB_REF_NAME": "v1",
			"GITHUB_REF_TYPE": "tag", "GITHUB_HEAD_REF": ""},
			&resultset.Run{Commit: sha, CI: "github-actions"}},
		{"gitlab branch", map[string]string{"GITLAB_CI": "true", "CI_COMMIT_SHA": sha, "CI_COMMIT_BRANCH": "main", "CI_COMMIT_REF_NAME": "main",
			"CI_PIPELINE_ID": "99", "CI_PIPELINE_URL": "https://gitlab.com/acme/app/-/pipelines/99"},
			&resultset.Run{Commit: sha, Branch: "main", CI: "gitlab-ci", BuildID: "99", BuildURL: "https://gitlab.com/acme/app/-/pipelines/99"}},
		{"gitlab merge request", map[string]string{"GITLAB_CI": "true", "CI_COMMIT_SHA": sha, "CI_COMMIT_REF_NAME": "mr",
			"CI_MERGE_REQUEST_SOURCE_BRANCH_NAME": "topic", "CI_PIPELINE_ID": "5"},
			&resultset.Run{Commit: sha, Branch: "topic", CI: "gitlab-ci", BuildID: "5"}},
		{"gitlab tag", map[string]string{"GITLAB_CI": "true", "CI_COMMIT_SHA": sha, "CI_COMMIT_REF_NAME": "v2", "CI_COMMIT_TAG": "v2"},
			&resultset.Run{Commit: sha, CI: "gitlab-ci"}},
		{"jenkins git plugin", map[string]string{"JENKINS_URL": "https://ci.example.com/", "GIT_COMMIT": strings.ToUpper(sha),
			"GIT_BRANCH": "origin/release/1.2", "BUILD_NUMBER": "31", "BUILD_URL": "https://ci.example.com/job/app/31/"},
			&resultset.Run{Commit: sha, Branch: "release/1.2", CI: "jenkins", BuildID: "31", BuildURL: "https://ci.example.com/job/app/31/"}},
		{"jenkins multibranch pull request", map[string]string{"JENKINS_URL": "https://ci/", "GIT_COMMIT": sha, "BRANCH_NAME": "PR-4",
			"CHANGE_BRANCH": "fix", "GIT_BRANCH": "PR-4", "BUILD_NUMBER": "2"},
			&resultset.Run{Commit: sha, Branch: "fix", CI: "jenkins", BuildID: "2"}},
		{"azure", map[string]string{"TF_BUILD": "True", "BUILD_SOURCEVERSION": sha, "BUILD_SOURCEBRANCH": "refs/heads/main",
			"BUILD_BUILDID": "812", "SYSTEM_COLLECTIONURI": "https://dev.azure.com/acme/", "SYSTEM_TEAMPROJECT": "My App"},
			&resultset.Run{Commit: sha, Branch: "main", CI: "azure-pipelines", BuildID: "812", BuildURL: "https://dev.azure.com/acme/My%20App/_build/results?buildId=812"}},
		{"azure pull request", map[string]string{"TF_BUILD": "True", "BUILD_SOURCEVERSION": sha, "BUILD_SOURCEBRANCH": "refs/pull/3/merge",
			"SYSTEM_PULLREQUEST_SOURCEBRANCH": "refs/heads/topic", "BUILD_BUILDID": "9"},
			&resultset.Run{Commit: sha, Branch: "topic", CI: "azure-pipelines", BuildID: "9"}},
		{"teamcity", map[string]string{"TEAMCITY_VERSION": "2025.07", "BUILD_VCS_NUMBER": sha, "BUILD_NUMBER": "144",
			"BUILD_URL": "https://tc.example.com/build/1234"},
			&resultset.Run{Commit: sha, CI: "teamcity", BuildID: "144", BuildURL: "https://tc.example.com/build/1234"}},
		{"circleci", map[string]string{"CIRCLECI": "true", "CIRCLE_SHA1": sha, "CIRCLE_BRANCH": "dev", "CIRCLE_BUILD_NUM": "77",
			"CIRCLE_BUILD_URL": "https://circleci.com/gh/acme/app/77"},
			&resultset.Run{Commit: sha, Branch: "dev", CI: "circleci", BuildID: "77", BuildURL: "https://circleci.com/gh/acme/app/77"}},
		{"buildkite", map[string]string{"BUILDKITE": "true", "BUILDKITE_COMMIT": "HEAD", "BUILDKITE_BRANCH": "main",
			"BUILDKITE_BUILD_NUMBER": "8", "BUILDKITE_BUILD_URL": "https://buildkite.com/acme/app/builds/8"},
			&resultset.Run{Branch: "main", CI: "buildkite", BuildID: "8", BuildURL: "https://buildkite.com/acme/app/builds/8"}},
		{"bitbucket", map[string]string{"BITBUCKET_BUILD_NUMBER": "21", "BITBUCKET_COMMIT": sha, "BITBUCKET_BRANCH": "main",
			"BITBUCKET_GIT_HTTP_ORIGIN": "http://bitbucket.org/acme/app"},
			&resultset.Run{Commit: sha, Branch: "main", CI: "bitbucket-pipelines", BuildID: "21", BuildURL: "https://bitbucket.org/acme/app/pipelines/results/21"}},
		{"hostile values", map[string]string{"CIRCLECI": "true", "CIRCLE_SHA1": sha + "\n", "CIRCLE_BRANCH": "ma\x1b[31min\u202e",
			"CIRCLE_BUILD_NUM": strings.Repeat("9", runid.MaxBuildID+1), "CIRCLE_BUILD_URL": "https://x/\xff"},
			&resultset.Run{Commit: sha, Branch: "ma[31min", CI: "circleci"}},
		{"commit not an object name", map[string]string{"CIRCLECI": "true", "CIRCLE_SHA1": "abc123", "CIRCLE_BRANCH": "b"},
			&resultset.Run{Branch: "b", CI: "circleci"}},
		{"sha-256 commit", map[string]string{"CIRCLECI": "true", "CIRCLE_SHA1": sha + sha[:24]},
			&resultset.Run{Commit: sha + sha[:24], CI: "circleci"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := runid.FromEnv(lookup(tc.env))
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("FromEnv:\n got  %+v\n want %+v", got, tc.want)
			}
		})
	}
}

// gitRepo makes a repository with one commit (a.go) on branch trunk in a
// new folder and returns the folder and the commit.
func gitRepo(t *testing.T) (string, string) {
	t.Helper()
	dir, git := gittest.Repo(t, "trunk")
	return dir, gittest.Commit(t, dir, git, "a.go", "package a\n", "one")
}

func boolp(b bool) *bool { return &b }

func TestFromGit(t *testing.T) {
	dir, head := gitRepo(t)
	ctx := context.Background()
	got := runid.FromGit(ctx, runid.Options{Dir: dir})
	want := &resultset.Run{Commit: head, Branch: "trunk", Dirty: boolp(false), CI: "git"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("clean tree: got %+v, want %+v", got, want)
	}
	// An untracked file (the profile being exported) leaves it clean.
	if err := os.WriteFile(filepath.Join(dir, "c.out"), []byte("mode: set\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := runid.FromGit(ctx, runid.Options{Dir: dir}); got == nil || got.Dirty == nil || *got.Dirty {
		t.Errorf("untracked file: got %+v, want a clean tree", got)
	}
	// A change to a tracked file makes it dirty.
	if err := os.WriteFile(filepath.Join(dir, "a.go"), []byte("package a // changed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := runid.FromGit(ctx, runid.Options{Dir: dir}); got == nil || got.Dirty == nil || !*got.Dirty {
		t.Errorf("changed tracked file: got %+v, want a dirty tree", got)
	}
	// A detached HEAD has a commit and no branch.
	cmd := exec.Command("git", "checkout", "-q", "--detach")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git checkout --detach: %v\n%s", err, out)
	}
	if got := runid.FromGit(ctx, runid.Options{Dir: dir}); got == nil || got.Commit != head || got.Branch != "" {
		t.Errorf("detached HEAD: got %+v, want commit %s and no branch", got, head)
	}
}

// TestFromGitRunsNoHook: a repository whose configuration names an
// fsmonitor program (which git status runs) has its identity read without
// that program running.
func TestFromGitRunsNoHook(t *testing.T) {
	dir, head := gitRepo(t)
	marker := filepath.Join(t.TempDir(), "ran")
	hook := filepath.Join(t.TempDir(), "fsmonitor")
	if err := os.WriteFile(hook, []byte("#!/bin/sh\ntouch '"+marker+"'\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("git", "config", "core.fsmonitor", hook)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git config: %v\n%s", err, out)
	}
	got := runid.FromGit(context.Background(), runid.Options{Dir: dir})
	want := &resultset.Run{Commit: head, Branch: "trunk", Dirty: boolp(false), CI: "git"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
	if _, err := os.Stat(marker); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the repository's fsmonitor program ran (%v)", err)
	}
}

// TestFromGitRunsNoFilter: reading the identity runs none of the filter
// drivers that the repository's configuration, or the user's, names for
// files git status must read (gittest.FilterTrap checks that plain git
// status runs them), alone and in GitHub Actions' mode, where git tells
// the dirty flag; the flag is still right: set for the changed filtered
// files, clear once they are as committed, set for a plainly changed file.
func TestFromGitRunsNoFilter(t *testing.T) {
	for _, where := range []string{gittest.InRepo, gittest.InHome} {
		t.Run(where, func(t *testing.T) {
			dir, git := gittest.Repo(t, "trunk")
			gittest.Commit(t, dir, git, "a.go", "package a\n", "one")
			markers := gittest.FilterTrap(t, dir, git, where)
			head := git("rev-parse", "HEAD")
			ctx := context.Background()
			got := runid.FromGit(ctx, runid.Options{Dir: dir})
			gittest.Unsprung(t, markers)
			if want := (&resultset.Run{Commit: head, Branch: "trunk", Dirty: boolp(true), CI: "git"}); !reflect.DeepEqual(got, want) {
				t.Errorf("changed filtered files: got %+v, want %+v", got, want)
			}
			gha := map[string]string{"GITHUB_ACTIONS": "true", "GITHUB_SHA": head, "GITHUB_REF": "refs/heads/trunk", "GITHUB_REF_NAME": "trunk", "GITHUB_RUN_ID": "9"}
			got, err := runid.Capture(ctx, runid.Options{Dir: dir, Lookup: lookup(gha)})
			gittest.Unsprung(t, markers)
			if want := (&resultset.Run{Commit: head, Branch: "trunk", Dirty: boolp(true), CI: "github-actions", BuildID: "9"}); err != nil || !reflect.DeepEqual(got, want) {
				t.Errorf("GitHub Actions: got %+v, %v; want %+v", got, err, want)
			}
			for _, name := range []string{"clean.dat", "proc.dat"} {
				if err := os.WriteFile(filepath.Join(dir, name), []byte("before\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if got := runid.FromGit(ctx, runid.Options{Dir: dir}); got == nil || got.Dirty == nil || *got.Dirty {
				t.Errorf("filtered files as committed: got %+v, want a clean tree", got)
			}
			if err := os.WriteFile(filepath.Join(dir, "a.go"), []byte("package b\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if got := runid.FromGit(ctx, runid.Options{Dir: dir}); got == nil || got.Dirty == nil || !*got.Dirty {
				t.Errorf("a changed tracked file: got %+v, want a dirty tree", got)
			}
			gittest.Unsprung(t, markers)
		})
	}
}

// TestFromGitSubmodule: git status does not look into a submodule's
// working tree, where it would run git status under the submodule's own
// configuration and its filter drivers (plain git status does: the test
// checks it), and changes there leave the tree clean; a submodule checked
// out at another commit than the one recorded makes it dirty.
func TestFromGitSubmodule(t *testing.T) {
	sub, subGit := gittest.Repo(t, "main")
	gittest.Commit(t, sub, subGit, "s.txt", "s\n", "sub one")
	dir, git := gittest.Repo(t, "trunk")
	gittest.Commit(t, dir, git, "a.go", "package a\n", "one")
	git("-c", "protocol.file.allow=always", "submodule", "--quiet", "add", sub, "sub")
	git("commit", "-q", "-m", "submodule")
	checkout := filepath.Join(dir, "sub")
	// FilterTrap commits in the submodule: the superproject records the
	// commit before.
	markers := gittest.FilterTrap(t, checkout, gittest.At(t, checkout), gittest.InRepo)
	ctx := context.Background()
	if got := runid.FromGit(ctx, runid.Options{Dir: dir}); got == nil || got.Dirty == nil || !*got.Dirty {
		t.Errorf("the submodule at another commit: got %+v, want a dirty tree", got)
	}
	gittest.Unsprung(t, markers)
	git("add", "sub")
	git("commit", "-q", "-m", "submodule's new commit")
	head := git("rev-parse", "HEAD")
	cmd := exec.Command("git", "status", "--porcelain")
	cmd.Dir = dir
	out, _ := cmd.CombinedOutput() // the failing process driver fails it: the markers tell what ran
	if _, err := os.Stat(markers[0]); err != nil {
		t.Fatalf("plain git status in the superproject ran no driver of the submodule's (%v): the test could not fail\n%s", err, out)
	}
	for _, m := range markers {
		if err := os.Remove(m); err != nil && !errors.Is(err, fs.ErrNotExist) {
			t.Fatal(err)
		}
	}
	got := runid.FromGit(ctx, runid.Options{Dir: dir})
	gittest.Unsprung(t, markers)
	if want := (&resultset.Run{Commit: head, Branch: "trunk", Dirty: boolp(false), CI: "git"}); !reflect.DeepEqual(got, want) {
		t.Errorf("changes inside the submodule only: got %+v, want %+v", got, want)
	}
}

func TestFromGitNothing(t *testing.T) {
	ctx := context.Background()
	if got := runid.FromGit(ctx, runid.Options{Dir: t.TempDir()}); got != nil {
		t.Errorf("not a repository: got %+v, want nil", got)
	}
	if got := runid.FromGit(ctx, runid.Options{Git: filepath.Join(t.TempDir(), "no-git")}); got != nil {
		t.Errorf("git missing: got %+v, want nil", got)
	}
	// A git that hangs is given up after the timeout.
	slow := filepath.Join(t.TempDir(), "git")
	if err := os.WriteFile(slow, []byte("#!/bin/sh\nexec sleep 30\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if got := runid.FromGit(ctx, runid.Options{Git: slow, Timeout: 100 * time.Millisecond}); got != nil {
		t.Errorf("hanging git: got %+v, want nil", got)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("hanging git: FromGit returned after %v, not at its timeout", d)
	}
}

// TestFromGitLongOutput: a git that prints far more than a commit, a
// branch or a status needs costs FromGit a bounded amount of memory: the
// overlong branch is dropped, the long status still says dirty.
func TestFromGitLongOutput(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("a shell script stands in for git: Windows runs none")
	}
	const outSize = 32 << 20
	fake := filepath.Join(t.TempDir(), "git")
	script := "#!/bin/sh\ncase \"$*\" in\n" +
		"*--get-regexp*) exit 1 ;;\n" + // git config: no filter driver
		"*rev-parse*) echo " + sha2 + " ;;\n" +
		"*) head -c " + strconv.Itoa(outSize) + " /dev/zero | tr '\\0' M ;;\nesac\n"
	if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	got := runid.FromGit(context.Background(), runid.Options{Git: fake})
	runtime.ReadMemStats(&after)
	want := &resultset.Run{Commit: sha2, Dirty: boolp(true), CI: "git"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > outSize/4 {
		t.Errorf("FromGit allocated %d bytes for git's %d-byte answers: its output is not bounded", n, 2*outSize)
	}
}

func TestCapture(t *testing.T) {
	dir, head := gitRepo(t)
	ctx := context.Background()
	// No CI: git's.
	got, err := runid.Capture(ctx, runid.Options{Dir: dir, Lookup: lookup(nil)})
	if err != nil || got == nil || got.CI != "git" || got.Commit != head || got.Branch != "trunk" {
		t.Fatalf("git alone: got %+v, %v", got, err)
	}
	// TeamCity names the commit, not the branch: git's checkout of that
	// commit gives the branch and the dirty flag.
	tc := map[string]string{"TEAMCITY_VERSION": "2025.07", "BUILD_VCS_NUMBER": head, "BUILD_NUMBER": "3"}
	got, err = runid.Capture(ctx, runid.Options{Dir: dir, Lookup: lookup(tc)})
	want := &resultset.Run{Commit: head, Branch: "trunk", Dirty: boolp(false), CI: "teamcity", BuildID: "3"}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("teamcity on its checkout: got %+v, %v; want %+v", got, err, want)
	}
	// A CI commit other than git's: git adds nothing.
	tc["BUILD_VCS_NUMBER"] = sha2
	got, err = runid.Capture(ctx, runid.Options{Dir: dir, Lookup: lookup(tc)})
	want = &resultset.Run{Commit: sha2, CI: "teamcity", BuildID: "3"}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("teamcity elsewhere: got %+v, %v; want %+v", got, err, want)
	}
	// NoGit: the environment only.
	if got, err := runid.Capture(ctx, runid.Options{Dir: dir, NoGit: true}); err != nil || got != nil {
		t.Errorf("NoGit without CI: got %+v, %v; want nil", got, err)
	}
	// An ended context is the one error.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := runid.Capture(cctx, runid.Options{Dir: dir}); !errors.Is(err, context.Canceled) {
		t.Errorf("canceled context: got %v, want context.Canceled", err)
	}
}

func TestGiven(t *testing.T) {
	if err := (runid.Given{Commit: "abc"}).Check(); err == nil {
		t.Error("Check: a short commit is accepted")
	}
	if err := (runid.Given{Branch: "a\nb"}).Check(); err == nil {
		t.Error("Check: a branch with a newline is accepted")
	}
	if err := (runid.Given{Commit: strings.ToUpper(sha), Branch: "main", BuildURL: "https://x/1"}).Check(); err != nil {
		t.Errorf("Check: %v", err)
	}
	captured := &resultset.Run{Commit: sha, Branch: "main", Dirty: boolp(true), CI: "git", Labels: map[string]string{"a": "1"}}
	got := runid.Given{Commit: strings.ToUpper(sha2), Branch: "rel", Labels: map[string]string{"b": "2"}}.Apply(captured)
	want := &resultset.Run{Commit: sha2, Branch: "rel", CI: "git", Labels: map[string]string{"a": "1", "b": "2"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Apply: got %+v, want %+v", got, want)
	}
	if len(captured.Labels) != 1 || captured.Commit != sha {
		t.Errorf("Apply changed its argument: %+v", captured)
	}
	if got := (runid.Given{}).Apply(nil); got != nil {
		t.Errorf("Apply of nothing to nil: %+v", got)
	}
}

// TestGivenLabelsBounded: at most MaxLabels labels are given, and an
// error quotes a long value cut (a megabyte of --label or --branch is
// not a megabyte of message).
func TestGivenLabelsBounded(t *testing.T) {
	labels := map[string]string{}
	for i := 0; i < runid.MaxLabels; i++ {
		labels[fmt.Sprintf("k%d", i)] = "v"
	}
	if err := (runid.Given{Labels: labels}).Check(); err != nil {
		t.Errorf("Check of %d labels: %v", len(labels), err)
	}
	labels["one-more"] = "v"
	err := (runid.Given{Labels: labels}).Check()
	if want := fmt.Sprintf("%d labels given; a run has at most %d", runid.MaxLabels+1, runid.MaxLabels); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Check of %d labels: %v, want an error saying %q", len(labels), err, want)
	}
	long := strings.Repeat("x", 1<<20)
	for what, err := range map[string]error{
		"branch": runid.Given{Branch: long}.Check(),
		"commit": runid.Given{Commit: long}.Check(),
		"label":  func() error { _, _, err := runid.ParseLabel("=" + long); return err }(),
	} {
		if err == nil || len(err.Error()) > 1000 {
			t.Errorf("%s of 1 MiB: an error of %d bytes", what, len(fmt.Sprint(err)))
		}
	}
}

func TestOverlay(t *testing.T) {
	under := &resultset.Run{Commit: sha, Branch: "main", Dirty: boolp(true), CI: "git", Labels: map[string]string{"a": "1", "b": "1"}}
	over := &resultset.Run{Commit: sha2, Dirty: boolp(false), CI: "jenkins", BuildID: "7", Labels: map[string]string{"b": "2"}, MergedFrom: []int64{3, 4}}
	got := runid.Overlay(under, over)
	want := &resultset.Run{Commit: sha2, Branch: "main", Dirty: boolp(false), CI: "jenkins", BuildID: "7",
		Labels: map[string]string{"a": "1", "b": "2"}, MergedFrom: []int64{3, 4}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Overlay: got %+v, want %+v", got, want)
	}
	if got := runid.Overlay(&resultset.Run{}, &resultset.Run{}); got != nil {
		t.Errorf("Overlay of empty runs: %+v, want nil", got)
	}
	if got := runid.Overlay(nil, over); got != over {
		t.Errorf("Overlay(nil, over): %+v", got)
	}
}

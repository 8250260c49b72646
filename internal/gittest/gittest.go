package gittest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Git runs git in one repository's folder and returns its output, trimmed;
// an error fails the test.
type Git func(args ...string) string

// Repo makes an empty git repository whose first branch is branch, in a
// temporary folder, and returns the folder and a Git for it. Without git
// on the PATH the test skips, or fails under CI (CI=true), where git must
// be there.
func Repo(t testing.TB, branch string) (string, Git) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("gittest: no git on the PATH: %v", err)
		}
		t.Skipf("gittest: no git on the PATH: %v", err)
	}
	dir := t.TempDir()
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), Env()...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return strings.TrimSpace(string(out))
	}
	git("init", "-q", "-b", branch)
	return dir, git
}

// Env is the environment, beside the process's own, that gives git an
// author and committer and keeps it from the user's and the system's
// configuration.
func Env() []string {
	return []string{"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t",
		"GIT_COMMITTER_EMAIL=t@example.com", "GIT_CONFIG_GLOBAL=" + os.DevNull, "GIT_CONFIG_NOSYSTEM=1"}
}

// Commit writes text to the file name (a path under dir), commits it with
// message msg and returns the commit's object name.
func Commit(t testing.TB, dir string, git Git, name, text, msg string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	git("add", name)
	git("commit", "-q", "-m", msg)
	return git("rev-parse", "HEAD")
}

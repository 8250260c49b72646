package gittest

import (
	"errors"
	"io/fs"
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
	git := At(t, dir)
	git("init", "-q", "-b", branch)
	return dir, git
}

// At returns a Git for the folder dir (a repository, a submodule's
// checkout, or a folder git init will make one).
func At(t testing.TB, dir string) Git {
	return func(args ...string) string {
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

// Where FilterTrap configures its filter drivers.
const (
	InRepo   = "repo"   // the repository's .git/config
	InGlobal = "global" // a user configuration file GIT_CONFIG_GLOBAL names
	InHome   = "home"   // ~/.gitconfig, HOME a new folder, GIT_CONFIG_GLOBAL unset
)

// FilterTrap sets a trap for git in the repository dir: two files that
// .gitattributes maps to filter drivers whose programs leave a marker file
// when they run, "trapclean" (a clean command that passes the content
// through) and "trapproc" (a long-running process command, which fails),
// configured where says (InRepo, InGlobal or InHome: these two set
// environment variables with t.Setenv for the rest of the test). The files
// are committed before the drivers exist, then changed without changing
// their size, so that git status must read them, through their drivers,
// to tell whether they changed. FilterTrap checks that plain "git status"
// springs the trap, so that a test relying on it can fail, and returns the
// markers, removed again. dir may be a submodule's checkout.
func FilterTrap(t testing.TB, dir string, git Git, where string) []string {
	t.Helper()
	bin := t.TempDir()
	markers := []string{filepath.Join(bin, "clean-ran"), filepath.Join(bin, "process-ran")}
	clean, process := filepath.Join(bin, "clean"), filepath.Join(bin, "process")
	write := func(path, text string, mode os.FileMode) {
		t.Helper()
		if err := os.WriteFile(path, []byte(text), mode); err != nil {
			t.Fatal(err)
		}
	}
	write(clean, "#!/bin/sh\ntouch '"+markers[0]+"'\nexec cat\n", 0o755)
	write(process, "#!/bin/sh\ntouch '"+markers[1]+"'\nexit 1\n", 0o755)
	write(filepath.Join(dir, ".gitattributes"), "clean.dat filter=trapclean\nproc.dat filter=trapproc\n", 0o644)
	write(filepath.Join(dir, "clean.dat"), "before\n", 0o644)
	write(filepath.Join(dir, "proc.dat"), "before\n", 0o644)
	git("add", ".gitattributes", "clean.dat", "proc.dat")
	git("commit", "-q", "-m", "filtered files")
	config := "[filter \"trapclean\"]\n\tclean = " + clean + "\n[filter \"trapproc\"]\n\tprocess = " + process + "\n"
	switch where {
	case InRepo:
		git("config", "filter.trapclean.clean", clean)
		git("config", "filter.trapproc.process", process)
	case InGlobal:
		global := filepath.Join(t.TempDir(), "gitconfig")
		write(global, config, 0o644)
		t.Setenv("GIT_CONFIG_GLOBAL", global)
	case InHome:
		home := t.TempDir()
		write(filepath.Join(home, ".gitconfig"), config, 0o644)
		t.Setenv("HOME", home)
		t.Setenv("XDG_CONFIG_HOME", "")
		t.Setenv("GIT_CONFIG_GLOBAL", "")
		if err := os.Unsetenv("GIT_CONFIG_GLOBAL"); err != nil { // t.Setenv restores it
			t.Fatal(err)
		}
	default:
		t.Fatalf("gittest: FilterTrap where %q", where)
	}
	write(filepath.Join(dir, "clean.dat"), "after!\n", 0o644)
	write(filepath.Join(dir, "proc.dat"), "after!\n", 0o644)
	// Plain git status, with the environment the test gives profdb, runs
	// both drivers. Its own outcome does not matter (the failing process
	// driver fails it): the markers tell what ran.
	cmd := exec.Command("git", "status", "--porcelain", "--untracked-files=no")
	cmd.Dir = dir
	out, _ := cmd.CombinedOutput()
	for _, m := range markers {
		if _, err := os.Stat(m); err != nil {
			t.Fatalf("gittest: plain git status did not spring the trap (%v): a test relying on it could not fail\n%s", err, out)
		}
		if err := os.Remove(m); err != nil {
			t.Fatal(err)
		}
	}
	return markers
}

// Unsprung fails the test for each marker of FilterTrap's or FetchTrap's
// that exists: the program that leaves it ran. It removes the marker, so
// that a later check tells whether a later command ran it again.
func Unsprung(t testing.TB, markers []string) {
	t.Helper()
	for _, m := range markers {
		err := os.Remove(m)
		if err == nil {
			t.Errorf("git ran a program the configuration names: %s existed", m)
		} else if !errors.Is(err, fs.ErrNotExist) {
			t.Error(err)
		}
	}
}

// FetchTrap makes the repository dir look like a partial clone whose
// promisor remote's address is an ext:: command that leaves a marker, with
// that transport allowed, and takes the object of HEAD's parent away: git
// reading that commit (rev-list HEAD, a walk through the history) fetches
// it from the remote, running the command. FetchTrap checks that plain
// "git rev-list HEAD" springs the trap, and returns the marker, removed
// again. HEAD must have a parent, stored as a loose object.
func FetchTrap(t testing.TB, dir string, git Git) []string {
	t.Helper()
	marker := filepath.Join(t.TempDir(), "fetch-ran")
	parent := git("rev-parse", "HEAD~1")
	git("config", "core.repositoryformatversion", "1")
	git("config", "extensions.partialClone", "trap")
	git("config", "remote.trap.promisor", "true")
	git("config", "remote.trap.url", "ext::sh -c touch% "+marker)
	git("config", "protocol.ext.allow", "always")
	if err := os.Remove(filepath.Join(dir, ".git", "objects", parent[:2], parent[2:])); err != nil {
		t.Fatalf("gittest: FetchTrap: %v", err)
	}
	cmd := exec.Command("git", "rev-list", "HEAD")
	cmd.Dir = dir
	out, _ := cmd.CombinedOutput() // it fails: the markers tell what ran
	if _, err := os.Stat(marker); err != nil {
		t.Fatalf("gittest: plain git rev-list did not spring the trap (%v): a test relying on it could not fail\n%s", err, out)
	}
	if err := os.Remove(marker); err != nil {
		t.Fatal(err)
	}
	return []string{marker}
}

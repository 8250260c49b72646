package main

import (
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/profdb/profdb/internal/clitest"
)

// "profdb version" and "profdb --version" print the version, the commit and
// its date that Go recorded in the binary, the Go version and the platform.
func TestVersionBuildInfo(t *testing.T) {
	// Built as users build it: what go build stamps is the subject.
	bin, err := clitest.Build(t.Context(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	meta, err := exec.Command("go", "version", "-m", bin).Output()
	if err != nil {
		t.Fatal(err)
	}
	setting := func(key string) string {
		m := regexp.MustCompile(`(?m)^\s+build\s+` + regexp.QuoteMeta(key) + `=(\S+)$`).FindSubmatch(meta)
		if m == nil {
			return ""
		}
		return string(m[1])
	}
	// A clone gives the binary its commit; a git worktree does not (Go does
	// not stamp from one): then there is no commit to print.
	rev, date := setting("vcs.revision"), setting("vcs.time")
	version, err := exec.Command(bin, "version").Output()
	if err != nil {
		t.Fatal(err)
	}
	flag, err := exec.Command(bin, "--version").Output()
	if err != nil {
		t.Fatal(err)
	}
	if string(flag) != string(version) {
		t.Errorf("profdb --version = %q, profdb version = %q", flag, version)
	}
	// The module version Go recorded: a pseudo-version from the commit, or
	// (devel).
	mod := regexp.MustCompile(`(?m)^\s+mod\s+github.com/profdb/profdb\s+(\S+)`).FindSubmatch(meta)
	if mod == nil {
		t.Fatalf("go version -m: no mod line in\n%s", meta)
	}
	v := string(mod[1])
	if v == "(devel)" {
		v = "devel"
	}
	want := "profdb " + v + " (go1."
	if rev != "" {
		want = "profdb " + v + " (commit " + rev[:12] + ", " + date
	}
	if !strings.HasPrefix(string(version), want) || !strings.Contains(string(version), "go1.") {
		t.Errorf("profdb version = %q, want it to start %q and name the Go version", version, want)
	}
}

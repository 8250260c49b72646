package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"reflect"
	"regexp"
	"runtime"
	"runtime/debug"
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

// A release build's stamped version, commit and date win over what Go
// recorded; without a stamped commit, Go's commit, date and "modified" are
// used together.
func TestDescribeBuild(t *testing.T) {
	vcs := &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261125040000-0123456789ab"}, Settings: []debug.BuildSetting{
		{Key: "vcs.revision", Value: "0123456789abcdef0123456789abcdef01234567"},
		{Key: "vcs.time", Value: "2026-11-25T04:00:00Z"},
		{Key: "vcs.modified", Value: "true"},
	}}
	platform := runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH
	for _, c := range []struct {
		name    string
		bi      *debug.BuildInfo
		v, c, d string
		want    string
	}{
		{"release", vcs, "1.4.0", "fedcba9876543210fedcba9876543210fedcba98", "2026-12-01T10:00:00Z",
			"1.4.0 (commit fedcba987654, 2026-12-01T10:00:00Z; " + platform + ")"},
		{"go install from a clone", vcs, "", "", "",
			"v0.0.0-20261125040000-0123456789ab (commit 0123456789ab, 2026-11-25T04:00:00Z, modified; " + platform + ")"},
		{"stamped version only", vcs, "1.4.0", "", "",
			"1.4.0 (commit 0123456789ab, 2026-11-25T04:00:00Z, modified; " + platform + ")"},
		{"no build information", nil, "", "", "", "devel (" + platform + ")"},
		{"a date without a commit", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "", "", "2026-12-01T10:00:00Z",
			"devel (built 2026-12-01T10:00:00Z; " + platform + ")"},
	} {
		if got := describeBuild(c.bi, c.v, c.c, c.d).String(); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

// "profdb version --json" prints the fields of the version line.
func TestVersionJSON(t *testing.T) {
	defer func(v, c, d string) { version, commit, date = v, c, d }(version, commit, date)
	version, commit, date = "1.4.0", "fedcba9876543210fedcba9876543210fedcba98", "2026-12-01T10:00:00Z"
	var stdout, stderr strings.Builder
	if code := run([]string{"version", "--json"}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(stdout.String()), &got); err != nil {
		t.Fatalf("%v in %s", err, stdout.String())
	}
	want := map[string]any{"version": "1.4.0", "commit": commit, "date": date, "modified": false,
		"go": runtime.Version(), "os": runtime.GOOS, "arch": runtime.GOARCH}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("version --json = %v, want %v", got, want)
	}
	stdout.Reset()
	if code := run([]string{"version"}, &stdout, &stderr); code != 0 || !strings.HasPrefix(stdout.String(), "profdb 1.4.0 (commit fedcba987654, 2026-12-01T10:00:00Z; go") {
		t.Errorf("version = %q (exit %d)", stdout.String(), code)
	}
}

// "profdb man DIR" writes a page for profdb and for each command, dated
// with the build's date.
func TestManPages(t *testing.T) {
	defer func(d string) { date = d }(date)
	date = "2026-12-01T10:00:00Z"
	dir := t.TempDir() + "/man1"
	var stdout, stderr strings.Builder
	if code := run([]string{"man", dir}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	for _, name := range []string{"profdb.1", "profdb-export.1", "profdb-check.1", "profdb-completion-bash.1", "profdb-version.1"} {
		b, err := os.ReadFile(dir + "/" + name)
		if err != nil {
			t.Error(err)
			continue
		}
		if !strings.Contains(string(b), `.TH "PROFDB" "1" "Dec 2026"`) {
			t.Errorf("%s: no dated .TH line in\n%.300s", name, b)
		}
	}
	if _, err := os.Stat(dir + "/profdb-man.1"); err == nil {
		t.Error("the hidden man command has a page of its own")
	}
}

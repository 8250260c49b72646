package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// guideBlock returns the body of the first fenced block that opens with
// fence after the text from in guide.
func guideBlock(t *testing.T, guide, from, fence string) string {
	t.Helper()
	i := strings.Index(guide, from)
	if i < 0 {
		t.Fatalf("docs/guide.md: no %q", from)
	}
	rest := guide[i:]
	j := strings.Index(rest, "\n"+fence+"\n")
	if j < 0 {
		t.Fatalf("docs/guide.md: no %s block after %q", fence, from)
	}
	rest = rest[j+len(fence)+2:]
	k := strings.Index(rest, "```\n")
	if k < 0 {
		t.Fatalf("docs/guide.md: the %s block after %q is not closed", fence, from)
	}
	return rest[:k]
}

// shellWords splits a command line as sh does for the guide's commands:
// words separated by blanks, '…' and "…" quoting (no escapes inside), and
// a # comment at the start of a word.
func shellWords(t *testing.T, line string) []string {
	t.Helper()
	var words []string
	var w strings.Builder
	inWord := false
	for i := 0; i < len(line); i++ {
		switch c := line[i]; {
		case c == ' ' || c == '\t':
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
		case c == '#' && !inWord:
			return words
		case c == '\'' || c == '"':
			end := strings.IndexByte(line[i+1:], c)
			if end < 0 {
				t.Fatalf("unclosed quote in %q", line)
			}
			w.WriteString(line[i+1 : i+1+end])
			i += end + 1
			inWord = true
		default:
			w.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, w.String())
	}
	return words
}

// The guide's worked example of check: the CI script is run line by line
// on the files of testdata/calc — its go test lines make the shard
// profiles checked in there (when go is on PATH), its git diff is the
// checked-in change.diff the guide shows, and its profdb lines print
// exactly the output the guide shows.
func TestCheckGuideWorkedExample(t *testing.T) {
	const heading = "### A worked example: two runs in CI\n"
	guide := readRepoFile(t, "docs/guide.md")
	script := guideBlock(t, guide, heading, "```sh")
	diffShown := guideBlock(t, guide, heading, "```diff")
	want := guideBlock(t, guide, "What profdb prints", "```")

	src := filepath.Join("testdata", "calc")
	dir := t.TempDir()
	files := map[string][]byte{}
	for _, name := range []string{"go.mod", "calc.go", "calc_test.go", "shard1.out", "shard2.out", "change.diff"} {
		b, err := os.ReadFile(filepath.Join(src, name))
		if err != nil {
			t.Fatal(err)
		}
		files[name] = b
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if diffShown != string(files["change.diff"]) {
		t.Errorf("docs/guide.md shows the diff\n%s\ntestdata/calc/change.diff is\n%s", diffShown, files["change.diff"])
	}
	t.Chdir(dir)

	var out strings.Builder
	ranProfdb := 0
	for _, line := range strings.Split(script, "\n") {
		words := shellWords(t, line)
		switch {
		case len(words) == 0 || line == "set -eu":
		case words[0] == "export" && len(words) == 2 && strings.Contains(words[1], "="):
			name, value, _ := strings.Cut(words[1], "=")
			t.Setenv(name, value)
		case words[0] == "go" && len(words) > 1 && words[1] == "test":
			var profile string
			for _, w := range words {
				if p, ok := strings.CutPrefix(w, "-coverprofile="); ok {
					profile = p
				}
			}
			if files[profile] == nil {
				t.Fatalf("%q: the profile is not one of testdata/calc's", line)
			}
			if _, err := exec.LookPath("go"); err != nil {
				if os.Getenv("CI") == "true" {
					t.Fatalf("go is not on PATH (CI=true: the guide's profiles must be remade): %v", err)
				}
				t.Logf("go is not on PATH: the checked-in %s stands for %q", profile, line)
				continue
			}
			c := exec.Command(words[0], words[1:]...)
			c.Env = append(os.Environ(), "GOTOOLCHAIN=local", "GOWORK=off", "GOFLAGS=")
			if b, err := c.CombinedOutput(); err != nil {
				t.Fatalf("%s: %v\n%s", line, err, b)
			}
			got, err := os.ReadFile(profile)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != string(files[profile]) {
				t.Errorf("%q writes\n%s\ntestdata/calc/%s is\n%s", line, got, profile, files[profile])
			}
		case words[0] == "git" && len(words) > 1 && words[1] == "diff" && words[len(words)-2] == ">" && files[words[len(words)-1]] != nil:
			// The checked-in diff (compared with the guide's above) is
			// already in place.
		case words[0] == "profdb":
			stdout, stderr, code := runCLI(t, words[1:]...)
			if code != 0 {
				t.Fatalf("%s: exit %d\n%s%s", line, code, stdout, stderr)
			}
			out.WriteString(stdout)
			ranProfdb++
		default:
			t.Fatalf("the guide's CI script has a line this test cannot run: %q", line)
		}
	}
	if ranProfdb < 5 {
		t.Fatalf("the guide's CI script runs profdb %d times; want export twice, compare, merge and check", ranProfdb)
	}
	if out.String() != want {
		t.Errorf("the guide's CI script prints\n%s\nthe guide shows\n%s", out.String(), want)
	}

	// Each shard alone fails the same gate, as the guide says.
	for _, c := range []struct{ inst, coverage, uncovered string }{
		{"latest~2", "line coverage 42.9%", "calc.go:19"},
		{"latest~1", "line coverage 57.1%", "calc.go:11"},
	} {
		stdout, _, code := runCLI(t, "check", c.inst, "--min-coverage", "80", "--diff", "change.diff", "--min-patch-coverage", "80")
		if code != 1 || !strings.Contains(stdout, c.coverage) || !strings.Contains(stdout, "patch coverage 50.0%") ||
			!strings.Contains(stdout, "uncovered changed lines:\n        "+c.uncovered+"\n") {
			t.Errorf("check %s: exit %d, want 1 with %s, patch coverage 50.0%% and %s uncovered\n%s", c.inst, code, c.coverage, c.uncovered, stdout)
		}
		if !strings.Contains(guide, c.coverage[len("line coverage "):]) || !strings.Contains(guide, "`"+c.uncovered+"`") {
			t.Errorf("docs/guide.md does not say that shard %s alone has %s and leaves %s uncovered", c.inst, c.coverage, c.uncovered)
		}
	}
}

// check's and merge's --help point to the guide's worked example by a
// heading the guide has.
func TestGuideWorkedExampleInHelp(t *testing.T) {
	const title = "A worked example: two runs in CI"
	if !strings.Contains(readRepoFile(t, "docs/guide.md"), "\n### "+title+"\n") {
		t.Fatalf("docs/guide.md has no heading %q", title)
	}
	for _, cmd := range []string{"check", "merge"} {
		help := mustRun(t, cmd, "--help")
		if !strings.Contains(strings.Join(strings.Fields(strings.ReplaceAll(help, "#", "")), " "), `docs/guide.md, "`+title+`"`) {
			t.Errorf("profdb %s --help does not point to docs/guide.md, %q:\n%s", cmd, title, help)
		}
	}
}

// Every shell example in the docs that pipes git diff into profdb runs
// under set -o pipefail, and in bash, whose pipefail POSIX sh (dash) lacks:
// otherwise a git diff that fails feeds profdb an empty diff, and the gate
// opens. The guide says why.
func TestDocsPipeGitDiffUnderPipefail(t *testing.T) {
	docs, err := filepath.Glob(filepath.Join("..", "..", "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	cli, err := filepath.Glob(filepath.Join("..", "..", "docs", "cli", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	pipes := 0
	for _, path := range append(append(docs, cli...), filepath.Join("..", "..", "README.md")) {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		inBlock, pipefail, shebang := false, false, ""
		lines := strings.Split(string(b), "\n")
		for i, line := range lines {
			trimmed := strings.TrimSpace(line)
			if strings.HasPrefix(trimmed, "```") {
				inBlock, pipefail, shebang = !inBlock, false, ""
				continue
			}
			if !inBlock {
				continue
			}
			if strings.HasPrefix(trimmed, "#!") {
				shebang = trimmed
			}
			if strings.HasPrefix(trimmed, "set ") && strings.Contains(trimmed, "pipefail") {
				pipefail = true
			}
			if j := strings.Index(trimmed, "git diff"); j < 0 || !strings.Contains(trimmed[j:], "|") {
				continue
			}
			next := ""
			if i+1 < len(lines) {
				next = lines[i+1]
			}
			if !strings.Contains(trimmed, "profdb") && !strings.Contains(next, "profdb") {
				continue
			}
			pipes++
			if !pipefail {
				t.Errorf("%s:%d: git diff is piped into profdb without set -o pipefail before it in its block: %q", path, i+1, trimmed)
			}
			if shebang != "" && !strings.HasSuffix(shebang, "bash") {
				t.Errorf("%s:%d: git diff is piped into profdb in a %s script: POSIX sh (dash) has no pipefail", path, i+1, shebang)
			}
		}
	}
	if pipes < 2 {
		t.Errorf("%d shell examples pipe git diff into profdb; the guide's CI job and the README's example do", pipes)
	}
	guide := readRepoFile(t, "docs/guide.md")
	for _, want := range []string{"#!/bin/bash\nset -euo pipefail", "cannot tell the two apart"} {
		if !strings.Contains(guide, want) {
			t.Errorf("docs/guide.md does not say %q", want)
		}
	}
}

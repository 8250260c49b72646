package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra/doc"
)

// cliDocsDir is the command reference, one markdown file per command,
// generated from the cobra commands by TestCLIDocs.
var cliDocsDir = filepath.Join("..", "..", "docs", "cli")

// cliDocsRegenerate is what a stale reference asks for.
const cliDocsRegenerate = "go test ./cmd/profdb -run TestCLIDocs -update"

// genCLIDocs writes the command reference of a fresh command tree into
// dir, as "profdb --help" and every "profdb COMMAND --help" describe it:
// with the help, version and completion commands and flags cobra adds when
// it runs.
func genCLIDocs(dir string) error {
	root := newRootCmd(&ledger{})
	root.InitDefaultHelpCmd()
	root.InitDefaultVersionFlag()
	root.InitDefaultCompletionCmd()
	return doc.GenMarkdownTree(root, dir)
}

// readMarkdownDir returns the .md files of dir by name.
func readMarkdownDir(t *testing.T, dir string) map[string]string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	files := map[string]string{}
	for _, e := range entries {
		if e.IsDir() || filepath.Ext(e.Name()) != ".md" {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		files[e.Name()] = string(b)
	}
	return files
}

// TestCLIDocs keeps docs/cli in step with the commands: every file there is
// what cobra/doc generates now, and nothing else is there. With -update it
// rewrites docs/cli instead (and removes the files of commands that are
// gone).
func TestCLIDocs(t *testing.T) {
	tmp := t.TempDir()
	if err := genCLIDocs(tmp); err != nil {
		t.Fatal(err)
	}
	want := readMarkdownDir(t, tmp)
	if len(want) < len(commands)+1 {
		t.Fatalf("generated %d files for %d commands and the root", len(want), len(commands))
	}
	got := readMarkdownDir(t, cliDocsDir)
	if *update {
		if err := os.MkdirAll(cliDocsDir, 0o755); err != nil {
			t.Fatal(err)
		}
		for name := range got {
			if _, ok := want[name]; !ok {
				if err := os.Remove(filepath.Join(cliDocsDir, name)); err != nil {
					t.Fatal(err)
				}
			}
		}
		for name, text := range want {
			if got[name] != text {
				if err := os.WriteFile(filepath.Join(cliDocsDir, name), []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
		return
	}
	var stale []string
	for name, text := range want {
		switch g, ok := got[name]; {
		case !ok:
			stale = append(stale, name+" is missing")
		case g != text:
			stale = append(stale, name+" differs")
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			stale = append(stale, name+" documents no command")
		}
	}
	if len(stale) > 0 {
		slices.Sort(stale)
		t.Errorf("docs/cli is out of date with the commands (%s); regenerate it with:\n\t%s", strings.Join(stale, "; "), cliDocsRegenerate)
	}
}

// TestCLIDocsDeterministic: the reference does not depend on the day, the
// environment or the terminal, so that it stays the same until the commands
// change.
func TestCLIDocsDeterministic(t *testing.T) {
	a := t.TempDir()
	if err := genCLIDocs(a); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PROFDB_DB", "postgres://u:secret@elsewhere/db")
	t.Setenv("PROFDB_SCHEMA", "other")
	t.Setenv("COLUMNS", "37")
	b := t.TempDir()
	if err := genCLIDocs(b); err != nil {
		t.Fatal(err)
	}
	first, second := readMarkdownDir(t, a), readMarkdownDir(t, b)
	for name, text := range first {
		if strings.Contains(text, "Auto generated") {
			t.Errorf("%s: carries cobra's dated footer (DisableAutoGenTag is off)", name)
		}
		if second[name] != text {
			t.Errorf("%s: differs between two runs", name)
		}
	}
	if len(first) != len(second) {
		t.Errorf("%d files, then %d", len(first), len(second))
	}
	for _, name := range []string{"profdb.md", "profdb_export.md", "profdb_completion_bash.md"} {
		if _, ok := first[name]; !ok {
			t.Errorf("no %s among %d files", name, len(first))
		}
	}
}

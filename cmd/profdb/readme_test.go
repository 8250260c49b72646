package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// readRepoFile reads a file of the repository, relative to its root.
func readRepoFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The README's install commands work from a clone: profdb's module is not
// published, so "go install github.com/profdb/profdb/...@version" cannot
// fetch it; and the Go version the README asks for is go.mod's.
func TestREADMEInstall(t *testing.T) {
	readme := readRepoFile(t, "README.md")
	gomod := readRepoFile(t, "go.mod")
	module := regexp.MustCompile(`(?m)^module (\S+)$`).FindStringSubmatch(gomod)
	goLine := regexp.MustCompile(`(?m)^go (\S+)$`).FindStringSubmatch(gomod)
	if module == nil || goLine == nil {
		t.Fatal("go.mod: no module or go line")
	}
	for _, m := range regexp.MustCompile(`go install (\S+)@`).FindAllStringSubmatch(readme, -1) {
		if m[1] == module[1] || strings.HasPrefix(m[1], module[1]+"/") {
			t.Errorf("README: %q cannot work: %s is not published; install from a clone", m[0], module[1])
		}
	}
	if !strings.Contains(readme, "go install ./cmd/profdb") {
		t.Error("README: no `go install ./cmd/profdb` (installing from a clone)")
	}
	versions := regexp.MustCompile(`Go (\d+\.\d+(?:\.\d+)?) or later`).FindAllStringSubmatch(readme, -1)
	if len(versions) == 0 {
		t.Error("README: does not say which Go version it needs (\"Go X or later\")")
	}
	for _, v := range versions {
		if v[1] != goLine[1] {
			t.Errorf("README asks for Go %s, go.mod's go line says %s", v[1], goLine[1])
		}
	}
}

// export --sql-out prints what docs/guide.md says it prints: result sets
// numbered by their place in the script, no INST_ID.
func TestSQLOutResultsAsDocumented(t *testing.T) {
	guide := readRepoFile(t, "docs/guide.md")
	for _, w := range []string{"`result set 1  function-trace  76 rows  \"…\"`", "`\"result_set\": 1` and `\"inst_id\": null`"} {
		if !strings.Contains(guide, w) {
			t.Errorf("docs/guide.md: no %s", w)
		}
	}
	if strings.Contains(guide, "`INST_ID` 0") {
		t.Error("docs/guide.md: still says --sql-out prints INST_ID 0")
	}
	in := filepath.Join("..", "..", "examples", "function-trace.json")
	script := filepath.Join(t.TempDir(), "run.sql")
	out := mustRun(t, "export", "--sql-out", script, "--dialect", "sqlite", in)
	if !strings.HasPrefix(out, "result set 1  function-trace  76 rows  \"") {
		t.Errorf("export --sql-out printed:\n%s", out)
	}
	var got []map[string]any
	if err := json.Unmarshal([]byte(mustRun(t, "export", "--sql-out", script, "--dialect", "sqlite", "--json", in)), &got); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0]["result_set"] != 1.0 || got[0]["inst_id"] != nil || got[0]["rows"] != 76.0 {
		t.Errorf("export --sql-out --json: %v", got)
	}
	if _, ok := got[0]["inst_id"]; !ok {
		t.Errorf("export --sql-out --json: no inst_id (null) in %v", got)
	}
}

// quickStart returns the commands of the README's "Quick start" section,
// one per line of its code blocks.
func quickStart(t *testing.T, readme string) []string {
	t.Helper()
	_, sec, ok := strings.Cut(readme, "\n## Quick start\n")
	if !ok {
		t.Fatal("README: no \"## Quick start\" section")
	}
	sec, _, _ = strings.Cut(sec, "\n## ")
	var cmds []string
	for _, block := range regexp.MustCompile("(?s)```sh\n(.*?)```").FindAllStringSubmatch(sec, -1) {
		for _, line := range strings.Split(strings.TrimSpace(block[1]), "\n") {
			cmds = append(cmds, strings.TrimSpace(line))
		}
	}
	return cmds
}

// TestREADMEQuickStart runs the README's quick start as a fresh clone
// would: the export of a shipped example into the default database,
// sqlite:profdb.db in the current folder, then list, which shows it; and
// the tests, go test ./... .
func TestREADMEQuickStart(t *testing.T) {
	cmds := quickStart(t, readRepoFile(t, "README.md"))
	const prefix = "go run ./cmd/profdb "
	var runs [][]string
	sawTest := false
	for _, c := range cmds {
		switch {
		case c == "go test ./...":
			sawTest = true
		case strings.HasPrefix(c, prefix):
			runs = append(runs, strings.Fields(strings.TrimPrefix(c, prefix)))
		default:
			t.Errorf("README quick start: %q is neither %q... nor go test ./...", c, prefix)
		}
	}
	if !sawTest {
		t.Error("README quick start: no `go test ./...`")
	}
	if len(runs) != 2 || runs[0][0] != "export" || runs[1][0] != "list" {
		t.Fatalf("README quick start: want an export, then list; got %q", runs)
	}
	// Arguments naming files of the repository are relative to its root,
	// where the README's commands run; here the current folder is a fresh
	// one, so that the default database lands there.
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	t.Chdir(dir)
	var outs []string
	for _, args := range runs {
		for i, a := range args {
			if _, err := os.Stat(filepath.Join(root, a)); err == nil && !filepath.IsAbs(a) {
				args[i] = filepath.Join(root, a)
			}
		}
		for _, a := range args {
			if strings.HasPrefix(a, "--db") {
				t.Errorf("README quick start: %q names a database; it should use the default", strings.Join(args, " "))
			}
		}
		outs = append(outs, mustRun(t, args...))
	}
	if !regexp.MustCompile(`(?m)^INST_ID 1  \S+  \d+ rows  "`).MatchString(outs[0]) {
		t.Errorf("quick start export printed:\n%s", outs[0])
	}
	if _, err := os.Stat(filepath.Join(dir, "profdb.db")); err != nil {
		t.Errorf("quick start export: no profdb.db in the current folder, as the README says: %v", err)
	}
	if !regexp.MustCompile(`(?m)^1 +\S+ +\d+ `).MatchString(outs[1]) {
		t.Errorf("quick start list printed:\n%s", outs[1])
	}
}

// markdownFiles are README.md and every .md file under docs/, relative to
// the repository root.
func markdownFiles(t *testing.T) []string {
	t.Helper()
	files := []string{"README.md"}
	err := filepath.WalkDir(filepath.Join("..", "..", "docs"), func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(path, ".md") {
			rel, err := filepath.Rel(filepath.Join("..", ".."), path)
			if err != nil {
				return err
			}
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

var (
	mdFence   = regexp.MustCompile("(?ms)^```.*?^```")
	mdLink    = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	mdHeading = regexp.MustCompile(`(?m)^#{1,6} +(.+?) *$`)
	slugDrop  = regexp.MustCompile(`[^\p{L}\p{N} _-]`)
)

// headingAnchors returns the anchors GitHub gives the headings of a
// markdown text: lower case, punctuation dropped, spaces as hyphens, a
// repeated one suffixed -1, -2, ...
func headingAnchors(text string) map[string]bool {
	anchors := map[string]bool{}
	seen := map[string]int{}
	for _, m := range mdHeading.FindAllStringSubmatch(mdFence.ReplaceAllString(text, ""), -1) {
		a := strings.ReplaceAll(slugDrop.ReplaceAllString(strings.ToLower(m[1]), ""), " ", "-")
		if n := seen[a]; n > 0 {
			anchors[fmt.Sprintf("%s-%d", a, n)] = true
		} else {
			anchors[a] = true
		}
		seen[a]++
	}
	return anchors
}

func TestHeadingAnchors(t *testing.T) {
	got := headingAnchors("# profdb\n## export --sql-out: a script\n```\n# not a heading\n```\n## PROFDB_RESULT_SETS: INST_IDs are never reused\n### show: one result set's figures\n## Notes\n## Notes\n")
	for _, want := range []string{"profdb", "export---sql-out-a-script", "profdb_result_sets-inst_ids-are-never-reused", "show-one-result-sets-figures", "notes", "notes-1"} {
		if !got[want] {
			t.Errorf("no anchor %q in %v", want, got)
		}
	}
	if got["not-a-heading"] {
		t.Error("a line in a code block counted as a heading")
	}
}

// TestDocLinks: every relative link of the README and docs/ names a file or
// folder of the repository, and every #anchor a heading of its target.
func TestDocLinks(t *testing.T) {
	files := markdownFiles(t)
	if len(files) < 10 {
		t.Fatalf("found %d markdown files: %v", len(files), files)
	}
	for _, f := range files {
		text := mdFence.ReplaceAllString(readRepoFile(t, f), "")
		for _, m := range mdLink.FindAllStringSubmatch(text, -1) {
			link := m[1]
			if strings.Contains(link, "://") || strings.HasPrefix(link, "mailto:") {
				continue
			}
			target, anchor, _ := strings.Cut(link, "#")
			path := f
			if target != "" {
				path = filepath.ToSlash(filepath.Join(filepath.Dir(f), target))
				if _, err := os.Stat(filepath.Join("..", "..", path)); err != nil {
					t.Errorf("%s: link %s: %v", f, link, err)
					continue
				}
			}
			if anchor != "" && !headingAnchors(readRepoFile(t, path))[anchor] {
				t.Errorf("%s: link %s: %s has no heading #%s", f, link, path, anchor)
			}
		}
	}
}

package main

import (
	"encoding/json"
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

// export --sql-out prints what the README says it prints: result sets
// numbered by their place in the script, no INST_ID.
func TestSQLOutResultsAsDocumented(t *testing.T) {
	readme := readRepoFile(t, "README.md")
	for _, w := range []string{"`result set 1  function-trace  76 rows  \"…\"`", "`\"result_set\": 1` and `\"inst_id\": null`"} {
		if !strings.Contains(readme, w) {
			t.Errorf("README: no %s", w)
		}
	}
	if strings.Contains(readme, "`INST_ID` 0") {
		t.Error("README: still says --sql-out prints INST_ID 0")
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

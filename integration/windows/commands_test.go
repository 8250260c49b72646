package windows

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every command on SQLite, with the database named the ways a Windows
// user names it: relative, by drive letter with backslashes, on C:.
func TestEveryCommandOnSQLite(t *testing.T) {
	needWine(t)
	dir := t.TempDir()
	ex := examples(t)
	cLinux, cWin := driveC(t)
	lc := winPath(filepath.Join(ex, "light-coverage.json"))

	// export: relative DSN, files by Windows names, twice the same
	// coverage (sets 1 and 2), a trace (set 3), AQTime's own XML (sets 4
	// to 7).
	mustWin(t, dir, "export", "--db", "sqlite:p.db", lc)
	mustWin(t, dir, "export", "--db", "sqlite:p.db", "--label", "suite=ünïcode", lc)
	mustWin(t, dir, "export", "--db", "sqlite:p.db", winPath(filepath.Join(ex, "function-trace.json")))
	mustWin(t, dir, "export", "--db", "sqlite:p.db", winPath(filepath.Join(ex, "profilerj", "snapshot.xml")))
	// The same database by its absolute Windows name, and a new one on C:.
	abs := "sqlite:" + winPath(filepath.Join(dir, "p.db"))
	mustWin(t, dir, "export", "--db", abs, winPath(filepath.Join(ex, "resource.json")))
	mustWin(t, dir, "export", "--db", `sqlite:`+cWin+`\c.db`, lc)
	if _, err := os.Stat(filepath.Join(cLinux, "c.db")); err != nil {
		t.Errorf("export to %s\\c.db: %v", cWin, err)
	}

	var sets []struct {
		InstID int64 `json:"inst_id"`
	}
	if err := json.Unmarshal([]byte(mustWin(t, dir, "list", "--db", abs, "--json")), &sets); err != nil {
		t.Fatal(err)
	}
	if len(sets) != 8 {
		t.Fatalf("list --json: %d result sets, want 8", len(sets))
	}
	if out := mustWin(t, dir, "list", "--db", "sqlite:p.db", "--label", "suite=ünïcode"); !strings.Contains(out, "ünïcode") {
		t.Errorf("list --label suite=ünïcode: no UTF-8 label in\n%s", out)
	}
	if out := mustWin(t, dir, "show", "--db", "sqlite:p.db", "1"); !strings.Contains(out, "%") {
		t.Errorf("show 1:\n%s", out)
	}
	mustWin(t, dir, "show", "--db", "sqlite:p.db", "--json", "3")
	mustWin(t, dir, "compare", "--db", "sqlite:p.db", "1", "2")
	wantWin(t, dir, 1, nil, "compare", "--db", "sqlite:p.db", "1", "3")
	mustWin(t, dir, "trend", "--db", "sqlite:p.db", "--profiler", "light-coverage")
	mustWin(t, dir, "verify", "--db", "sqlite:p.db")
	mustWin(t, dir, "check", "--db", "sqlite:p.db", "2", "--min-coverage", "1", "--baseline", "1", "--max-drop", "0")
	wantWin(t, dir, 1, nil, "check", "--db", "sqlite:p.db", "2", "--min-coverage", "100")
	mustWin(t, dir, "report", "--db", "sqlite:p.db", "--inst", "1", "-o", "report.html")
	mustWin(t, dir, "report", "--db", "sqlite:p.db", "--compare", "1", "2", "-o", winPath(filepath.Join(dir, "cmp.html")))
	mustWin(t, dir, "merge", "--db", "sqlite:p.db", "1", "2", "--caption", "merged ✓")
	mustWin(t, dir, "copy", "--from", "sqlite:p.db", "--to", `sqlite:`+cWin+`\copy.db`, "--inst", "1-3")
	if out := mustWin(t, dir, "list", "--db", `sqlite:`+cWin+`\copy.db`); strings.Count(out, "\n") < 3 {
		t.Errorf("list of the copy:\n%s", out)
	}
	mustWin(t, dir, "delete", "--db", "sqlite:p.db", "--inst", "4")
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	mustWin(t, dir, "script", "--dialect", "sqlite", "-o", `sub\script.sql`, lc)
	mustWin(t, dir, "ddl", "--dialect", "sqlite", "-o", winPath(filepath.Join(dir, "ddl.sql")))
	mustWin(t, dir, "ddl", "--upgrade", "--db", "sqlite:p.db")
	if out := mustWin(t, dir, "profilers"); !strings.Contains(out, "light-coverage (8 tables)") {
		t.Errorf("profilers:\n%s", out)
	}
	for _, f := range []string{"report.html", "cmp.html", "ddl.sql", "sub/script.sql"} {
		if fi, err := os.Stat(filepath.Join(dir, f)); err != nil || fi.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	var v struct{ Version, Commit, OS, Arch string }
	if err := json.Unmarshal([]byte(mustWin(t, dir, "version", "--json")), &v); err != nil {
		t.Fatal(err)
	}
	if v.OS != "windows" || v.Arch != "amd64" {
		t.Errorf("version --json: %+v", v)
	}
	if line := mustWin(t, dir, "version"); !strings.HasPrefix(line, "profdb "+v.Version+" (") || !strings.Contains(line, "windows/amd64") {
		t.Errorf("version: %q, --json %+v", line, v)
	}
}

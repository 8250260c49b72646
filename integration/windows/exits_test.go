package windows

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/profdb/profdb/internal/dbtest"

	_ "github.com/profdb/profdb/dialects/mysql"
	_ "github.com/profdb/profdb/dialects/postgres"
	_ "github.com/profdb/profdb/dialects/sqlite"
)

// The exit statuses 0, 1 and 2 and the messages of profdb.exe are the
// Linux binary's, byte for byte, for the same command in the same folder
// (relative names, so that no path differs).
func TestExitStatusesAndMessagesAsOnLinux(t *testing.T) {
	needWine(t)
	ex := examples(t)
	lcBytes, err := os.ReadFile(filepath.Join(ex, "light-coverage.json"))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"lc.json":  string(lcBytes),
		"bad.info": crlf("TN:\nSF:C:\\src\\a.c\nDA:x,1\nend_of_record\n"),
		"bad.json": "{\"profiler\": ",
	}
	dirW, dirL := t.TempDir(), t.TempDir()
	write(t, dirW, files)
	write(t, dirL, files)
	for _, d := range []string{dirW, dirL} {
		for range 2 {
			if r := run(t, d == dirW, d, "", "export", "--db", "sqlite:p.db", "lc.json"); r.code != 0 {
				t.Fatalf("export: %v", r)
			}
		}
	}
	for _, c := range []struct {
		code int
		args []string
	}{
		{0, []string{"check", "--db", "sqlite:p.db", "2", "--min-coverage", "10"}},
		{1, []string{"check", "--db", "sqlite:p.db", "2", "--min-coverage", "100"}},
		{1, []string{"check", "--db", "sqlite:p.db", "2", "--min-coverage", "100", "--format", "json"}},
		{0, []string{"compare", "--db", "sqlite:p.db", "1", "2"}},
		{2, []string{"compare", "--db", "sqlite:p.db", "1", "99"}},
		{2, []string{"show", "--db", "sqlite:p.db", "one"}},
		{2, []string{"export", "--db", "sqlite:p.db", "bad.info"}},
		{2, []string{"export", "--db", "sqlite:p.db", "bad.json"}},
		{2, []string{"export", "--db", "sqlite:p.db", "--format", "nope", "lc.json"}},
		{2, []string{"list", "--db", "sqlite:p.db", "--no-such-flag"}},
		{2, []string{"exprot"}},
		{2, []string{"list", "--db", "nosuch://x"}},
		{2, []string{"list", "--db", "sqlite:missing.db"}},
		{0, []string{"verify", "--db", "sqlite:p.db"}},
	} {
		w := win(t, dirW, c.args...)
		l := lin(t, dirL, c.args...)
		if w.code != c.code || l.code != c.code {
			t.Errorf("profdb %s: exit %d on Windows, %d on Linux, want %d\nWindows: %v\nLinux: %v", strings.Join(c.args, " "), w.code, l.code, c.code, w, l)
			continue
		}
		if w.stdout != l.stdout || w.stderr != l.stderr {
			t.Errorf("profdb %s: Windows and Linux differ\nWindows: %v\nLinux: %v", strings.Join(c.args, " "), w, l)
		}
	}
}

// Patch coverage from a diff that git made on Windows: a file committed
// with CRLF line ends (core.autocrlf false) and one converted on checkout
// (core.autocrlf true), the whole diff saved again with CRLF by a Windows
// tool, names with backslashes in the coverage data. profdb.exe reads the
// same added lines as from the LF diff, and its report is the Linux one.
func TestCheckWithCRLFDiff(t *testing.T) {
	needWine(t)
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	repo := t.TempDir()
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "core.autocrlf=false"}, args...)...)
		cmd.Dir = repo
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	git("init", "-q")
	write(t, repo, map[string]string{
		"src/calc/calc.c": crlf("int add(int a, int b)\n{\n\treturn a + b;\n}\n"),
		"src/util/Util.c": "int one(void)\n{\n\treturn 1;\n}\n",
	})
	git("add", ".")
	git("commit", "-q", "-m", "one")
	write(t, repo, map[string]string{
		"src/calc/calc.c": crlf("int add(int a, int b)\n{\n\tint c = a + b;\n\treturn c;\n}\n\nint sub(int a, int b)\n{\n\treturn a - b;\n}\n"),
		"src/util/Util.c": "int one(void)\n{\n\treturn 1;\n}\n\nint two(void)\n{\n\treturn 2;\n}\n",
	})
	diff := git("diff")
	if !strings.Contains(diff, "\r\n") {
		t.Fatalf("the diff of a CRLF file has no CR:\n%q", diff)
	}
	// Lines 3, 4 and 9 of calc.c added and covered; 7 of Util.c added, not.
	lcov := "TN:\nSF:C:\\work\\repo\\src\\calc\\calc.c\nFN:1,add\nFN:7,sub\nFNDA:1,add\nFNDA:1,sub\nDA:1,1\nDA:3,1\nDA:4,1\nDA:9,1\nend_of_record\n" +
		"TN:\nSF:C:\\work\\repo\\src\\util\\Util.c\nFN:1,one\nFN:6,two\nFNDA:1,one\nFNDA:0,two\nDA:1,1\nDA:3,1\nDA:7,0\nend_of_record\n"
	files := map[string]string{"cov.info": crlf(lcov), "lf.diff": diff, "crlf.diff": crlf(diff)}
	dirW, dirL := t.TempDir(), t.TempDir()
	write(t, dirW, files)
	write(t, dirL, files)
	for _, d := range []string{dirW, dirL} {
		if r := run(t, d == dirW, d, "", "export", "--db", "sqlite:p.db", "cov.info"); r.code != 0 {
			t.Fatalf("export: %v", r)
		}
	}
	var outs []string
	for _, d := range []string{"lf.diff", "crlf.diff"} {
		args := []string{"check", "--db", "sqlite:p.db", "1", "--diff", d, "--min-patch-coverage", "80"}
		w := win(t, dirW, args...)
		l := lin(t, dirL, args...)
		if w.code != 1 || w.stdout != l.stdout || w.stderr != l.stderr || l.code != 1 {
			t.Errorf("check --diff %s: want exit 1 on both, the same report\nWindows: %v\nLinux: %v", d, w, l)
		}
		if !strings.Contains(w.stdout, "3 of 4") && !strings.Contains(w.stdout, "75.0%") {
			t.Errorf("check --diff %s: want 3 of 4 added lines covered (75.0%%):\n%s", d, w.stdout)
		}
		outs = append(outs, w.stdout)
	}
	if outs[0] != outs[1] {
		t.Errorf("check: the CRLF diff gives\n%s\nthe LF diff\n%s", outs[1], outs[0])
	}
	// From standard input, as "git diff | profdb check --diff -" pipes it.
	r := run(t, true, dirW, crlf(diff), "check", "--db", "sqlite:p.db", "1", "--diff", "-", "--min-patch-coverage", "70")
	if r.code != 0 || r.stdout == "" {
		t.Errorf("check --diff - (CRLF on standard input): %v", r)
	}
}

// Output files that exist are replaced whole, by name relative, absolute
// with a drive letter, or with forward slashes; a failed run leaves the old
// file as it was.
func TestOutputFilesReplaced(t *testing.T) {
	needWine(t)
	dir := t.TempDir()
	lc := winPath(filepath.Join(examples(t), "light-coverage.json"))
	mustWin(t, dir, "export", "--db", "sqlite:p.db", lc)
	old := strings.Repeat("an older, longer file\n", 10000)
	for _, c := range []struct {
		file string // under dir
		name string // as profdb.exe is given it
		args []string
	}{
		{"r.html", "r.html", []string{"report", "--db", "sqlite:p.db", "--inst", "1"}},
		{"out/r2.html", winPath(filepath.Join(dir, "out", "r2.html")), []string{"report", "--db", "sqlite:p.db", "--inst", "1"}},
		{"s.sql", "./s.sql", []string{"script", "--dialect", "sqlite", lc}},
		{"d.sql", `.\d.sql`, []string{"ddl", "--dialect", "postgres"}},
		{"x.sql", "x.sql", []string{"export", "--dialect", "sqlite", lc, "--sql-out"}},
	} {
		write(t, dir, map[string]string{c.file: old})
		args := append(append([]string{}, c.args...), "-o", c.name)
		if c.args[0] == "export" {
			args = append(append([]string{}, c.args...), c.name)
		}
		mustWin(t, dir, args...)
		b, err := os.ReadFile(filepath.Join(dir, c.file))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), "an older, longer file") || len(b) == 0 {
			t.Errorf("profdb.exe %s: %s not replaced (%d bytes)", strings.Join(args, " "), c.file, len(b))
		}
	}
	// A run that fails leaves the file that was there.
	write(t, dir, map[string]string{"keep.html": old})
	wantWin(t, dir, 2, nil, "report", "--db", "sqlite:p.db", "--inst", "99", "-o", "keep.html")
	if b, _ := os.ReadFile(filepath.Join(dir, "keep.html")); string(b) != old {
		t.Error("a failed report changed the file it would have replaced")
	}
	if entries, _ := os.ReadDir(dir); len(entries) > 0 {
		for _, e := range entries {
			if strings.HasSuffix(e.Name(), ".tmp") {
				t.Errorf("a temporary file is left: %s", e.Name())
			}
		}
	}
}

// export, show, compare and check against PostgreSQL and MariaDB over TCP:
// the servers CI runs, each in a schema or database of the test's own.
func TestServers(t *testing.T) {
	needWine(t)
	lc := winPath(filepath.Join(examples(t), "light-coverage.json"))
	ft := winPath(filepath.Join(examples(t), "function-trace.json"))
	for _, d := range []string{"postgres", "mysql"} {
		t.Run(d, func(t *testing.T) {
			dsn := dbtest.Fresh(t, d)
			dir := t.TempDir()
			mustWin(t, dir, "export", "--db", dsn, lc)
			mustWin(t, dir, "export", "--db", dsn, "--bulk", "off", lc)
			mustWin(t, dir, "export", "--db", dsn, ft)
			if out := mustWin(t, dir, "show", "--db", dsn, "1"); !strings.Contains(out, "% of lines covered") {
				t.Errorf("show 1:\n%s", out)
			}
			mustWin(t, dir, "show", "--db", dsn, "3")
			mustWin(t, dir, "compare", "--db", dsn, "1", "2")
			wantWin(t, dir, 1, nil, "compare", "--db", dsn, "1", "3")
			mustWin(t, dir, "check", "--db", dsn, "2", "--baseline", "1", "--max-drop", "0", "--min-coverage", "1")
			wantWin(t, dir, 1, nil, "check", "--db", dsn, "2", "--min-coverage", "100")
			mustWin(t, dir, "verify", "--db", dsn)
		})
	}
}

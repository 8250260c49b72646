package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/profdb/profdb/internal/resultsettest"
)

// TestScriptIsExportSQLOut: profdb script and its older spelling export
// --sql-out write the same script, but for the command the header names,
// and print the same lines; without -o the script goes to standard output
// and the lines to standard error.
func TestScriptIsExportSQLOut(t *testing.T) {
	dir := t.TempDir()
	in := writeInput(t, filepath.Join(dir, "in.json"),
		resultsettest.Full(t, "function-trace", "x", "mysql", 2, false), resultsettest.Full(t, "light-coverage", "y", "mysql", 3, false))
	for _, flags := range [][]string{
		{"--dialect", "mysql"},
		{"--dialect", "mysql", "--primary-key", "--schema", "aq", "--caption", "c"},
		{"--dialect", "sqlserver", "--no-create"},
	} {
		a, b := filepath.Join(dir, "a.sql"), filepath.Join(dir, "b.sql")
		outA := mustRun(t, append(append([]string{"script", "-o", a}, flags...), in)...)
		outB := mustRun(t, append(append([]string{"export", "--sql-out", b}, flags...), in)...)
		if outA != strings.ReplaceAll(outB, "b.sql", "a.sql") {
			t.Errorf("%v: script printed\n%s\nexport --sql-out printed\n%s", flags, outA, outB)
		}
		textA, errA := os.ReadFile(a)
		textB, errB := os.ReadFile(b)
		if errA != nil || errB != nil {
			t.Fatal(errA, errB)
		}
		wantA := strings.Replace(string(textB), "(profdb export --sql-out)", "(profdb script)", 1)
		if string(textA) != wantA || string(textA) == string(textB) {
			t.Errorf("%v: the scripts differ beyond the header's command", flags)
		}
		stdout, stderr, code := runCLI(t, append(append([]string{"script"}, flags...), in)...)
		if code != 0 || stdout != string(textA) || !strings.Contains(stderr, "result set 2  light-coverage") {
			t.Errorf("%v: script to standard output: exit %d, stderr %q, script equal: %v", flags, code, stderr, stdout == string(textA))
		}
	}
}

// TestScriptUsage: the flag combinations that make no sense are refused.
func TestScriptUsage(t *testing.T) {
	dir := t.TempDir()
	in := writeInput(t, filepath.Join(dir, "in.json"), resultsettest.Full(t, "function-trace", "x", "sqlite", 2, false))
	script := filepath.Join(dir, "out.sql")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"script", "-o", script, in}, "--dialect is required"},
		{[]string{"script", "-o", script, "--dialect", "oracle", in}, `unknown dialect "oracle"`},
		{[]string{"script", "--dialect", "sqlite", "--json", in}, "choose one"},
		{[]string{"script", "-o", script, "--dialect", "postgres", "--primary-key", in}, "--primary-key: the postgres dialect has no hidden primary key (dialects with one: mysql)"},
		{[]string{"script", "-o", script, "--dialect", "mysql", "--primary-key", "--no-create", in}, "choose one"},
		{[]string{"script", "-o", script, "--dialect", "sqlite"}, "requires at least 1 arg"},
	} {
		_, errOut, code := runCLI(t, c.args...)
		if code == 0 || !strings.Contains(errOut, c.want) {
			t.Errorf("profdb %s: exit %d, stderr %q; want %q", strings.Join(c.args, " "), code, errOut, c.want)
		}
	}
	if _, err := os.Stat(script); !os.IsNotExist(err) {
		t.Errorf("a refused command wrote %s: %v", script, err)
	}
}

package main

import (
	"fmt"
	"html"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/profdb/profdb/internal/dbtest"
	"github.com/profdb/profdb/internal/srcroot"
	"github.com/profdb/profdb/internal/srcroottest"
)

// TestSourceRootAttacks runs srcroottest's attacks through the built CLI,
// started with the secret in its environment (as PROFDB_DB's password
// would be): export of a Go coverage profile (--source-root,
// --skip-missing), of an LCOV tracefile and a Cobertura report naming the
// files, then report --source-root. No secret reaches the page, stdout or
// stderr; the refused files are warnings; the legit file is read.
func TestSourceRootAttacks(t *testing.T) {
	tr := srcroottest.New(t)
	bin := profdbBin(t)
	dir := t.TempDir()
	dsn := dbtest.Fresh(t, "sqlite")
	env := append(os.Environ(), asProfdb+"=1", srcroottest.Env, "PROFDB_DB="+dsn)
	profdb := func(args ...string) (string, string) {
		t.Helper()
		var out, errOut strings.Builder
		c := profdbCommand(bin, args...)
		c.Env, c.Stdout, c.Stderr = env, &out, &errOut
		if err := c.Run(); err != nil {
			t.Fatalf("profdb %s: %v\n%s", strings.Join(args, " "), err, errOut.String())
		}
		if leaks := tr.Leaks(out.String() + errOut.String()); len(leaks) > 0 {
			t.Errorf("profdb %s shows %q", strings.Join(args, " "), leaks)
		}
		return out.String(), errOut.String()
	}
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	var gocover, lcov, cobertura strings.Builder
	gocover.WriteString("mode: set\n")
	cobertura.WriteString(`<?xml version="1.0"?><coverage line-rate="1" lines-covered="1" lines-valid="1"><sources><source>.</source></sources><packages><package name=""><classes>`)
	names := []string{tr.Legit}
	for _, a := range tr.Attacks {
		names = append(names, a.Name)
	}
	for _, name := range names {
		if srcroot.IsAbs(name) {
			fmt.Fprintf(&gocover, "%s:4.14,6.2 1 1\n", name)
		} else {
			fmt.Fprintf(&gocover, "%s/%s:4.14,6.2 1 1\n", tr.Module, name)
		}
		fmt.Fprintf(&lcov, "SF:%s\nFN:4,f\nFNDA:1,f\nDA:4,1\nDA:5,0\nend_of_record\n", name)
		fmt.Fprintf(&cobertura, `<class name="c" filename="%s"><methods/><lines><line number="4" hits="1"/><line number="5" hits="0"/></lines></class>`, html.EscapeString(name))
	}
	cobertura.WriteString(`</classes></package></packages></coverage>`)
	_, errOut := profdb("export", "--source-root", tr.Root, "--skip-missing", write("p.out", gocover.String()))
	if n := strings.Count(errOut, "profdb: warning: "); n != len(tr.Attacks) {
		t.Errorf("export of the Go profile: %d warnings for %d attacks:\n%s", n, len(tr.Attacks), errOut)
	}
	profdb("export", write("t.info", lcov.String()))
	profdb("export", "--source-root", tr.Root, write("c.xml", cobertura.String()))

	page := filepath.Join(dir, "r.html")
	_, errOut = profdb("report", "--source-root", tr.Root, "-o", page)
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	if leaks := tr.Leaks(html.UnescapeString(string(b))); len(leaks) > 0 {
		t.Errorf("the page shows %q", leaks)
	}
	if !strings.Contains(string(b), "LegitSourceLine") {
		t.Error("the page does not show the legit source")
	}
	wants := []string{"profdb: warning: source ../../../outside/dotdot.txt refused: it lies outside the source root\n"}
	for _, a := range tr.Attacks {
		if a.Name == "link.go" { // where the system makes links
			wants = append(wants, "profdb: warning: source link.go refused: its real path lies outside the source root\n")
		}
	}
	for _, want := range wants {
		if !strings.Contains(errOut, want) {
			t.Errorf("report: messages lack %q:\n%s", want, errOut)
		}
	}
}

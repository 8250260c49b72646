package main

import (
	"strings"
	"testing"

	"github.com/profdb/profdb/internal/dbtest"
)

// TestXMLCoverageOnEveryDialect exports the reports gcovr and JaCoCo made
// (input/cobertura's and input/jacoco's testdata, detected from their
// content) into every dialect; verify passes, and export prints the
// producer's own totals.
func TestXMLCoverageOnEveryDialect(t *testing.T) {
	files := map[string]string{
		"../../input/cobertura/testdata/gcovr.xml": "lines: 75.0% (15 of 20 lines)",
		"../../input/jacoco/testdata/jacoco.xml":   "lines: 69.6% (16 of 23 lines), methods: 66.7% (6 of 9 methods)",
	}
	for _, dn := range dbtest.Dialects() {
		t.Run(dn, func(t *testing.T) {
			dsn := dbtest.Fresh(t, dn)
			for f, summary := range files {
				out, errOut, code := runCLI(t, "export", "--db", dsn, f)
				if code != 0 {
					t.Fatalf("export %s: exit %d\n%s", f, code, errOut)
				}
				if !strings.Contains(out, "light-coverage") || !strings.Contains(out+errOut, summary) {
					t.Errorf("export %s: want a light-coverage result set and %q:\n%s%s", f, summary, out, errOut)
				}
			}
			if out := mustRun(t, "verify", "--db", dsn); out != "ok\n" {
				t.Errorf("verify: %s", out)
			}
		})
	}
}

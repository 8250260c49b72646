package clitest_test

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/profdb/profdb/internal/clitest"
)

// Build gives a profdb binary that runs: its help names its commands.
func TestBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("builds profdb")
	}
	bin, err := clitest.Build(t.Context(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(bin, "--help").CombinedOutput()
	if err != nil {
		t.Fatalf("profdb --help: %v\n%s", err, out)
	}
	for _, cmd := range []string{"export", "show", "check"} {
		if !strings.Contains(string(out), cmd) {
			t.Errorf("profdb --help does not name %s:\n%s", cmd, out)
		}
	}
}

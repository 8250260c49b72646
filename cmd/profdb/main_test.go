package main

import (
	"os"
	"os/exec"
	"testing"
)

// asProfdb makes the test binary run as profdb when started with it set
// (TestMain), so that a test can run profdb as a process of its own (to
// signal it, kill it, measure it) without building it.
const asProfdb = "PROFDB_TEST_AS_PROFDB"

// TestMain makes the test binary a launcher (internal/launchtest, on Linux)
// when a test runs a command through one, and profdb itself, main and
// all, when started with asProfdb set.
func TestMain(m *testing.M) {
	launchMain()
	if os.Getenv(asProfdb) == "1" {
		main()
	}
	os.Exit(m.Run())
}

// profdbBin returns the path of the command that runs profdb, as a
// process of its own, when started with asProfdb set (profdbCommand sets
// it): this test binary. No test builds profdb but TestVersionBuildInfo,
// which tests what go build stamps into the binary.
func profdbBin(t testing.TB) string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatalf("the test binary's path: %v", err)
	}
	return self
}

// profdbCommand returns the command that runs bin (profdbBin, or a shell
// that execs it) with args and asProfdb set: profdb with args.
func profdbCommand(bin string, args ...string) *exec.Cmd {
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), asProfdb+"=1")
	return cmd
}

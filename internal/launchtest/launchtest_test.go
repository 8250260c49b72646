package launchtest_test

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"testing"

	"github.com/profdb/profdb/internal/launchtest"
)

// allocEnv makes the test binary a command that touches this many MiB.
const allocEnv = "PROFDB_LAUNCH_TEST_ALLOC"

func TestMain(m *testing.M) {
	launchtest.Main()
	if v := os.Getenv(allocEnv); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			os.Exit(2)
		}
		b := touch(n)
		fmt.Print("touched ", len(b)>>20)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func touch(mib int) []byte {
	b := make([]byte, mib<<20)
	for i := range b {
		b[i] = byte(i)
	}
	return b
}

// TestRun: the figure is the command's peak, not that of the process that
// measures it, which holds far more here.
func TestRun(t *testing.T) {
	big := touch(512)
	r, err := launchtest.Run(t.Context(), []string{allocEnv + "=96"}, os.Args[0], "-test.run=^$")
	runtime.KeepAlive(big)
	if err != nil {
		t.Fatal(err)
	}
	if r.Err != "" || r.Stdout != "touched 96" {
		t.Fatalf("command: %q, stdout %q, stderr %q", r.Err, r.Stdout, r.Stderr)
	}
	if r.MaxRSS < 96<<20 || r.MaxRSS > 256<<20 {
		t.Errorf("peak RSS %d MiB: want the command's 96 MiB and a little, not this process's 512", r.MaxRSS>>20)
	}
	if r.Elapsed <= 0 {
		t.Errorf("elapsed %v", r.Elapsed)
	}
	r, err = launchtest.Run(t.Context(), []string{allocEnv + "=x"}, os.Args[0], "-test.run=^$")
	if err != nil || r.Err != "exit status 2" {
		t.Errorf("a failing command: %+v, %v", r, err)
	}
}

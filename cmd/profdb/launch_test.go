//go:build linux

package main

import (
	"os"
	"testing"

	"github.com/profdb/profdb/internal/launch"
)

// TestMain (on Linux, where internal/launch reads peak RSS) makes the test
// binary a launcher (internal/launch) when a test runs a command through
// one, to measure the command's peak RSS alone, and profdb itself when
// started with asProfdb set.
func TestMain(m *testing.M) {
	launch.Main()
	if os.Getenv(asProfdb) == "1" {
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

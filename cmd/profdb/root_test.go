package main

import (
	"bytes"
	"strings"
	"testing"
)

// runCLI runs profdb in-process and returns its output, messages and exit
// status.
func runCLI(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = run(args, &out, &errOut)
	return out.String(), errOut.String(), code
}

// mustRun runs profdb and fails the test unless it succeeds.
func mustRun(t *testing.T, args ...string) string {
	t.Helper()
	out, errOut, code := runCLI(t, args...)
	if code != 0 {
		t.Fatalf("profdb %s: exit %d\n%s", strings.Join(args, " "), code, errOut)
	}
	return out
}

func TestHelpForEveryCommand(t *testing.T) {
	root := newRootCmd(&ledger{})
	paths := [][]string{nil}
	for _, c := range root.Commands() {
		paths = append(paths, []string{c.Name()})
	}
	if len(paths) < 4 {
		t.Fatalf("root has %d subcommands, want ddl, profilers and version at least", len(paths)-1)
	}
	for _, p := range paths {
		for _, flag := range []string{"--help", "-h"} {
			args := append(append([]string{}, p...), flag)
			out := mustRun(t, args...)
			if !strings.Contains(out, "Usage:") {
				t.Errorf("profdb %s: no usage in\n%s", strings.Join(args, " "), out)
			}
		}
	}
	// "profdb help ddl" and "profdb" alone print help too.
	if out := mustRun(t, "help", "ddl"); !strings.Contains(out, "--dialect") {
		t.Errorf("profdb help ddl:\n%s", out)
	}
	if out := mustRun(t); !strings.Contains(out, "Available Commands:") {
		t.Errorf("profdb:\n%s", out)
	}
}

func TestUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"no-such-command"},
		{"ddl", "--no-such-flag"},
		{"ddl", "--dialect"},
		{"ddl", "--dialect", "sqlite", "extra"},
		{"version", "extra"},
	} {
		out, errOut, code := runCLI(t, args...)
		if code == 0 {
			t.Errorf("profdb %s: exit 0", strings.Join(args, " "))
		}
		if out != "" {
			t.Errorf("profdb %s: wrote to stdout:\n%s", strings.Join(args, " "), out)
		}
		if !strings.HasPrefix(errOut, "profdb: ") || !strings.Contains(errOut, "--help") {
			t.Errorf("profdb %s: stderr %q, want a \"profdb: \" message and a pointer to --help", strings.Join(args, " "), errOut)
		}
		if strings.Contains(errOut, "Usage:") {
			t.Errorf("profdb %s: usage printed on error:\n%s", strings.Join(args, " "), errOut)
		}
	}
}

func TestVersion(t *testing.T) {
	if out := mustRun(t, "version"); !strings.HasPrefix(out, "profdb ") {
		t.Errorf("profdb version: %q", out)
	}
}

// TestCommandsAreIndependent checks that building the command tree twice
// shares no flag state (tests and future commands rely on it).
func TestCommandsAreIndependent(t *testing.T) {
	mustRun(t, "ddl", "--dialect", "sqlite", "--profiler", "resource")
	out := mustRun(t, "ddl", "--dialect", "sqlite")
	if !strings.Contains(out, "FUNCTION_TRACE_PROFILER_THREADS") {
		t.Error("--profiler of an earlier run leaked into the next")
	}
}

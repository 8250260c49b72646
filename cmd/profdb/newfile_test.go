package main

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestConcurrentExportsIntoNewFile: two exports into an SQLite file that
// does not exist yet, each a process of its own reading its input from
// standard input: the first creates the file, the second opens it, then
// the first fails on bad input, then the second gets its input. The
// second's result set is in the file afterwards, and the first left
// nothing else. (The first removed the empty file it had created while
// the second had it open: the second's export failed with "disk I/O
// error", or, had a third command made the file anew meanwhile, went
// into the removed file and was lost.)
func TestConcurrentExportsIntoNewFile(t *testing.T) {
	if _, err := os.Stat("/proc/self/fd"); err != nil {
		t.Skip("needs /proc/PID/fd to see when a process has the file open")
	}
	bin := profdbBin(t)
	path := filepath.Join(t.TempDir(), "new.db")
	dsn := "sqlite:" + path
	first, firstIn := startExport(t, bin, dsn)
	waitOpen(t, first, path)
	second, secondIn := startExport(t, bin, dsn)
	waitOpen(t, second, path)

	if _, err := io.WriteString(firstIn, "{bad"); err != nil {
		t.Fatal(err)
	}
	firstIn.Close()
	if err := first.Wait(); first.ProcessState.ExitCode() != 2 {
		t.Fatalf("the export of bad input: %v; want exit 2\n%s", err, first.Stderr)
	}
	if _, err := secondIn.Write(mustRead(t, "../../examples/light-coverage.json")); err != nil {
		t.Fatal(err)
	}
	secondIn.Close()
	if err := second.Wait(); err != nil || !strings.HasPrefix(second.Stdout.(*strings.Builder).String(), "INST_ID 1  light-coverage  ") {
		t.Fatalf("the export that had the file open: %v\n%s%s", err, second.Stdout, second.Stderr)
	}
	if out, errOut, code := runCLI(t, "list", "--db", dsn); code != 0 || !strings.Contains(out, "light-coverage") {
		t.Errorf("list after the export into %s: exit %d\n%s%s", path, code, out, errOut)
	}
}

// startExport starts profdb export --db dsn reading standard input, a
// process of its own, and returns it with its standard input.
func startExport(t *testing.T, bin, dsn string) (*exec.Cmd, io.WriteCloser) {
	t.Helper()
	cmd := profdbCommand(bin, "export", "--db", dsn, "-")
	cmd.Stdout, cmd.Stderr = new(strings.Builder), new(strings.Builder)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	return cmd, in
}

// waitOpen waits until the process cmd has the file at path open.
func waitOpen(t *testing.T, cmd *exec.Cmd, path string) {
	t.Helper()
	fds := filepath.Join("/proc", strconv.Itoa(cmd.Process.Pid), "fd")
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		entries, err := os.ReadDir(fds)
		if err != nil {
			t.Fatalf("profdb %s: %v\n%s", strings.Join(cmd.Args[1:], " "), err, cmd.Stderr)
		}
		for _, e := range entries {
			if target, err := os.Readlink(filepath.Join(fds, e.Name())); err == nil && target == path {
				return
			}
		}
	}
	t.Fatalf("profdb %s did not open %s within a minute", strings.Join(cmd.Args[1:], " "), path)
}

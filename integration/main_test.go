package integration

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/profdb/profdb/input/interchange"
	"github.com/profdb/profdb/internal/clitest"
	"github.com/profdb/profdb/resultset"
)

// profdbBin is the profdb command built for the tests.
var profdbBin string

func TestMain(m *testing.M) {
	// Before any container starts: see PrepareDocker.
	if msg := PrepareDocker(); msg != "" {
		fmt.Fprintln(os.Stderr, msg)
	}
	// Interrupted (Ctrl-C, a CI job cancelled): remove the containers this
	// binary started before going. Without Ryuk nothing else would.
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		sig := <-sigs
		fmt.Fprintf(os.Stderr, "integration: %v: removing the suite's containers\n", sig)
		if err := RemoveOwnContainers(); err != nil {
			fmt.Fprintf(os.Stderr, "integration: %v\n", err)
		}
		os.Exit(1)
	}()
	code := func() int {
		dir, err := os.MkdirTemp("", "profdb-integration-")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer os.RemoveAll(dir)
		// Built in profdb's own module, with its own go.sum.
		profdbBin, err = clitest.Build(context.Background(), dir)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer Shutdown()
		return m.Run()
	}()
	os.Exit(code)
}

// profdb runs the profdb command and returns its output, messages and exit
// status.
func profdb(t testing.TB, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, profdbBin, args...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	code = 0
	if err != nil {
		code = -1
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
	}
	return out.String(), errOut.String(), code
}

// mustProfdb runs profdb and fails the test unless it succeeds. Arguments
// are not printed: they hold DSNs.
func mustProfdb(t testing.TB, args ...string) string {
	t.Helper()
	out, errOut, code := profdb(t, args...)
	if code != 0 {
		t.Fatalf("profdb %s: exit %d\n%s", args[0], code, errOut)
	}
	return out
}

// writeInput writes fixtures as one interchange JSON file in the test's
// temporary folder.
func writeInput(t testing.TB, name string, sets ...*Fixture) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tgt := interchange.NewTarget(f)
	for _, s := range sets {
		if _, err := resultset.Export(context.Background(), tgt, s.ResultSet()); err != nil {
			t.Fatal(err)
		}
	}
	return path
}

// instLine matches the line export prints for a result set, and the
// target side of copy's line.
var instLine = regexp.MustCompile(`(?m)^(?:INST_ID \d+ -> )?INST_ID (\d+) `)

// instIDs returns the INST_IDs that export or copy printed.
func instIDs(t testing.TB, out string) []int64 {
	t.Helper()
	var ids []int64
	for _, m := range instLine.FindAllStringSubmatch(out, -1) {
		var id int64
		fmt.Sscan(m[1], &id)
		ids = append(ids, id)
	}
	return ids
}

// noSecret fails the test when a password shows in some output.
func noSecret(t testing.TB, secret string, outputs ...string) {
	t.Helper()
	for _, o := range outputs {
		if secret != "" && strings.Contains(o, secret) {
			t.Errorf("the password shows in the output:\n%s", o)
		}
	}
}

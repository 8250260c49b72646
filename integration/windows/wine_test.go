package windows

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/profdb/profdb/internal/clitest"
)

// The binaries under test: profdb.exe run by Wine, and the Linux profdb
// whose statuses and messages the Windows one must give too.
var (
	exe    string // PROFDB_TEST_WINE_EXE
	wine   string // the wine launcher
	prefix string // WINEPREFIX
	linux  string // PROFDB_TEST_LINUX_BIN, else built from this checkout
)

func TestMain(m *testing.M) {
	os.Exit(func() int {
		exe = os.Getenv("PROFDB_TEST_WINE_EXE")
		if exe == "" {
			fmt.Println("windows: PROFDB_TEST_WINE_EXE is not set: every test skips (.ci/wine-check sets it and runs this suite)")
			return m.Run()
		}
		if err := setUp(); err != nil {
			fmt.Fprintln(os.Stderr, "windows:", err)
			return 1
		}
		// One Wine server for the whole run, so that each profdb.exe
		// starts in a fraction of a second; stopped at the end.
		// (It fails when one runs already, which serves as well.)
		exec.Command("wineserver", "-p").Run()
		defer exec.Command("wineserver", "-k").Run()
		dir, err := os.MkdirTemp("", "profdb-wine-")
		if err != nil {
			fmt.Fprintln(os.Stderr, "windows:", err)
			return 1
		}
		defer os.RemoveAll(dir)
		if linux == "" {
			if linux, err = clitest.Build(context.Background(), dir); err != nil {
				fmt.Fprintln(os.Stderr, "windows:", err)
				return 1
			}
		}
		return m.Run()
	}())
}

// setUp checks what the suite runs with: Wine, a prefix holding the shim,
// the binaries.
func setUp() error {
	var err error
	if wine, err = exec.LookPath("wine"); err != nil {
		if wine, err = exec.LookPath("wine64"); err != nil {
			return errors.New("PROFDB_TEST_WINE_EXE is set but Wine is not installed (apt-get install wine64)")
		}
	}
	if exe, err = filepath.Abs(exe); err != nil {
		return err
	}
	if _, err := os.Stat(exe); err != nil {
		return fmt.Errorf("PROFDB_TEST_WINE_EXE: %w", err)
	}
	prefix = os.Getenv("WINEPREFIX")
	if prefix == "" {
		return errors.New("WINEPREFIX is not set: run the suite through .ci/wine-check, which makes the prefix")
	}
	shim := filepath.Join(prefix, "drive_c", "windows", "system32", "bcryptprimitives.dll")
	if _, err := os.Stat(shim); err != nil {
		return fmt.Errorf("the Wine prefix has no bcryptprimitives.dll (Go's runtime needs its ProcessPrng; .ci/wine-check builds it from shim/bcryptprimitives.c): %w", err)
	}
	os.Setenv("WINEDEBUG", "-all")
	if linux = os.Getenv("PROFDB_TEST_LINUX_BIN"); linux != "" {
		if linux, err = filepath.Abs(linux); err != nil {
			return err
		}
	}
	return nil
}

// needWine skips a test when the suite runs without a Windows binary.
func needWine(t *testing.T) {
	t.Helper()
	if exe == "" {
		t.Skip("PROFDB_TEST_WINE_EXE is not set (.ci/wine-check sets it)")
	}
}

// result is what a profdb run gave.
type result struct {
	stdout, stderr string
	code           int
}

func (r result) String() string {
	return fmt.Sprintf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
}

// run runs bin (through Wine when windows) in the folder dir with args,
// and stdin as its standard input.
func run(t *testing.T, windows bool, dir, stdin string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	var cmd *exec.Cmd
	if windows {
		cmd = exec.CommandContext(ctx, wine, append([]string{exe}, args...)...)
	} else {
		cmd = exec.CommandContext(ctx, linux, args...)
	}
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(stdin)
	// Files, not pipes: Wine's helper processes (wineserver, services.exe)
	// inherit the output handles and outlive profdb.exe, so a pipe would
	// not reach its end when profdb.exe does.
	stdout, stderr := outFile(t), outFile(t)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	err := cmd.Run()
	var ee *exec.ExitError
	code := 0
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		t.Fatalf("%s: %v", strings.Join(args, " "), err)
	}
	if ctx.Err() != nil {
		t.Fatalf("profdb %s: did not end within 3 minutes", strings.Join(args, " "))
	}
	r := result{readOut(t, stdout), readOut(t, stderr), code}
	if windows {
		r.stderr = withoutWineNoise(t, r.stderr)
	}
	// profdb never fails without a word; Wine, on a loaded machine, has
	// once failed to start profdb.exe with exit 1 and no output at all.
	// Such a run is tried once more.
	if windows && r.code != 0 && r.stdout == "" && r.stderr == "" && !retried(t) {
		t.Logf("profdb.exe %s: exit %d with no output: Wine did not start it? trying once more", strings.Join(args, " "), r.code)
		return run(t, windows, dir, stdin, args...)
	}
	return r
}

// withoutWineNoise returns stderr without the lines that Wine's own
// client writes there ("wine client error:…: sendmsg: Bad file
// descriptor", seen once on a loaded machine while the output files were
// shared with Wine's helper processes): they are Wine's, not profdb.exe's,
// and WINEDEBUG does not silence them. Each line left out is logged.
func withoutWineNoise(t *testing.T, stderr string) string {
	t.Helper()
	lines := strings.SplitAfter(stderr, "\n")
	kept := lines[:0]
	for _, l := range lines {
		if strings.HasPrefix(l, "wine client error:") {
			t.Logf("Wine's own message left out of profdb.exe's stderr: %q", l)
			continue
		}
		kept = append(kept, l)
	}
	return strings.Join(kept, "")
}

// retried reports whether t has retried a silent run already, and marks it.
func retried(t *testing.T) bool {
	if retries[t.Name()] {
		return true
	}
	retries[t.Name()] = true
	return false
}

// retries are the tests that retried a silent run (tests do not run in
// parallel here).
var retries = map[string]bool{}

// outFile is a temporary file for a command's output.
func outFile(t *testing.T) *os.File {
	t.Helper()
	f, err := os.CreateTemp("", "profdb-wine-out-")
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(f.Name())
	t.Cleanup(func() { f.Close() })
	return f
}

// readOut reads what was written to f.
func readOut(t *testing.T, f *os.File) string {
	t.Helper()
	b, err := os.ReadFile("/proc/self/fd/" + strconv.Itoa(int(f.Fd())))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// win runs profdb.exe under Wine in dir.
func win(t *testing.T, dir string, args ...string) result {
	t.Helper()
	return run(t, true, dir, "", args...)
}

// lin runs the Linux profdb in dir.
func lin(t *testing.T, dir string, args ...string) result {
	t.Helper()
	return run(t, false, dir, "", args...)
}

// mustWin runs profdb.exe and fails the test unless it exits 0.
func mustWin(t *testing.T, dir string, args ...string) string {
	t.Helper()
	r := win(t, dir, args...)
	if r.code != 0 {
		t.Fatalf("profdb.exe %s: %v", strings.Join(args, " "), r)
	}
	return r.stdout
}

// wantWin runs profdb.exe and checks its exit status and that its
// standard error holds each of msgs.
func wantWin(t *testing.T, dir string, code int, msgs []string, args ...string) result {
	t.Helper()
	r := win(t, dir, args...)
	if r.code != code {
		t.Errorf("profdb.exe %s: want exit %d, got %v", strings.Join(args, " "), code, r)
		return r
	}
	for _, m := range msgs {
		if !strings.Contains(r.stderr, m) {
			t.Errorf("profdb.exe %s: stderr lacks %q:\n%s", strings.Join(args, " "), m, r.stderr)
		}
	}
	return r
}

// winPath is the Windows name of the Linux path p: Wine's drive Z: is /.
func winPath(p string) string {
	return `Z:` + strings.ReplaceAll(p, "/", `\`)
}

// driveC makes a fresh folder on the prefix's drive C: for the test and
// returns its Linux path and its name as C:\…; it is removed at the end.
func driveC(t *testing.T) (linux, windows string) {
	t.Helper()
	b := make([]byte, 4)
	rand.Read(b)
	name := "profdb-e2e-" + hex.EncodeToString(b)
	linux = filepath.Join(prefix, "drive_c", name)
	if err := os.Mkdir(linux, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(linux) })
	return linux, `C:\` + name
}

// write writes files (slash-separated names under dir) with their text.
func write(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// crlf turns the line ends of s into CRLF.
func crlf(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\n", "\r\n")
}

// examples is the folder of profdb's example inputs.
func examples(t *testing.T) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("..", "..", "examples"))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

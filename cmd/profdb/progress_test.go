package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/profdb/profdb/store"
)

// --progress=plain prints a line now and then with the phase, rows, rows
// per second, % of the total and the time left, and one at each phase.
func TestProgressPlain(t *testing.T) {
	var buf bytes.Buffer
	p, err := newProgress(&buf, "plain", false, false, 1000)
	if err != nil {
		t.Fatal(err)
	}
	clock := p.start
	p.now = func() time.Time { return clock }
	clock = clock.Add(5 * time.Second)
	p.set(100) // before the interval: no line
	if buf.Len() != 0 {
		t.Fatalf("a line before the interval: %q", buf.String())
	}
	clock = clock.Add(5 * time.Second)
	p.set(250)
	want := "profdb: progress: writing, 250 rows, 25 rows/s, 25% of 1,000 rows, about 30s left\n"
	if buf.String() != want {
		t.Fatalf("plain line %q, want %q", buf.String(), want)
	}
	buf.Reset()
	p.setPhase(store.PhaseCommit)
	if !strings.HasPrefix(buf.String(), "profdb: progress: committing, 250 rows") {
		t.Errorf("phase line %q", buf.String())
	}

	// Input bytes as the unit (export).
	buf.Reset()
	p, _ = newProgress(&buf, "plain", false, true, 2_000_000)
	clock = p.start
	p.now = func() time.Time { return clock }
	p.set(1000)
	p.read(500_000)
	clock = clock.Add(20 * time.Second)
	p.read(0)
	if got := buf.String(); !strings.Contains(got, "25% of 2.0 MB read") || !strings.Contains(got, "1,000 rows, 50 rows/s") || !strings.Contains(got, "about 1m0s left") {
		t.Errorf("plain line of an export: %q", got)
	}

	// Off: --quiet or --progress=off; a bar only on a terminal.
	for _, c := range []struct {
		mode  string
		quiet bool
	}{{"plain", true}, {"off", false}, {"auto", false}, {"bar", false}} {
		buf.Reset()
		p, _ := newProgress(&buf, c.mode, c.quiet, false, 10)
		p.interval = 0
		p.set(5)
		p.setPhase(store.PhaseCommit)
		if buf.Len() != 0 {
			t.Errorf("--progress=%s, quiet %v, not a terminal: printed %q", c.mode, c.quiet, buf.String())
		}
	}
	if _, err := newProgress(&buf, "fancy", false, false, 10); err == nil {
		t.Error("--progress=fancy accepted")
	}
}

// export and copy report the phases after loading, take --quiet and
// --progress, and print nothing of it by default off a terminal.
func TestProgressOfExportAndCopy(t *testing.T) {
	dir := t.TempDir()
	db := "sqlite:" + filepath.Join(dir, "p.db")
	ft := filepath.Join("..", "..", "examples", "function-trace.json")
	_, stderr, code := runCLI(t, "export", "--db", db, "--progress=plain", ft)
	if code != 0 || !strings.Contains(stderr, "profdb: progress: committing, 76 rows, ") || !strings.Contains(stderr, "100% of 14 kB read") {
		t.Errorf("export --progress=plain: exit %d\n%s", code, stderr)
	}
	if _, stderr, code := runCLI(t, "export", "--db", db, ft); code != 0 || stderr != "" {
		t.Errorf("export off a terminal: exit %d, printed\n%s", code, stderr)
	}
	to := "sqlite:" + filepath.Join(dir, "q.db")
	_, stderr, code = runCLI(t, "copy", "--from", db, "--to", to, "--progress=plain")
	if code != 0 || strings.Count(stderr, "profdb: progress: committing, ") != 2 || !strings.Contains(stderr, "% of 152 rows") {
		t.Errorf("copy --progress=plain: exit %d\n%s", code, stderr)
	}
	if _, stderr, code := runCLI(t, "copy", "--from", db, "--to", to, "--quiet", "--progress=plain"); code != 0 || stderr != "" {
		t.Errorf("copy --quiet: exit %d, printed\n%s", code, stderr)
	}
	if _, stderr, code := runCLI(t, "copy", "--from", db, "--to", to, "--progress=fancy"); code == 0 || !strings.Contains(stderr, "want auto, bar, plain or off") {
		t.Errorf("copy --progress=fancy: exit %d\n%s", code, stderr)
	}
}

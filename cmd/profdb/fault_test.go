package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"net"
	"net/url"
	"os"
	"os/exec"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/profdb/profdb/exporter"
	"github.com/profdb/profdb/internal/dbtest"
	"github.com/profdb/profdb/store"
)

// exitBound is how long a faulted command may take to end, from the
// fault (or the signal) to its exit: a failure bound, far above the 2
// seconds profdb aims at, not a speed assertion.
const exitBound = 10 * time.Second

// proxy is a TCP forwarder on 127.0.0.1 between profdb and a database
// server that can stop forwarding (a stalled network: connections stay
// open, nothing moves) and cut every connection.
type proxy struct {
	ln     net.Listener
	target string

	mu     sync.Mutex
	cond   *sync.Cond
	paused bool
	conns  []net.Conn
}

// startProxy forwards a new port of 127.0.0.1 to target ("host:port").
func startProxy(t *testing.T, target string) *proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{ln: ln, target: target}
	p.cond = sync.NewCond(&p.mu)
	go p.serve()
	t.Cleanup(func() { ln.Close(); p.resume(); p.cut() })
	return p
}

func (p *proxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		s, err := net.Dial("tcp", p.target)
		if err != nil {
			c.Close()
			continue
		}
		p.mu.Lock()
		p.conns = append(p.conns, c, s)
		p.mu.Unlock()
		go p.pipe(c, s)
		go p.pipe(s, c)
	}
}

// pipe copies from src to dst, holding each chunk while the proxy is
// paused, so that the sender's buffers fill and its writes block.
func (p *proxy) pipe(src, dst net.Conn) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		p.mu.Lock()
		for p.paused {
			p.cond.Wait()
		}
		p.mu.Unlock()
		if n > 0 {
			if _, werr := dst.Write(buf[:n]); werr != nil {
				src.Close()
				return
			}
		}
		if err != nil {
			dst.Close()
			return
		}
	}
}

// pause stops forwarding in both directions.
func (p *proxy) pause() { p.mu.Lock(); p.paused = true; p.mu.Unlock() }

// resume forwards again.
func (p *proxy) resume() { p.mu.Lock(); p.paused = false; p.cond.Broadcast(); p.mu.Unlock() }

// cut closes every connection through the proxy, both sides: the server
// sees its client go away and rolls back its transaction.
func (p *proxy) cut() {
	p.mu.Lock()
	conns := p.conns
	p.conns = nil
	p.mu.Unlock()
	for _, c := range conns {
		c.Close()
	}
}

// throughProxy starts a proxy to the server of dsn and returns it with
// dsn pointed at it.
func throughProxy(t *testing.T, dsn string) (*proxy, string) {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	target := u.Host
	if u.Port() == "" {
		target = net.JoinHostPort(u.Hostname(), map[string]string{"mysql": "3306"}[u.Scheme]+map[string]string{"postgres": "5432", "postgresql": "5432"}[u.Scheme])
	}
	p := startProxy(t, target)
	u.Host = p.ln.Addr().String()
	return p, u.String()
}

// child is a profdb process under test.
type child struct {
	cmd     *exec.Cmd
	stderr  strings.Builder
	stdout  strings.Builder
	size    int64  // size of the input it reads
	input   string // the input file, the last argument
	readAll bool   // waitStuck found it stuck with all its input read
}

// pos returns how far the child has read its input file: the offset of
// the file in /proc/PID/fdinfo (rchar of /proc/PID/io counts the network
// too); -1 when it does not have the file open.
func (c *child) pos() int64 {
	pid := c.cmd.Process.Pid
	fds, _ := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	for _, fd := range fds {
		target, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", pid, fd.Name()))
		if err != nil || target != c.input {
			continue
		}
		info, err := os.ReadFile(fmt.Sprintf("/proc/%d/fdinfo/%s", pid, fd.Name()))
		if err != nil {
			return -1
		}
		for _, line := range strings.Split(string(info), "\n") {
			if v, ok := strings.CutPrefix(line, "pos:"); ok {
				n, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
				return n
			}
		}
	}
	return -1
}

func startChild(t *testing.T, bin string, size int64, args ...string) *child {
	t.Helper()
	c := &child{cmd: profdbCommand(bin, args...), size: size, input: args[len(args)-1]}
	c.cmd.Stderr, c.cmd.Stdout = &c.stderr, &c.stdout
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.cmd.Process.Kill() })
	return c
}

// waitRead waits until the child has read n bytes: it is then inside its
// result set's transaction, rows sent.
func (c *child) waitRead(t *testing.T, n int64) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		if c.pos() >= n {
			return
		}
		time.Sleep(2 * time.Millisecond)
	}
	t.Fatalf("the child did not read %d bytes in 2 minutes; stderr: %s", n, c.stderr.String())
}

// waitStuck waits until the child has read nothing for half a second: its
// writes are blocked.
func (c *child) waitStuck(t *testing.T) {
	t.Helper()
	last, since := c.pos(), time.Now()
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		n := c.pos()
		if n != last {
			last, since = n, time.Now()
			continue
		}
		if time.Since(since) > 500*time.Millisecond {
			if n < 0 || n >= c.size {
				// Everything fitted into the socket buffers: the child
				// is stuck waiting for the server's answer instead,
				// perhaps to its COMMIT.
				t.Logf("the child had read all its input when the stall stopped it")
				c.readAll = true
			}
			return
		}
	}
	t.Fatal("the child kept reading through the stall")
}

// signal sends the child sig and returns when.
func (c *child) signal(t *testing.T, sig syscall.Signal) time.Time {
	t.Helper()
	at := time.Now()
	if err := c.cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	return at
}

// end waits for the child to exit, at most exitBound, and returns its exit
// status (-1 when a signal ended it) and how long it took.
func (c *child) end(t *testing.T, from time.Time) (int, time.Duration) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- c.cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(time.Until(from.Add(exitBound))):
		// SIGQUIT: the Go runtime prints every goroutine's stack.
		if out, err := exec.Command("ss", "-tnpo").CombinedOutput(); err == nil {
			t.Logf("sockets:\n%s", out)
		}
		c.cmd.Process.Signal(syscall.SIGQUIT)
		select {
		case <-done:
		case <-time.After(2 * time.Second):
			c.cmd.Process.Kill()
			<-done
		}
		t.Fatalf("still running %s after the fault; stderr: %s", exitBound, c.stderr.String())
	}
	return c.cmd.ProcessState.ExitCode(), time.Since(from)
}

// faultOutcome is one row of the fault table the tests log.
func logOutcome(t *testing.T, fault, dialect, bulk, outcome string, took time.Duration, lost int64) {
	t.Logf("FAULT | %s | %s | %s | %s | %.2fs | %d", fault, dialect, bulk, outcome, took.Seconds(), lost)
}

// TestStalledConnectionEnds stalls the connection between a child
// "profdb export" and PostgreSQL or MariaDB in the middle of the load and
// ends it with SIGINT, SIGTERM or its own --io-timeout, or cuts the
// connection: each time the child ends within exitBound with the status
// and message the fault calls for, and the database holds the result sets
// it held before, whole, nothing of the faulted one.
func TestStalledConnectionEnds(t *testing.T) {
	t.Parallel() // the fault tests mostly wait: run them side by side
	bin, small, big, size := faultInputs(t, 300_000)
	faults := []struct {
		name   string
		args   []string
		act    func(t *testing.T, c *child, p *proxy) time.Time // makes the fault, returns when the command should start to end
		status int
		msg    string
	}{
		{"stall+SIGINT", nil, func(t *testing.T, c *child, p *proxy) time.Time {
			p.pause()
			c.waitStuck(t)
			return c.signal(t, syscall.SIGINT)
		},
			130, "profdb: interrupted by SIGINT; result set INST_ID 2 rolled back, nothing written\n"},
		{"stall+SIGTERM", nil, func(t *testing.T, c *child, p *proxy) time.Time {
			p.pause()
			c.waitStuck(t)
			return c.signal(t, syscall.SIGTERM)
		},
			143, "profdb: interrupted by SIGTERM; result set INST_ID 2 rolled back, nothing written\n"},
		// The I/O timeout runs from the stall: the command should end 2s
		// after it.
		{"stall+io-timeout", []string{"--io-timeout", "2s"}, func(t *testing.T, c *child, p *proxy) time.Time { p.pause(); return time.Now().Add(2 * time.Second) },
			exitCannotRun, "lost: the server neither answered nor took data for 2s (the I/O timeout)"},
		{"TCP cut", nil, func(t *testing.T, c *child, p *proxy) time.Time { p.cut(); return time.Now() },
			exitCannotRun, "lost: "},
	}
	for _, dialect := range dbtest.Servers("sqlserver") {
		for _, bulk := range []string{"auto", "off"} {
			for _, f := range faults {
				t.Run(dialect+"/bulk="+bulk+"/"+f.name, func(t *testing.T) {
					dsn := dbtest.Fresh(t, dialect)
					mustRun(t, "export", "--db", dsn, "--bulk", bulk, small)
					before := tableCounts(t, dsn)
					p, proxied := throughProxy(t, dsn)
					args := append([]string{"export", "--db", proxied, "--bulk", bulk, "--quiet"}, f.args...)
					c := startChild(t, bin, size, append(args, big)...)
					// Early, so that the rest of the load does not fit
					// into the socket buffers (some 10 MB on Linux).
					c.waitRead(t, size/8)
					status, took := c.end(t, f.act(t, c, p))
					p.cut()
					msg := f.msg
					if c.readAll && strings.Contains(c.stderr.String(), "was interrupted while committing") {
						// The stall stopped the COMMIT itself: the
						// command cannot know whether the server
						// committed, and says so; checkWhole below
						// proves the set whole or absent.
						msg = "was interrupted while committing: whether it was committed is up to the server"
					}
					if status != f.status || !strings.Contains(c.stderr.String(), msg) {
						t.Errorf("exit status %d, stderr %q; want %d and %q", status, c.stderr.String(), f.status, msg)
					}
					lost := checkWhole(t, bin, dsn, before)
					logOutcome(t, f.name, dialect, bulk, firstLine(c.stderr.String()), took, lost)
				})
			}
		}
	}
}

// firstLine returns the first line of s without its "profdb: " prefix.
func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return strings.TrimPrefix(s, "profdb: ")
}

// checkWhole checks that the database holds exactly the rows it held
// before (counted as before), that verify finds nothing, and that it takes
// the next export; it returns the rows lost (before minus after, summed over
// tables that shrank).
func checkWhole(t *testing.T, bin, dsn string, before map[string]int64) int64 {
	t.Helper()
	after := tableCounts(t, dsn)
	var lost int64
	for k, v := range before {
		if after[k] < v {
			lost += v - after[k]
		}
	}
	if !reflect.DeepEqual(before, after) {
		t.Errorf("row counts changed: before %v, after %v", before, after)
	}
	if out, err := profdbCommand(bin, "verify", "--db", dsn).CombinedOutput(); err != nil {
		t.Errorf("verify: %v\n%s", err, out)
	}
	return lost
}

// wholeSets returns the result sets of the database as caption → rows,
// failing the test unless verify is clean: every set listed is whole
// (RELATIONS complete, every parent there) and no table holds rows of a
// set INSTANCES does not list.
func wholeSets(t *testing.T, bin, dsn string) map[string]int64 {
	t.Helper()
	if out, err := profdbCommand(bin, "verify", "--db", dsn).CombinedOutput(); err != nil {
		t.Fatalf("verify: %v\n%s", err, out)
	}
	db, err := exporter.Open(context.Background(), dsn, store.Options{}, exporter.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	list, err := db.DB().List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int64{}
	for _, l := range list {
		out[l.Caption] += l.Rows
	}
	return out
}

// targetSets is wholeSets for a copy's target, which a copy interrupted
// before it wrote anything may have left without tables (verify then exits
// 2 saying so) or, on SQLite, without a file, or with an empty one where
// the copy was killed before it could remove it: each holds no result set.
func targetSets(t *testing.T, bin, dsn string) map[string]int64 {
	t.Helper()
	if path, ok := strings.CutPrefix(dsn, "sqlite:"); ok {
		if _, err := os.Stat(path + "-journal"); err == nil {
			// A copy killed in its transaction left a hot journal, which
			// a read-only reader cannot roll back (SQLITE_READONLY_ROLLBACK):
			// the next writer does, as the next export would.
			db, err := store.Open(context.Background(), dsn, store.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := db.InstIDs(context.Background()); err != nil && !errors.Is(err, store.ErrNoResultSets) {
				t.Fatal(err)
			}
			db.Close()
		}
		if fi, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) || (err == nil && fi.Size() == 0) {
			return map[string]int64{}
		}
	}
	out, err := profdbCommand(bin, "verify", "--db", dsn).CombinedOutput()
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.ExitCode() == 2 && strings.Contains(string(out), "has no INSTANCES table") {
		return map[string]int64{}
	}
	return wholeSets(t, bin, dsn)
}

// signalAt starts profdb with args and sends it sig after a random delay
// of up to maxDelay (or, for an export, once it has read a random share
// of its input); it returns the exit status (-1 for SIGKILL), stderr and
// the time from the signal to the exit. A command that finished before
// the signal reports status 0 and no time.
func signalAt(t *testing.T, rng *rand.Rand, bin string, sig syscall.Signal, maxDelay time.Duration, size int64, args ...string) (int, string, time.Duration) {
	t.Helper()
	c := startChild(t, bin, size, args...)
	done := make(chan error, 1)
	go func() { done <- c.cmd.Wait() }()
	if size > 0 {
		c.waitRead(t, size/10+rng.Int64N(size/2))
	} else {
		select {
		case <-done:
			return c.cmd.ProcessState.ExitCode(), c.stderr.String(), 0
		case <-time.After(time.Duration(rng.Int64N(int64(maxDelay)))):
		}
	}
	at := time.Now()
	if err := c.cmd.Process.Signal(sig); err != nil {
		<-done
		return c.cmd.ProcessState.ExitCode(), c.stderr.String(), 0
	}
	select {
	case <-done:
	case <-time.After(exitBound):
		c.cmd.Process.Kill()
		<-done
		t.Fatalf("still running %s after %v; stderr: %s", exitBound, sig, c.stderr.String())
	}
	return c.cmd.ProcessState.ExitCode(), c.stderr.String(), time.Since(at)
}

// statusFor is the exit status a signal should give: 130 for SIGINT, 143
// for SIGTERM, -1 (killed) for SIGKILL.
func statusFor(sig syscall.Signal) int {
	switch sig {
	case syscall.SIGINT:
		return 130
	case syscall.SIGTERM:
		return 143
	}
	return -1
}

// TestSignalledCommandsEnd sends SIGINT, SIGTERM and SIGKILL to child
// export, delete and copy processes at random points, on each local
// database and with both write paths, and checks after each that the
// command ended within exitBound with the status and message the signal
// calls for, and that the databases hold whole result sets only: the
// faulted one entirely or not at all, as the message says. (SIGKILL of an
// export mid-load is TestKilledExportLeavesNoTrace.)
func TestSignalledCommandsEnd(t *testing.T) {
	t.Parallel() // the fault tests mostly wait: run them side by side
	bin, small, big, size := faultInputs(t, 50_000)
	seed := time.Now().UnixNano()
	t.Logf("random points from seed %d", seed)
	rng := rand.New(rand.NewPCG(uint64(seed), 0))
	for _, dialect := range dbtest.Dialects("sqlserver") {
		for _, bulk := range []string{"auto", "off"} {
			t.Run(dialect+"/bulk="+bulk, func(t *testing.T) {
				dsn := dbtest.Fresh(t, dialect)
				mustRun(t, "export", "--db", dsn, "--bulk", bulk, small)
				base := wholeSets(t, bin, dsn)
				const bigRows = 50_001
				withBig := map[string]int64{"complete": base["complete"], "faulted": bigRows}

				// export, interrupted mid-load: nothing of it stays.
				for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
					status, stderr, took := signalAt(t, rng, bin, sig, 0, size, "export", "--db", dsn, "--bulk", bulk, "--quiet", big)
					want := fmt.Sprintf("profdb: interrupted by %s; result set INST_ID 2 rolled back, nothing written\n", signalName(sig))
					if status != statusFor(sig) || stderr != want {
						t.Errorf("export, %v: exit %d, stderr %q; want %d, %q", sig, status, stderr, statusFor(sig), want)
					}
					got := wholeSets(t, bin, dsn)
					if !reflect.DeepEqual(got, base) {
						t.Errorf("export, %v: result sets %v, want %v", sig, got, base)
					}
					logOutcome(t, signalName(sig)+" export", dialect, bulk, "rolled back: "+firstLine(stderr), took, 0)
				}

				// delete and copy, interrupted at random points: the
				// faulted set is there whole, or gone whole, as the exit
				// status and message say.
				for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGKILL} {
					if got := wholeSets(t, bin, dsn); !reflect.DeepEqual(got, withBig) {
						mustRun(t, "export", "--db", dsn, "--bulk", bulk, "--quiet", big)
					}
					list := mustRun(t, "list", "--db", dsn, "--json")
					inst := bigInst(t, list)
					status, stderr, took := signalAt(t, rng, bin, sig, 400*time.Millisecond, 0, "delete", "--db", dsn, "--inst", inst)
					got := wholeSets(t, bin, dsn)
					outcome := checkOutcome(t, "delete", sig, status, stderr, got, base, withBig,
						"delete of INST_ID "+inst+" rolled back, nothing deleted")
					logOutcome(t, signalName(sig)+" delete", dialect, bulk, outcome, took, lost(got, base, withBig))

					if got := wholeSets(t, bin, dsn); !reflect.DeepEqual(got, withBig) {
						mustRun(t, "export", "--db", dsn, "--bulk", bulk, "--quiet", big)
					}
					inst = bigInst(t, mustRun(t, "list", "--db", dsn, "--json"))
					to := dbtest.Fresh(t, dialect)
					status, stderr, took = signalAt(t, rng, bin, sig, 1500*time.Millisecond, 0, "copy", "--from", dsn, "--to", to, "--bulk", bulk, "--inst", inst)
					got = targetSets(t, bin, to)
					outcome = checkOutcome(t, "copy", sig, status, stderr, got, map[string]int64{"faulted": bigRows}, map[string]int64{},
						"copy of INST_ID "+inst+" rolled back, nothing of it written")
					logOutcome(t, signalName(sig)+" copy", dialect, bulk, outcome, took, lost(got, map[string]int64{"faulted": bigRows}, map[string]int64{}))
					if got := wholeSets(t, bin, dsn); !reflect.DeepEqual(got, withBig) {
						t.Errorf("copy, %v: the source changed: %v", sig, got)
					}
				}
			})
		}
	}
}

// bigInst returns the INST_ID of the "faulted" result set in list --json
// output.
func bigInst(t *testing.T, listJSON string) string {
	t.Helper()
	var list []store.Listing
	if err := json.Unmarshal([]byte(listJSON), &list); err != nil {
		t.Fatal(err)
	}
	for _, l := range list {
		if l.Caption == "faulted" {
			return strconv.FormatInt(l.InstID, 10)
		}
	}
	t.Fatalf("no faulted result set in %s", listJSON)
	return ""
}

// checkOutcome checks a signalled command's result: the sets it left are
// either those of a command that ran to its end (exit 0, or killed after
// committing) or those before it (killed, or the message saying what was
// rolled back); it returns the outcome for the table.
func checkOutcome(t *testing.T, what string, sig syscall.Signal, status int, stderr string, got, completed, untouched map[string]int64, rolledBack string) string {
	t.Helper()
	switch {
	case reflect.DeepEqual(got, completed):
		if status != 0 && status != statusFor(sig) {
			t.Errorf("%s, %v: completed, but exit %d: %s", what, sig, status, stderr)
		}
		if status == 130 || status == 143 {
			// Interrupted after the commit: the message names no roll back.
			if strings.Contains(stderr, "rolled back") {
				t.Errorf("%s, %v: completed, but says %q", what, sig, stderr)
			}
		}
		return fmt.Sprintf("completed (exit %d)", status)
	case reflect.DeepEqual(got, untouched):
		if sig != syscall.SIGKILL && status == -1 && stderr == "" {
			// The signal came before profdb installed its handler (it
			// does so first thing) and ended it at once.
			return "not started (ended by the signal's default action)"
		}
		if status != statusFor(sig) {
			t.Errorf("%s, %v: left nothing done, exit %d, want %d: %s", what, sig, status, statusFor(sig), stderr)
		}
		// A signal that came while the commit was under way leaves the
		// outcome to the server, which the message says instead.
		if sig != syscall.SIGKILL && !strings.Contains(stderr, rolledBack) && !strings.HasSuffix(stderr, "; nothing written\n") &&
			!strings.Contains(stderr, "was interrupted while committing") {
			t.Errorf("%s, %v: rolled back, but says %q; want %q", what, sig, stderr, rolledBack)
		}
		if sig == syscall.SIGKILL {
			return "rolled back (killed)"
		}
		return "rolled back: " + firstLine(stderr)
	}
	t.Errorf("%s, %v: result sets %v: neither %v nor %v (exit %d, %s)", what, sig, got, completed, untouched, status, stderr)
	return "BROKEN"
}

// lost counts the rows of result sets that are neither as completed nor as
// untouched: rows a fault lost or half-wrote.
func lost(got, completed, untouched map[string]int64) int64 {
	if reflect.DeepEqual(got, completed) || reflect.DeepEqual(got, untouched) {
		return 0
	}
	var n int64
	for k := range got {
		if _, ok := untouched[k]; !ok {
			n += got[k]
		}
	}
	for k, v := range untouched {
		d := v - got[k]
		n += max(d, -d)
	}
	return n
}

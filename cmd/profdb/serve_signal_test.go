package main

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/profdb/profdb/dialects"
	"github.com/profdb/profdb/internal/dbtest"
	"github.com/profdb/profdb/internal/servetest"
	"github.com/profdb/profdb/internal/trendtest"
)

// servedProcess is profdb serve running as a process of its own.
type servedProcess struct {
	cmd    *exec.Cmd
	url    string        // the URL it printed
	line   string        // the line it printed at start
	stderr *bytes.Buffer // its messages, to read once it has ended
	done   chan error    // its end
}

// startServe starts profdb serve with args and the environment env added
// to the test's, and waits for the line that says where it serves. It is
// killed when the test ends, if still running.
func startServe(t *testing.T, env []string, args ...string) *servedProcess {
	t.Helper()
	cmd := profdbCommand(profdbBin(t), append([]string{"serve"}, args...)...)
	cmd.Env = append(cmd.Env, env...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	p := &servedProcess{cmd: cmd, stderr: &bytes.Buffer{}, done: make(chan error, 1)}
	cmd.Stderr = p.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			<-p.done
		}
	})
	lines := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(out).ReadString('\n')
		lines <- line
		io.Copy(io.Discard, out)
		p.done <- cmd.Wait()
	}()
	select {
	case p.line = <-lines:
	case <-time.After(30 * time.Second):
		t.Fatalf("profdb serve %s: no line after 30 s", strings.Join(args, " "))
	}
	i := strings.Index(p.line, "http://")
	if i < 0 {
		<-p.done
		t.Fatalf("profdb serve %s printed %q, no URL; stderr:\n%s", strings.Join(args, " "), p.line, p.stderr)
	}
	p.url = strings.TrimSuffix(strings.Fields(p.line[i:])[0], "/")
	return p
}

// stop sends sig and waits (at most 15 s) for the process to end; it
// returns its exit status.
func (p *servedProcess) stop(t *testing.T, sig syscall.Signal) int {
	t.Helper()
	if err := p.cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	return p.wait(t)
}

func (p *servedProcess) wait(t *testing.T) int {
	t.Helper()
	select {
	case <-p.done:
	case <-time.After(15 * time.Second):
		t.Fatalf("profdb serve still runs 15 s after the signal")
	}
	return p.cmd.ProcessState.ExitCode()
}

// TestServeRefusesOpenAddressWithoutToken: profdb serve on an address
// other than loopback, with no token, does not start: it says why and
// what to do (a token or --no-auth), and exits 2. A token and --no-auth
// at once are refused too.
func TestServeRefusesOpenAddressWithoutToken(t *testing.T) {
	dsn := dbtest.Fresh(t, "sqlite")
	tokenFile := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tokenFile, []byte("s3cret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		env  []string
		args []string
		want []string
	}{
		{nil, []string{"--addr", "0.0.0.0:0"}, []string{"--addr 0.0.0.0:0 is not loopback", "give a token (--token-file or PROFDB_SERVE_TOKEN) or --no-auth"}},
		{nil, []string{"--addr", ":0"}, []string{"--addr :0 is not loopback"}},
		{[]string{"PROFDB_SERVE_TOKEN=  "}, []string{"--addr", "[::]:0"}, []string{"is not loopback"}},
		{[]string{"PROFDB_SERVE_TOKEN=s3cret"}, []string{"--addr", "0.0.0.0:0", "--no-auth"}, []string{"--no-auth and a token: give one of them"}},
		{nil, []string{"--addr", "0.0.0.0:0", "--no-auth", "--token-file", tokenFile}, []string{"--no-auth and a token"}},
	} {
		cmd := profdbCommand(profdbBin(t), append([]string{"serve", "--db", dsn}, c.args...)...)
		cmd.Env = append(append(cmd.Env, "PROFDB_SERVE_TOKEN="), c.env...)
		var out, errOut bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errOut
		done := make(chan error, 1)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
			<-done
			t.Fatalf("serve %s %v: still running after 30 s: it started", strings.Join(c.args, " "), c.env)
		}
		code := cmd.ProcessState.ExitCode()
		if code != exitCannotRun || out.Len() != 0 || !strings.HasPrefix(errOut.String(), "profdb: serve: ") {
			t.Errorf("serve %s %v: exit %d, stdout %q, stderr %q; want 2, nothing served, a message", strings.Join(c.args, " "), c.env, code, out.String(), errOut.String())
		}
		for _, w := range c.want {
			if !strings.Contains(errOut.String(), w) {
				t.Errorf("serve %s %v: the message %q does not say %q", strings.Join(c.args, " "), c.env, errOut.String(), w)
			}
		}
	}
}

// TestServeSaysHowItGuards: profdb serve says at start which way it
// guards what it serves, and does so: on loopback without a token; on
// any address with --no-auth, open; with a token (PROFDB_SERVE_TOKEN or
// --token-file), closed to requests without it. SIGTERM then stops it,
// exit 0.
func TestServeSaysHowItGuards(t *testing.T) {
	dsn := dbtest.Fresh(t, "sqlite")
	if _, err := trendtest.Export(context.Background(), dsn); err != nil {
		t.Fatal(err)
	}
	tokenFile := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tokenFile, []byte("fromfile\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		env   []string
		args  []string
		says  string
		token string // the token a request needs; "" for none
	}{
		{nil, nil, "(loopback only, no token)", ""},
		{nil, []string{"--addr", "0.0.0.0:0", "--no-auth"}, "(no token (--no-auth): anyone who reaches the address reads the database)", ""},
		{[]string{"PROFDB_SERVE_TOKEN=s3cret"}, []string{"--addr", "0.0.0.0:0"}, "(a token is required)", "s3cret"},
		{nil, []string{"--addr", "0.0.0.0:0", "--token-file", tokenFile}, "(a token is required)", "fromfile"},
	} {
		args := append([]string{"--db", dsn, "--addr", "127.0.0.1:0"}, c.args...)
		p := startServe(t, append([]string{"PROFDB_SERVE_TOKEN="}, c.env...), args...)
		if !strings.HasPrefix(p.line, "profdb: serving ") || !strings.HasSuffix(p.line, c.says+"\n") {
			t.Errorf("serve %s: says %q, want it to end %q", strings.Join(c.args, " "), p.line, c.says)
		}
		u, err := url.Parse(p.url)
		if err != nil {
			t.Fatal(err)
		}
		if open := !net.ParseIP(u.Hostname()).IsLoopback(); open != (len(c.args) > 0) {
			t.Errorf("serve %s: serves at %s", strings.Join(c.args, " "), p.url)
		}
		u.Host = net.JoinHostPort("127.0.0.1", u.Port())
		code, _ := servetest.Get(t, u.String()+"/api/v1/runs", nil)
		if want := map[bool]int{true: 401, false: 200}[c.token != ""]; code != want {
			t.Errorf("serve %s: a request without a token: %d, want %d", strings.Join(c.args, " "), code, want)
		}
		if c.token != "" {
			if code, _ := servetest.Get(t, u.String()+"/api/v1/runs", http.Header{"Authorization": {"Bearer " + c.token}}); code != 200 {
				t.Errorf("serve %s: a request with the token: %d", strings.Join(c.args, " "), code)
			}
		}
		if code := p.stop(t, syscall.SIGTERM); code != 0 || !strings.Contains(p.stderr.String(), "profdb: serve: stopped") {
			t.Errorf("serve %s: SIGTERM: exit %d, stderr %q", strings.Join(c.args, " "), code, p.stderr)
		}
	}
}

// tableLock holds every profdb table of a database so that no other
// session reads it, until release.
type tableLock struct {
	hold, release func(ctx context.Context, c *sql.Conn, tables []string) error
}

// tableLocks are the locks of the dialects, taken on one connection.
var tableLocks = map[string]tableLock{
	"sqlite": {
		hold:    func(ctx context.Context, c *sql.Conn, _ []string) error { return execOn(ctx, c, "BEGIN EXCLUSIVE") },
		release: func(ctx context.Context, c *sql.Conn, _ []string) error { return execOn(ctx, c, "ROLLBACK") },
	},
	"postgres": {
		hold: func(ctx context.Context, c *sql.Conn, tables []string) error {
			return execOn(ctx, c, "BEGIN", "LOCK TABLE "+strings.Join(tables, ", ")+" IN ACCESS EXCLUSIVE MODE")
		},
		release: func(ctx context.Context, c *sql.Conn, _ []string) error { return execOn(ctx, c, "ROLLBACK") },
	},
	"mysql": {
		hold: func(ctx context.Context, c *sql.Conn, tables []string) error {
			return execOn(ctx, c, "LOCK TABLES "+strings.Join(tables, " WRITE, ")+" WRITE")
		},
		release: func(ctx context.Context, c *sql.Conn, _ []string) error { return execOn(ctx, c, "UNLOCK TABLES") },
	},
}

func execOn(ctx context.Context, c *sql.Conn, stmts ...string) error {
	for _, s := range stmts {
		if _, err := c.ExecContext(ctx, s); err != nil {
			return err
		}
	}
	return nil
}

// TestServeStopsCleanlyWithARequestInFlight: SIGINT or SIGTERM stops
// profdb serve while a request waits in the database (its tables locked
// by another session): it accepts no more connections, the request in
// flight finishes, with its answer, once the lock is released, and the
// server ends with exit 0 and says so.
func TestServeStopsCleanlyWithARequestInFlight(t *testing.T) {
	for _, dialect := range dbtest.Dialects() {
		lock, ok := tableLocks[dialect]
		if !ok {
			continue
		}
		for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
			t.Run(dialect+"/"+signalName(sig), func(t *testing.T) {
				dsn := dbtest.Fresh(t, dialect)
				ctx := context.Background()
				if _, err := trendtest.Export(ctx, dsn); err != nil {
					t.Fatal(err)
				}
				want := mustRun(t, "show", "--json", "--db", dsn, "latest")
				p := startServe(t, nil, "--db", dsn, "--lock-timeout", "1m")

				db := dbtest.Open(t, dsn)
				d, err := dialects.ForDSN(dsn)
				if err != nil {
					t.Fatal(err)
				}
				names, err := d.Tables(ctx, db, "")
				if err != nil {
					t.Fatal(err)
				}
				var tables []string
				for _, n := range names {
					tables = append(tables, dialects.Qualify(d, "", n))
				}
				conn, err := db.Conn(ctx)
				if err != nil {
					t.Fatal(err)
				}
				defer conn.Close()
				if err := lock.hold(ctx, conn, tables); err != nil {
					t.Fatal(err)
				}
				released := false
				defer func() {
					if !released {
						lock.release(ctx, conn, tables)
					}
				}()
				type answer struct {
					code int
					body []byte
					err  error
				}
				answered := make(chan answer, 1)
				go func() {
					resp, err := http.Get(p.url + "/api/v1/runs/latest")
					if err != nil {
						answered <- answer{err: err}
						return
					}
					defer resp.Body.Close()
					b, err := io.ReadAll(resp.Body)
					answered <- answer{resp.StatusCode, b, err}
				}()
				select {
				case a := <-answered:
					t.Fatalf("the request was answered while the tables were locked: %d %v %s", a.code, a.err, a.body)
				case <-time.After(time.Second):
				}
				if err := p.cmd.Process.Signal(sig); err != nil {
					t.Fatal(err)
				}
				time.Sleep(500 * time.Millisecond)
				select {
				case <-p.done:
					t.Fatalf("profdb serve ended with a request in flight: exit %d, stderr %s", p.cmd.ProcessState.ExitCode(), p.stderr)
				default:
				}
				if c, err := net.DialTimeout("tcp", strings.TrimPrefix(p.url, "http://"), time.Second); err == nil {
					c.Close()
					t.Errorf("profdb serve still accepts connections after %s", signalName(sig))
				}
				released = true
				if err := lock.release(ctx, conn, tables); err != nil {
					t.Fatal(err)
				}
				a := <-answered
				if a.err != nil || a.code != 200 || !jsonEqual(a.body, []byte(want)) {
					t.Errorf("the request in flight: %d %v\n%s\nwant show --json's\n%s", a.code, a.err, a.body, want)
				}
				if code := p.wait(t); code != 0 || !strings.Contains(p.stderr.String(), "profdb: serve: stopped") {
					t.Errorf("after %s: exit %d, stderr %q; want 0 and stopped", signalName(sig), code, p.stderr)
				}
			})
		}
	}
}

// jsonEqual reports whether a and b are the same JSON value.
func jsonEqual(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return bytes.Equal(xa, ya)
}

package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/profdb/profdb/exporter"
	"github.com/profdb/profdb/internal/dbtest"
	"github.com/profdb/profdb/store"
)

// privateServer is a database server of the test's own (own data
// directory, own port on 127.0.0.1) that the test may stop and start
// again: never the machine's shared servers.
type privateServer struct {
	dsn   string // the test database
	ping  string // the server, for the readiness check
	start func() *exec.Cmd
	cmd   *exec.Cmd
	stop  syscall.Signal // the signal of a clean, fast shutdown
	port  string
}

// freePort returns a TCP port of 127.0.0.1 that nothing listens on.
func freePort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	return port
}

// serverMissing fails the test under CI, where .ci/run installs the
// servers, and skips it elsewhere.
func serverMissing(t *testing.T, format string, args ...any) {
	t.Helper()
	if dbtest.InCI() {
		t.Fatalf(format, args...)
	}
	t.Skipf(format, args...)
}

// startPrivatePostgres initialises and starts a PostgreSQL cluster of the
// test's own, run by the postgres OS user when the test runs as root
// (PostgreSQL refuses to run as root).
func startPrivatePostgres(t *testing.T) *privateServer {
	t.Helper()
	bins, _ := filepath.Glob("/usr/lib/postgresql/*/bin/postgres")
	if len(bins) == 0 {
		serverMissing(t, "no PostgreSQL server binaries in /usr/lib/postgresql/*/bin")
	}
	sort.Slice(bins, func(i, j int) bool { return versionLess(bins[i], bins[j]) })
	bin := filepath.Dir(bins[len(bins)-1])
	dir, err := os.MkdirTemp("", "profdb-pg-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	runAs := runAsPostgres(t, dir)
	data := filepath.Join(dir, "data")
	initdb := exec.Command(filepath.Join(bin, "initdb"), "-D", data, "-U", "postgres", "--auth=trust", "--no-sync", "-E", "UTF8")
	runAs(initdb)
	if out, err := initdb.CombinedOutput(); err != nil {
		t.Fatalf("initdb: %v\n%s", err, out)
	}
	port := freePort(t)
	s := &privateServer{port: port, stop: syscall.SIGINT, // SIGINT: fast shutdown
		dsn: "postgres://postgres@127.0.0.1:" + port + "/postgres?sslmode=disable"}
	s.ping = s.dsn
	s.start = func() *exec.Cmd {
		cmd := exec.Command(filepath.Join(bin, "postgres"), "-D", data, "-p", port, "-k", dir,
			"-c", "listen_addresses=127.0.0.1", "-c", "fsync=off", "-c", "shared_buffers=32MB")
		runAs(cmd)
		return cmd
	}
	s.up(t)
	t.Cleanup(s.halt)
	return s
}

// startPrivateMariaDB initialises and starts a MariaDB server of the
// test's own.
func startPrivateMariaDB(t *testing.T) *privateServer {
	t.Helper()
	mariadbd, err := exec.LookPath("mariadbd")
	if err != nil {
		if _, err2 := os.Stat("/usr/sbin/mariadbd"); err2 != nil {
			serverMissing(t, "no mariadbd: %v", err)
		}
		mariadbd = "/usr/sbin/mariadbd"
	}
	install, err := exec.LookPath("mariadb-install-db")
	if err != nil {
		serverMissing(t, "no mariadb-install-db: %v", err)
	}
	dir, err := os.MkdirTemp("", "profdb-mariadb-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	data := filepath.Join(dir, "data")
	// A folder of its own for temporary files: a starting MariaDB server
	// (mariadb-install-db's too) deletes every "#sql*" file in its tmpdir,
	// which would pull the temporary tables from under the machine's own
	// server in /tmp while other tests use it.
	tmp := "--tmpdir=" + filepath.Join(dir, "tmp")
	if err := os.Mkdir(filepath.Join(dir, "tmp"), 0o700); err != nil {
		t.Fatal(err)
	}
	who := "--user=" + currentUser()
	if out, err := exec.Command(install, "--no-defaults", "--datadir="+data, tmp, who, "--skip-test-db",
		"--auth-root-authentication-method=normal").CombinedOutput(); err != nil {
		t.Fatalf("mariadb-install-db: %v\n%s", err, out)
	}
	port := freePort(t)
	s := &privateServer{port: port, stop: syscall.SIGTERM,
		dsn: "mysql://root@127.0.0.1:" + port + "/test", ping: "mysql://root@127.0.0.1:" + port + "/"}
	s.start = func() *exec.Cmd {
		return exec.Command(mariadbd, "--no-defaults", "--datadir="+data, tmp, who, "--port="+port,
			"--bind-address=127.0.0.1", "--socket="+filepath.Join(dir, "s.sock"), "--skip-grant-tables",
			"--local-infile=1", "--innodb-buffer-pool-size=64M", "--innodb-log-file-size=64M",
			"--log-error="+filepath.Join(dir, "error.log"), "--pid-file="+filepath.Join(dir, "pid"))
	}
	s.up(t)
	t.Cleanup(s.halt)
	db := dbtest.Open(t, "mysql://root@127.0.0.1:"+port+"/")
	if _, err := db.Exec("CREATE DATABASE test"); err != nil {
		t.Fatal(err)
	}
	return s
}

func currentUser() string {
	if u, err := user.Current(); err == nil {
		return u.Username
	}
	return "root"
}

// versionLess orders paths holding version numbers (…/15/bin, …/16/bin).
func versionLess(a, b string) bool {
	num := func(p string) int {
		for _, part := range strings.Split(p, "/") {
			if n, err := strconv.Atoi(part); err == nil {
				return n
			}
		}
		return 0
	}
	return num(a) < num(b)
}

// up starts the server and waits until it takes connections.
func (s *privateServer) up(t *testing.T) {
	t.Helper()
	s.cmd = s.start()
	var log strings.Builder
	s.cmd.Stdout, s.cmd.Stderr = &log, &log
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if c, err := net.Dial("tcp", "127.0.0.1:"+s.port); err == nil {
			c.Close()
			db, err := exporter.Open(context.Background(), s.ping, store.Options{ConnectTimeout: 2 * time.Second}, exporter.Options{})
			if err == nil {
				db.Close()
				return
			}
		}
	}
	t.Fatalf("the private server did not start in 60 s:\n%s", log.String())
}

// down stops the server in the middle of a test (see halt); the test's
// end starts it again for the next one.
func (s *privateServer) down(t *testing.T) {
	t.Helper()
	if s.cmd == nil {
		return
	}
	t.Cleanup(func() {
		if s.cmd == nil {
			s.up(t)
		}
	})
	s.halt()
}

// halt stops the server cleanly and fast, and waits for it. It is the
// last cleanup of the server's test: down there would start it again,
// after its data was removed, and leave it running.
func (s *privateServer) halt() {
	if s.cmd == nil {
		return
	}
	s.cmd.Process.Signal(s.stop)
	done := make(chan error, 1)
	go func() { done <- s.cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		s.cmd.Process.Kill()
		<-done
	}
	s.cmd = nil
}

// TestServerRestartMidExport restarts a private PostgreSQL and MariaDB
// server while a child profdb export is loading rows, with both write
// paths: the export ends with an error that says the connection was lost,
// within exitBound of the shutdown, and after the restart the database
// holds the result sets it held before, whole, and takes the next export.
func TestServerRestartMidExport(t *testing.T) {
	t.Parallel() // the fault tests mostly wait: run them side by side
	bin, small, big, size := faultInputs(t, 200_000)
	for _, dialect := range []string{"postgres", "mysql"} {
		t.Run(dialect, func(t *testing.T) {
			var s *privateServer
			if dialect == "postgres" {
				s = startPrivatePostgres(t)
			} else {
				s = startPrivateMariaDB(t)
			}
			for _, bulk := range []string{"auto", "off"} {
				t.Run("bulk="+bulk, func(t *testing.T) {
					mustRun(t, "export", "--db", s.dsn, "--bulk", bulk, small)
					before := wholeSets(t, bin, s.dsn)
					// --io-timeout 5s: once in a few runs a LOAD DATA client
					// stayed blocked in a write after MariaDB's clean
					// shutdown had ended the server process; the I/O timeout
					// ends it then, within the bound.
					c := startChild(t, bin, size, "export", "--db", s.dsn, "--bulk", bulk, "--quiet", "--io-timeout", "5s", big)
					c.waitRead(t, size/3)
					// The bound runs from the server's exit: a clean shutdown
					// takes as long as the server needs to roll back.
					at := time.Now()
					s.down(t)
					t.Logf("the server took %.2fs to shut down", time.Since(at).Seconds())
					status, took := c.end(t, time.Now())
					s.up(t)
					if status != exitCannotRun || !strings.Contains(c.stderr.String(), "lost") {
						t.Errorf("exit %d, stderr %q; want 2 and a lost connection", status, c.stderr.String())
					}
					got := wholeSets(t, bin, s.dsn)
					if !reflect.DeepEqual(got, before) {
						t.Errorf("after the restart: %v, want %v", got, before)
					}
					logOutcome(t, "server restart", dialect, bulk, firstLine(c.stderr.String()), took, lost(got, before, before))
				})
			}
		})
	}
}

// smallFS returns a folder on a file system of the given size: a tmpfs
// mounted for the test (as root), else "" and how to limit the child's
// file size instead (RLIMIT_FSIZE through the shell's ulimit).
func smallFS(t *testing.T, size int64) (dir string, limited bool) {
	t.Helper()
	dir = t.TempDir()
	out, err := exec.Command("mount", "-t", "tmpfs", "-o", fmt.Sprintf("size=%d,mode=0755", size), "tmpfs", dir).CombinedOutput()
	if err != nil {
		t.Logf("no tmpfs (%v: %s): limiting the file size instead", err, strings.TrimSpace(string(out)))
		return dir, true
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v: %s", dir, err, out)
		}
	})
	return dir, false
}

// TestDiskFullSQLite exports into an SQLite database on a file system
// too small for the result set, with both write paths: the export fails
// saying the disk is full, within exitBound, and the database holds the
// result sets it held before, whole, and takes the next export once there
// is room.
func TestDiskFullSQLite(t *testing.T) {
	t.Parallel() // the fault tests mostly wait: run them side by side
	bin, small, big, size := faultInputs(t, 200_000)
	const room = 6 << 20 // the big result set takes about 20 MB in SQLite
	dir, limited := smallFS(t, room)
	for _, bulk := range []string{"auto", "off"} {
		t.Run("bulk="+bulk, func(t *testing.T) {
			path := filepath.Join(dir, "bulk-"+bulk+".db")
			dsn := "sqlite:" + path
			defer os.Remove(path)
			mustRun(t, "export", "--db", dsn, "--bulk", bulk, small)
			before := wholeSets(t, bin, dsn)
			args := []string{bin, "export", "--db", dsn, "--bulk", bulk, "--quiet", big}
			fault := "disk full (tmpfs)"
			if limited {
				// 512-byte blocks: the database may grow to room bytes.
				args = append([]string{"/bin/sh", "-c", fmt.Sprintf(`ulimit -f %d && exec "$@"`, room/512), "sh"}, args...)
				fault = "disk full (RLIMIT_FSIZE)"
			}
			c := startChild(t, args[0], size, args[1:]...)
			at := time.Now()
			status, took := c.end(t, at)
			msg := c.stderr.String()
			// Past RLIMIT_FSIZE a write fails with EFBIG, which SQLite
			// reports as a disk I/O error rather than a full disk.
			said := strings.Contains(msg, "database or disk is full") || limited && strings.Contains(msg, "disk I/O error")
			if status != exitCannotRun || !said || !strings.Contains(msg, "big.json") {
				t.Errorf("exit %d, stderr %q; want 2 and a full disk named", status, msg)
			}
			got := wholeSets(t, bin, dsn)
			if !reflect.DeepEqual(got, before) {
				t.Errorf("after the full disk: %v, want %v", got, before)
			}
			logOutcome(t, fault, "sqlite", bulk, firstLine(msg), took, lost(got, before, before))
			mustRun(t, "export", "--db", dsn, "--bulk", bulk, small)
		})
	}
}

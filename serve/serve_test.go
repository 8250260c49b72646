package serve_test

import (
	"bufio"
	"context"
	"database/sql"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	_ "github.com/profdb/profdb/dialects/mysql"
	_ "github.com/profdb/profdb/dialects/postgres"
	_ "github.com/profdb/profdb/dialects/sqlite"
	_ "github.com/profdb/profdb/dialects/sqlserver"
	"github.com/profdb/profdb/internal/dbtest"
	"github.com/profdb/profdb/internal/trendtest"
	_ "github.com/profdb/profdb/profilers/functiontrace"
	_ "github.com/profdb/profdb/profilers/lightcoverage"
	_ "github.com/profdb/profdb/profilers/referencecount"
	_ "github.com/profdb/profdb/profilers/resource"
	"github.com/profdb/profdb/readback"
	"github.com/profdb/profdb/serve"
	"github.com/profdb/profdb/store"
)

// history serves the trendtest history on dialect's database.
func history(t *testing.T, dialect string, o serve.Options) (*httptest.Server, trendtest.History, string) {
	t.Helper()
	dsn := dbtest.Fresh(t, dialect)
	h, err := trendtest.Export(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	db, err := store.Open(context.Background(), dsn, store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	hd, err := serve.New(db, o)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(hd)
	t.Cleanup(srv.Close)
	return srv, h, dsn
}

// noRedirects is a client that shows redirects rather than following them.
var noRedirects = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

func do(t *testing.T, c *http.Client, method, u string, hd http.Header) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(method, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range hd {
		req.Header[k] = v
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// TestWritesRefused: every method but GET and HEAD gets 405, on every
// route, before anything is read.
func TestWritesRefused(t *testing.T) {
	srv, _, _ := history(t, "sqlite", serve.Options{})
	for _, m := range []string{"POST", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE"} {
		for _, p := range []string{"/", "/api/v1/runs", "/runs/latest", "/healthz"} {
			resp, _ := do(t, http.DefaultClient, m, srv.URL+p, nil)
			if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != "GET, HEAD" {
				t.Errorf("%s %s: %d, Allow %q; want 405, GET, HEAD", m, p, resp.StatusCode, resp.Header.Get("Allow"))
			}
		}
	}
	resp, body := do(t, http.DefaultClient, "HEAD", srv.URL+"/runs/latest", nil)
	if resp.StatusCode != 200 || body != "" {
		t.Errorf("HEAD: %d %q", resp.StatusCode, body)
	}
}

// TestHeaders: every answer says nosniff, and a page's policy runs its
// script by hash, never unsafe-inline.
func TestHeaders(t *testing.T) {
	srv, _, _ := history(t, "sqlite", serve.Options{})
	for _, p := range []string{"/", "/runs/latest", "/trend?profiler=light-coverage", "/api/v1/runs", "/runs/nosuch:x"} {
		resp, _ := do(t, http.DefaultClient, "GET", srv.URL+p, nil)
		csp := resp.Header.Get("Content-Security-Policy")
		if resp.Header.Get("X-Content-Type-Options") != "nosniff" || csp == "" || strings.Contains(csp, "unsafe") || !strings.Contains(csp, "default-src 'none'") {
			t.Errorf("GET %s: nosniff %q, CSP %q", p, resp.Header.Get("X-Content-Type-Options"), csp)
		}
		if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") && !strings.Contains(csp, "script-src 'sha256-") {
			t.Errorf("GET %s: a page's CSP without its script's hash: %q", p, csp)
		}
	}
}

// TestToken: with a token, a request without it is refused; a bearer
// header or the cookie passes; ?token= sets an HttpOnly, SameSite=Strict
// cookie and redirects to the address without it; /healthz needs none.
func TestToken(t *testing.T) {
	srv, _, _ := history(t, "sqlite", serve.Options{Token: "s3cret"})
	for _, hd := range []http.Header{nil, {"Authorization": {"Bearer wrong"}}, {"Authorization": {"s3cret"}}, {"Cookie": {serve.CookieName + "=s3cre"}}} {
		if resp, _ := do(t, http.DefaultClient, "GET", srv.URL+"/api/v1/runs", hd); resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("%v: %d, want 401", hd, resp.StatusCode)
		}
	}
	if resp, _ := do(t, http.DefaultClient, "GET", srv.URL+"/api/v1/runs?token=wrong", nil); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("?token=wrong: %d, want 401", resp.StatusCode)
	}
	if resp, _ := do(t, http.DefaultClient, "GET", srv.URL+"/api/v1/runs", http.Header{"Authorization": {"Bearer s3cret"}}); resp.StatusCode != 200 {
		t.Errorf("bearer: %d, want 200", resp.StatusCode)
	}
	if resp, _ := do(t, http.DefaultClient, "GET", srv.URL+"/healthz", nil); resp.StatusCode != 200 {
		t.Errorf("healthz: %d, want 200", resp.StatusCode)
	}
	resp, _ := do(t, noRedirects, "GET", srv.URL+"/trend?profiler=light-coverage&token=s3cret", nil)
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/trend?profiler=light-coverage" {
		t.Fatalf("?token=: %d to %q, want 303 to the address without it", resp.StatusCode, resp.Header.Get("Location"))
	}
	var cookie *http.Cookie
	for _, c := range resp.Cookies() {
		if c.Name == serve.CookieName {
			cookie = c
		}
	}
	if cookie == nil || !cookie.HttpOnly || cookie.SameSite != http.SameSiteStrictMode {
		t.Fatalf("cookie %+v: want HttpOnly, SameSite=Strict", cookie)
	}
	if resp, _ := do(t, http.DefaultClient, "GET", srv.URL+"/trend?profiler=light-coverage", http.Header{"Cookie": {cookie.String()}}); resp.StatusCode != 200 {
		t.Errorf("with the cookie: %d, want 200", resp.StatusCode)
	}
}

// TestCheckAddr: an address other than loopback needs a token or an
// explicit no-auth.
func TestCheckAddr(t *testing.T) {
	for addr, loop := range map[string]bool{"127.0.0.1:7070": true, "[::1]:7070": true, "localhost:7070": true, "127.0.0.2:1": true,
		":7070": false, "0.0.0.0:7070": false, "192.168.1.2:80": false, "example.com:80": false, "[::]:7070": false, "nonsense": false} {
		if err := serve.CheckAddr(addr, false, false); (err == nil) != loop {
			t.Errorf("CheckAddr(%q) = %v, loopback %v", addr, err, loop)
		}
		if serve.CheckAddr(addr, true, false) != nil || serve.CheckAddr(addr, false, true) != nil {
			t.Errorf("CheckAddr(%q) with a token or no-auth refused", addr)
		}
	}
}

// TestTraversalRefused: a source file name from the URL never leads out
// of the source root, in any encoding; a name the result set holds is read
// under it.
func TestTraversalRefused(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "a.go"), []byte("package a // the source\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(filepath.Dir(root), "secret.txt")
	if err := os.WriteFile(outside, []byte("SECRET"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv, h, _ := history(t, "sqlite", serve.Options{SourceRoot: root})
	run := "/runs/" + itoa(h.Coverage[3]) + "/source/"
	if resp, body := do(t, http.DefaultClient, "GET", srv.URL+run+"a.go", nil); resp.StatusCode != 200 || !strings.Contains(body, "the source") {
		t.Fatalf("a.go: %d, source shown %v", resp.StatusCode, strings.Contains(body, "the source"))
	}
	for _, p := range []string{"../../etc/passwd", "..%2F..%2Fetc%2Fpasswd", "%2e%2e/%2e%2e/etc/passwd", "%2e%2e%2f%2e%2e%2fetc%2fpasswd",
		"..%5C..%5Cetc%5Cpasswd", "%2Fetc%2Fpasswd", "..%2Fsecret.txt", "a.go%00", "....//....//etc/passwd", "%252e%252e%252fsecret.txt"} {
		resp, body := do(t, http.DefaultClient, "GET", srv.URL+run+p, nil)
		if resp.StatusCode == 200 || strings.Contains(body, "root:") || strings.Contains(body, "SECRET") {
			t.Errorf("%s: %d, leaked %v", p, resp.StatusCode, strings.Contains(body, "root:") || strings.Contains(body, "SECRET"))
		}
	}
}

// TestSlowHeadersCutOff: a client that sends its headers a byte at a
// time is cut off by the server's read-header timeout.
func TestSlowHeadersCutOff(t *testing.T) {
	srv := serve.NewServer("127.0.0.1:0", http.NotFoundHandler(), serve.Timeouts{ReadHeader: 300 * time.Millisecond})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	start := time.Now()
	req := "GET / HTTP/1.1\r\nHost: x\r\nX-Slow: " + strings.Repeat("a", 200) + "\r\n\r\n"
	var werr error
	for i := 0; i < len(req) && werr == nil; i++ {
		_, werr = c.Write([]byte{req[i]})
		time.Sleep(50 * time.Millisecond)
		if time.Since(start) > 5*time.Second {
			break
		}
	}
	c.SetReadDeadline(time.Now().Add(2 * time.Second))
	line, rerr := bufio.NewReader(c).ReadString('\n')
	if took := time.Since(start); took > 5*time.Second || (werr == nil && rerr == nil && !strings.Contains(line, "408")) {
		t.Fatalf("slow client: after %v, write %v, read %q %v; want the connection cut off within the timeout", took, werr, line, rerr)
	}
}

// TestQueryTimeoutCancels: a request whose statement outlasts the query
// timeout gets 503 at the timeout, and the statement is cancelled in the
// database (SQLite interrupted, PostgreSQL's backend no longer runs it,
// MySQL's and MariaDB's thread no longer runs it: KILL QUERY,
// dialects.QueryKiller).
func TestQueryTimeoutCancels(t *testing.T) {
	slow := map[string]string{
		"sqlite":   "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) SELECT count(*) FROM c",
		"postgres": "SELECT pg_sleep(30)",
		"mysql":    "SELECT SLEEP(30) AS profdb_slow_statement",
	}
	for _, dialect := range []string{"sqlite", "postgres", "mysql"} {
		t.Run(dialect, func(t *testing.T) {
			srv, _, dsn := history(t, dialect, serve.Options{QueryTimeout: 500 * time.Millisecond})
			errs := make(chan error, 1)
			serve.SetBeforeRead(func(ctx context.Context, rd *readback.Reader) error {
				err := rd.Query(ctx, slow[dialect], nil, func(*sql.Rows) error { return nil })
				errs <- err
				return err
			})
			t.Cleanup(func() { serve.SetBeforeRead(nil) })
			start := time.Now()
			resp, body := do(t, http.DefaultClient, "GET", srv.URL+"/api/v1/runs", nil)
			took := time.Since(start)
			if resp.StatusCode != http.StatusServiceUnavailable || took > 5*time.Second || !strings.Contains(body, "cancelled") {
				t.Fatalf("%d after %v: %s; want 503 at the timeout", resp.StatusCode, took, body)
			}
			if err := <-errs; err == nil {
				t.Fatal("the slow statement finished")
			} else if !errors.Is(err, context.DeadlineExceeded) && !strings.Contains(err.Error(), "cancel") && !strings.Contains(err.Error(), "interrupt") {
				t.Logf("statement ended with %v", err)
			}
			switch dialect {
			case "postgres":
				stillRunning(t, dsn, "SELECT count(*) FROM pg_stat_activity WHERE query LIKE 'SELECT pg_sleep(30)%' AND state = 'active'")
			case "mysql":
				// The driver gives up on the connection at once; the
				// server would run SLEEP(30) on, but for KILL QUERY.
				stillRunning(t, dsn, "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE INFO LIKE 'SELECT SLEEP(30) AS profdb_slow_statement%'")
			}
		})
	}
}

// stillRunning fails when the count query finds the slow statement still
// running on the server a moment after the timeout.
func stillRunning(t *testing.T, dsn, count string) {
	t.Helper()
	db, err := store.Open(context.Background(), dsn, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	for i := 0; i < 20; i++ {
		if err := db.SQL().QueryRowContext(context.Background(), count).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("the slow statement still runs on the server 2 s after the timeout (%d)", n)
}

// TestBusy: a request beyond the cap on database work waits, then gets
// 503.
func TestBusy(t *testing.T) {
	srv, _, _ := history(t, "sqlite", serve.Options{MaxConcurrent: 1, Wait: 200 * time.Millisecond})
	hold, held := make(chan struct{}), make(chan struct{}, 1)
	serve.SetBeforeRead(func(ctx context.Context, rd *readback.Reader) error {
		held <- struct{}{}
		<-hold
		return nil
	})
	t.Cleanup(func() { serve.SetBeforeRead(nil) })
	done := make(chan int)
	go func() {
		resp, err := http.Get(srv.URL + "/api/v1/runs")
		if err != nil {
			done <- 0
			return
		}
		resp.Body.Close()
		done <- resp.StatusCode
	}()
	<-held
	resp, _ := do(t, http.DefaultClient, "GET", srv.URL+"/api/v1/runs", nil)
	close(hold)
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("second request: %d, want 503", resp.StatusCode)
	}
	if code := <-done; code != 200 {
		t.Errorf("first request: %d, want 200", code)
	}
}

// TestBasePath: mounted under a path, the handler answers there only and
// its links begin with it.
func TestBasePath(t *testing.T) {
	srv, _, _ := history(t, "sqlite", serve.Options{BasePath: "/profdb/"})
	if resp, _ := do(t, http.DefaultClient, "GET", srv.URL+"/api/v1/runs", nil); resp.StatusCode != 404 {
		t.Errorf("outside the base path: %d", resp.StatusCode)
	}
	resp, body := do(t, http.DefaultClient, "GET", srv.URL+"/profdb/", nil)
	if resp.StatusCode != 200 || !strings.Contains(body, `href="/profdb/runs/`) || strings.Contains(body, `href="/runs/`) {
		t.Errorf("under the base path: %d, links under it %v", resp.StatusCode, strings.Contains(body, `href="/profdb/runs/`))
	}
	if resp, _ := do(t, noRedirects, "GET", srv.URL+"/profdb", nil); resp.StatusCode != http.StatusMovedPermanently {
		t.Errorf("/profdb: %d, want a redirect to /profdb/", resp.StatusCode)
	}
	if _, err := serve.New(nil, serve.Options{BasePath: "profdb/../x"}); err == nil {
		t.Error("a base path with .. accepted")
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

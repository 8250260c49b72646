package servetest

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/profdb/profdb/internal/trendtest"
	"github.com/profdb/profdb/serve"
	"github.com/profdb/profdb/store"
)

// Case is one request of the JSON API and the arguments of the command
// that prints the same document with --json.
type Case struct {
	Path string
	Args []string
}

func id(n int64) string { return strconv.FormatInt(n, 10) }

// APICases are the API's requests over h, every route with selectors and
// filters of each kind, and the commands that answer them.
func APICases(h trendtest.History) []Case {
	return []Case{
		{"/api/v1/runs", []string{"list"}},
		{"/api/v1/runs?branch=main&profiler=light-coverage", []string{"list", "--branch", "main", "--profiler", "light-coverage"}},
		{"/api/v1/runs?label=suite%3Dunit&last=2", []string{"list", "--label", "suite=unit", "--last", "2"}},
		{"/api/v1/runs?since=2000-01-01&branch=feature%2Fx", []string{"list", "--since", "2000-01-01", "--branch", "feature/x"}},
		{"/api/v1/runs/latest", []string{"show", "latest"}},
		{"/api/v1/runs/" + id(h.Coverage[1]) + "?top=3", []string{"show", "--top", "3", id(h.Coverage[1])}},
		{"/api/v1/runs/branch:feature%2Fx", []string{"show", "branch:feature/x"}},
		{"/api/v1/runs/label:suite=unit~1", []string{"show", "label:suite=unit~1"}},
		{"/api/v1/runs/" + id(h.Trace[2]), []string{"show", id(h.Trace[2])}},
		{"/api/v1/runs/" + id(h.Resource[1]), []string{"show", id(h.Resource[1])}},
		{"/api/v1/runs/" + id(h.ReferenceCount[1]), []string{"show", id(h.ReferenceCount[1])}},
		{"/api/v1/compare/" + id(h.Coverage[0]) + "/" + id(h.Coverage[3]), []string{"compare", id(h.Coverage[0]), id(h.Coverage[3])}},
		{"/api/v1/compare/" + id(h.Coverage[0]) + "/branch:feature%2Fx?style=percent&top=2", []string{"compare", "--style", "percent", "--top", "2", id(h.Coverage[0]), "branch:feature/x"}},
		{"/api/v1/compare/" + id(h.Trace[0]) + "/latest", []string{"compare", id(h.Trace[0]), "latest"}},
		{"/api/v1/compare/" + id(h.Resource[0]) + "/" + id(h.Resource[1]) + "?style=ratio", []string{"compare", "--style", "ratio", id(h.Resource[0]), id(h.Resource[1])}},
		{"/api/v1/trend?profiler=light-coverage&branch=main", []string{"trend", "--profiler", "light-coverage", "--branch", "main"}},
		{"/api/v1/trend?profiler=light-coverage&file=a.go&top=2", []string{"trend", "--profiler", "light-coverage", "--file", "a.go", "--top", "2"}},
		{"/api/v1/trend?profiler=function-trace&last=2", []string{"trend", "--profiler", "function-trace", "--last", "2"}},
	}
}

// Pages are the page routes over h, each of which answers 200.
func Pages(h trendtest.History) []string {
	return []string{"/", "/?branch=main&profiler=light-coverage", "/runs/latest", "/runs/" + id(h.Trace[1]),
		"/runs/" + id(h.Resource[0]), "/runs/" + id(h.ReferenceCount[0]), "/runs/" + id(h.Coverage[2]) + "/source/a.go",
		"/runs/" + id(h.Coverage[0]) + "/source/" + url.PathEscape(trendtest.HostileFile),
		"/compare/branch:main/latest", "/compare/" + id(h.Trace[0]) + "/" + id(h.Trace[2]),
		"/trend?profiler=light-coverage&branch=main", "/trend?profiler=function-trace", "/healthz"}
}

// Statuses are requests over h that answer an error, with its status: a
// selector that matches nothing, a bad one, bad filters, a file the run
// does not hold, two runs that cannot be compared.
func Statuses(h trendtest.History) map[string]int {
	return map[string]int{
		"/runs/branch:nosuch": 404, "/api/v1/runs/branch:nosuch": 404, "/runs/999999": 404, "/api/v1/runs/999999": 404,
		"/runs/x:y": 400, "/api/v1/runs?last=-1": 400, "/api/v1/runs?profiler=nosuch": 400, "/api/v1/runs?nosuch=1": 400,
		"/runs/" + id(h.Coverage[0]) + "/source/nosuch.go": 404, "/api/v1/compare/" + id(h.Coverage[0]) + "/" + id(h.Trace[0]): 422,
	}
}

// Check reads every route of the server at base, which serves h: each of
// APICases answers, decoded, what cli returns for its arguments with
// --json (the command's output); each of Pages answers 200 and each of
// Statuses its status; and Crawl from / finds no broken link.
func Check(t *testing.T, base string, h trendtest.History, cli func(args ...string) string) {
	t.Helper()
	for _, c := range APICases(h) {
		got := GetJSON(t, base+c.Path)
		var want any
		out := cli(append(append([]string{}, c.Args...), "--json")...)
		if err := json.Unmarshal([]byte(out), &want); err != nil {
			t.Fatalf("profdb %s --json: %v", strings.Join(c.Args, " "), err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("GET %s differs from profdb %s --json:\n got %v\nwant %v", c.Path, strings.Join(c.Args, " "), got, want)
		}
	}
	for _, p := range Pages(h) {
		if code, body := Get(t, base+p, nil); code != http.StatusOK {
			t.Errorf("GET %s: %d %s", p, code, body)
		}
	}
	for p, want := range Statuses(h) {
		if code, body := Get(t, base+p, nil); code != want {
			t.Errorf("GET %s: %d, want %d: %s", p, code, want, body)
		}
	}
	n := Crawl(t, base, "/", 500)
	t.Logf("crawl: %d pages read, each link of each resolved", n)
	if n < 20 {
		t.Errorf("the crawl from / read %d pages: the pages link to fewer than they should", n)
	}
}

// Serve serves dsn's database, opened read-only, through an httptest
// server; both end with the test.
func Serve(t testing.TB, dsn string, o serve.Options) *httptest.Server {
	t.Helper()
	db, err := store.Open(context.Background(), dsn, store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	h, err := serve.New(db, o)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

// Get fetches u with the headers hd and returns its status and body.
func Get(t testing.TB, u string, hd http.Header) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range hd {
		req.Header[k] = v
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

// GetJSON fetches u, which must answer 200 with JSON, decoded.
func GetJSON(t testing.TB, u string) any {
	t.Helper()
	code, body := Get(t, u, nil)
	if code != http.StatusOK {
		t.Fatalf("GET %s: %d %s", u, code, body)
	}
	var v any
	if err := json.Unmarshal([]byte(body), &v); err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
	return v
}

// linkAttr is a link of a page: an href (a, SVG a) or a form's action,
// its value in double quotes as html/template writes it.
var linkAttr = regexp.MustCompile(`\s(?:href|action)="([^"]*)"`)

// Links returns the links of page, which was read from u, resolved
// against u; fragments within the page are left out.
func Links(u *url.URL, page string) ([]*url.URL, error) {
	var out []*url.URL
	for _, m := range linkAttr.FindAllStringSubmatch(page, -1) {
		ref := html.UnescapeString(m[1])
		if strings.HasPrefix(ref, "#") {
			continue
		}
		r, err := u.Parse(ref)
		if err != nil {
			return nil, fmt.Errorf("link %q: %w", ref, err)
		}
		r.Fragment = ""
		out = append(out, r)
	}
	return out, nil
}

// Crawl reads the page at base+start and every page of the server it
// links to, in turn, up to limit pages: each must answer 200 as HTML,
// with the headers every page is sent with (a Content-Security-Policy
// that allows nothing by default, never unsafe-inline, and forbids
// framing; nosniff), and each link to elsewhere must be http or https. It returns how many pages
// it read.
func Crawl(t testing.TB, base, start string, limit int) int {
	t.Helper()
	root, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	first, err := root.Parse(start)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]string{first.String(): "the start"}
	queue := []*url.URL{first}
	read := 0
	for len(queue) > 0 && read < limit {
		u := queue[0]
		queue = queue[1:]
		read++
		resp, err := http.Get(u.String())
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
			t.Errorf("GET %s (linked from %s): %d %s", u.RequestURI(), seen[u.String()], resp.StatusCode, resp.Header.Get("Content-Type"))
			continue
		}
		if csp := resp.Header.Get("Content-Security-Policy"); !strings.HasPrefix(csp, "default-src 'none';") || !strings.Contains(csp, "frame-ancestors 'none'") ||
			strings.Contains(csp, "unsafe-") || resp.Header.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("GET %s: sent with the policy %q and X-Content-Type-Options %q", u.RequestURI(), csp, resp.Header.Get("X-Content-Type-Options"))
		}
		links, err := Links(u, string(b))
		if err != nil {
			t.Errorf("GET %s: %v", u.RequestURI(), err)
		}
		for _, l := range links {
			if l.Host != root.Host || l.Scheme != root.Scheme {
				if l.Scheme != "http" && l.Scheme != "https" {
					t.Errorf("GET %s links to %s: neither http nor https", u.RequestURI(), l)
				}
				continue
			}
			if _, ok := seen[l.String()]; !ok {
				seen[l.String()] = u.RequestURI()
				queue = append(queue, l)
			}
		}
	}
	if len(queue) > 0 {
		t.Logf("crawl: stopped after %d pages, %d links not followed", read, len(queue))
	}
	return read
}

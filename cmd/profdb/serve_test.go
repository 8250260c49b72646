package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/profdb/profdb/internal/dbtest"
	"github.com/profdb/profdb/internal/trendtest"
	"github.com/profdb/profdb/serve"
	"github.com/profdb/profdb/store"
)

// serveCase is one request of the API and the command line that prints
// the same document.
type serveCase struct {
	path string
	args []string
}

// TestServeAPIEqualsCLI: each route of serve's JSON API answers, after
// decoding, exactly what the command it stands for prints with --json for
// the same selectors and filters, on every database; and every page route
// answers 200 for them.
func TestServeAPIEqualsCLI(t *testing.T) {
	for _, dialect := range dbtest.Dialects() {
		t.Run(dialect, func(t *testing.T) {
			dsn := dbtest.Fresh(t, dialect)
			ctx := context.Background()
			h, err := trendtest.Export(ctx, dsn)
			if err != nil {
				t.Fatal(err)
			}
			srv := serveDB(t, dsn, serve.Options{})
			id := func(n int64) string { return strconv.FormatInt(n, 10) }
			cases := []serveCase{
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
			for _, c := range cases {
				got := getJSON(t, srv.URL+c.path)
				var want any
				out := mustRun(t, append(append(c.args, "--json"), "--db", dsn)...)
				if err := json.Unmarshal([]byte(out), &want); err != nil {
					t.Fatalf("profdb %s: %v", strings.Join(c.args, " "), err)
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("GET %s differs from profdb %s --json:\n got %v\nwant %v", c.path, strings.Join(c.args, " "), got, want)
				}
			}
			for _, p := range []string{"/", "/?branch=main&profiler=light-coverage", "/runs/latest", "/runs/" + id(h.Trace[1]),
				"/runs/" + id(h.Resource[0]), "/runs/" + id(h.ReferenceCount[0]), "/runs/" + id(h.Coverage[2]) + "/source/a.go",
				"/runs/" + id(h.Coverage[0]) + "/source/" + url.PathEscape(trendtest.HostileFile),
				"/compare/branch:main/latest", "/compare/" + id(h.Trace[0]) + "/" + id(h.Trace[2]),
				"/trend?profiler=light-coverage&branch=main", "/trend?profiler=function-trace", "/healthz"} {
				if code, body := get(t, srv.URL+p, nil); code != http.StatusOK {
					t.Errorf("GET %s: %d %s", p, code, body)
				}
			}
			for p, want := range map[string]int{
				"/runs/branch:nosuch": 404, "/api/v1/runs/branch:nosuch": 404, "/runs/999999": 404, "/api/v1/runs/999999": 404,
				"/runs/x:y": 400, "/api/v1/runs?last=-1": 400, "/api/v1/runs?profiler=nosuch": 400, "/api/v1/runs?nosuch=1": 400,
				"/runs/" + id(h.Coverage[0]) + "/source/nosuch.go": 404, "/api/v1/compare/" + id(h.Coverage[0]) + "/" + id(h.Trace[0]): 422,
			} {
				if code, body := get(t, srv.URL+p, nil); code != want {
					t.Errorf("GET %s: %d, want %d: %s", p, code, want, body)
				}
			}
		})
	}
}

// serveDB serves dsn's database through an httptest server.
func serveDB(t *testing.T, dsn string, o serve.Options) *httptest.Server {
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

// get fetches u with the headers hd.
func get(t *testing.T, u string, hd http.Header) (int, string) {
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

// getJSON fetches u, which must answer 200 with JSON, decoded.
func getJSON(t *testing.T, u string) any {
	t.Helper()
	code, body := get(t, u, nil)
	if code != http.StatusOK {
		t.Fatalf("GET %s: %d %s", u, code, body)
	}
	var v any
	if err := json.Unmarshal([]byte(body), &v); err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
	return v
}

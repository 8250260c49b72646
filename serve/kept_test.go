package serve_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/profdb/profdb/serve"
	"github.com/profdb/profdb/store"
)

// TestKeptPages: a run's page, a comparison and a trend are answered the
// same the second time (from the pages kept), and a run deleted since is
// not found, nor drawn in the trend, though the pages were kept.
func TestKeptPages(t *testing.T) {
	srv, h, dsn := history(t, "sqlite", serve.Options{})
	a, b := h.Coverage[0], h.Coverage[1]
	trendURL := "/trend?profiler=light-coverage&branch=main"
	for _, u := range []string{fmt.Sprintf("/runs/%d", b), fmt.Sprintf("/compare/%d/%d", a, b), trendURL} {
		resp1, body1 := do(t, http.DefaultClient, "GET", srv.URL+u, nil)
		resp2, body2 := do(t, http.DefaultClient, "GET", srv.URL+u, nil)
		if resp1.StatusCode != http.StatusOK || resp2.StatusCode != http.StatusOK || body1 != body2 {
			t.Errorf("%s: %d then %d, same page: %v", u, resp1.StatusCode, resp2.StatusCode, body1 == body2)
		}
		if !strings.Contains(body1, fmt.Sprintf(`/runs/%d"`, b)) {
			t.Errorf("%s does not link run %d", u, b)
		}
		if resp2.Header.Get("Content-Security-Policy") != resp1.Header.Get("Content-Security-Policy") {
			t.Errorf("%s: the kept page is sent with another policy", u)
		}
	}
	db, err := store.Open(context.Background(), dsn, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Delete(context.Background(), b); err != nil {
		t.Fatal(err)
	}
	// The trend's runs are chosen in each request's snapshot: b is gone
	// from it.
	if _, body := do(t, http.DefaultClient, "GET", srv.URL+trendURL, nil); strings.Contains(body, fmt.Sprintf(`/runs/%d"`, b)) {
		t.Errorf("the trend page links run %d after it was deleted", b)
	}
	for _, u := range []string{fmt.Sprintf("/runs/%d", b), fmt.Sprintf("/compare/%d/%d", a, b)} {
		if resp, _ := do(t, http.DefaultClient, "GET", srv.URL+u, nil); resp.StatusCode != http.StatusNotFound {
			t.Errorf("%s after result set %d was deleted: %d, want 404", u, b, resp.StatusCode)
		}
	}
}

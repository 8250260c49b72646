package serve_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"

	"github.com/profdb/profdb/serve"
	"github.com/profdb/profdb/store"
)

// TestKeptPages: a run's page and a comparison are answered the same the
// second time (from the pages kept), and a run deleted since is not found
// though its page was kept.
func TestKeptPages(t *testing.T) {
	srv, h, dsn := history(t, "sqlite", serve.Options{})
	a, b := h.Coverage[0], h.Coverage[1]
	for _, u := range []string{fmt.Sprintf("/runs/%d", b), fmt.Sprintf("/compare/%d/%d", a, b)} {
		resp1, body1 := do(t, http.DefaultClient, "GET", srv.URL+u, nil)
		resp2, body2 := do(t, http.DefaultClient, "GET", srv.URL+u, nil)
		if resp1.StatusCode != http.StatusOK || resp2.StatusCode != http.StatusOK || body1 != body2 {
			t.Errorf("%s: %d then %d, same page: %v", u, resp1.StatusCode, resp2.StatusCode, body1 == body2)
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
	for _, u := range []string{fmt.Sprintf("/runs/%d", b), fmt.Sprintf("/compare/%d/%d", a, b)} {
		if resp, _ := do(t, http.DefaultClient, "GET", srv.URL+u, nil); resp.StatusCode != http.StatusNotFound {
			t.Errorf("%s after result set %d was deleted: %d, want 404", u, b, resp.StatusCode)
		}
	}
}

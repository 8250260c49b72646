package serve_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/profdb/profdb/internal/dbtest"
	"github.com/profdb/profdb/serve"
	"github.com/profdb/profdb/store"
)

// TestCaptionSearch: ?caption= on the runs page and the API chooses the
// runs whose caption contains the text, case-blind, on every dialect; the
// page's form shows the text searched for, escaped.
func TestCaptionSearch(t *testing.T) {
	for _, dn := range dbtest.Dialects() {
		t.Run(dn, func(t *testing.T) {
			srv, h, _ := history(t, dn, serve.Options{})
			resp, body := do(t, http.DefaultClient, "GET", srv.URL+"/api/v1/runs?caption="+url.QueryEscape("COVERAGE 3"), nil)
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("api: %d %s", resp.StatusCode, body)
			}
			var got []store.Listing
			if err := json.Unmarshal([]byte(body), &got); err != nil {
				t.Fatal(err)
			}
			if len(got) != 1 || got[0].Caption != "coverage 3" {
				t.Errorf("api ?caption=COVERAGE 3: %+v, want the run captioned coverage 3", got)
			}
			resp, body = do(t, http.DefaultClient, "GET", srv.URL+"/?caption="+url.QueryEscape("trace <b>"), nil)
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("page: %d %s", resp.StatusCode, body)
			}
			if strings.Contains(body, `data-inst="`) {
				t.Errorf("?caption=trace <b> lists runs")
			}
			if !strings.Contains(body, `value="trace &lt;b&gt;"`) {
				t.Errorf("the form does not show the text searched for, escaped")
			}
			_, body = do(t, http.DefaultClient, "GET", srv.URL+"/?caption=trace", nil)
			if n := strings.Count(body, `data-inst="`); n != len(h.Trace) {
				t.Errorf("?caption=trace lists %d runs, want the %d traces", n, len(h.Trace))
			}
		})
	}
}

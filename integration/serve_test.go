package integration

import (
	"testing"

	"github.com/profdb/profdb/internal/servetest"
	"github.com/profdb/profdb/internal/trendtest"
	"github.com/profdb/profdb/serve"
)

// TestServe serves a fresh namespace of every target, holding the
// trendtest history (coverage on two branches, traces, resource and
// reference count result sets with run identities), with serve's
// http.Handler, and reads every route (servetest.Check): the JSON API
// answers, decoded, what list, show, compare and trend print with --json
// for the same selectors and filters; every page answers 200, each
// request for what is not there its status, and every link of every page
// resolves.
func TestServe(t *testing.T) {
	for _, name := range TargetNames {
		t.Run(name, func(t *testing.T) {
			tg := Lookup(t, name)
			t.Logf("%s: %s", name, tg.Origin)
			ns := tg.Fresh(t)
			h, err := trendtest.Export(Ctx(t), ns.DSN)
			if err != nil {
				t.Fatal(err)
			}
			srv := servetest.Serve(t, ns.DSN, serve.Options{})
			servetest.Check(t, srv.URL, h, func(args ...string) string {
				return mustProfdb(t, append(args, "--db", ns.DSN)...)
			})
		})
	}
}

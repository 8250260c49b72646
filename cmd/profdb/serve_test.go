package main

import (
	"context"
	"testing"

	"github.com/profdb/profdb/internal/dbtest"
	"github.com/profdb/profdb/internal/servetest"
	"github.com/profdb/profdb/internal/trendtest"
	"github.com/profdb/profdb/serve"
)

// TestServeAPIEqualsCLI: each route of serve's JSON API answers, after
// decoding, exactly what the command it stands for prints with --json for
// the same selectors and filters, on every database; every page route
// answers 200, and every link of the pages resolves (servetest.Check).
func TestServeAPIEqualsCLI(t *testing.T) {
	for _, dialect := range dbtest.Dialects() {
		t.Run(dialect, func(t *testing.T) {
			dsn := dbtest.Fresh(t, dialect)
			h, err := trendtest.Export(context.Background(), dsn)
			if err != nil {
				t.Fatal(err)
			}
			srv := servetest.Serve(t, dsn, serve.Options{})
			servetest.Check(t, srv.URL, h, func(args ...string) string {
				return mustRun(t, append(args, "--db", dsn)...)
			})
		})
	}
}

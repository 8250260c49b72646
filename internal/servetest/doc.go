// Package servetest is a test kit: the routes of profdb serve read over
// the history of package trendtest, for the tests that serve a database
// and check what it answers, on every dialect (cmd/profdb's
// TestServeAPIEqualsCLI) and on every target of the integration suite
// (its TestServe).
//
// Check reads them all: each JSON API route is compared, after decoding,
// with what the command it stands for prints with --json for the same
// selectors and filters (APICases); each page answers 200 (Pages); each
// request for what the database does not hold, or that asks wrongly,
// answers its status (Statuses); and every link of every page reached
// from the list of runs resolves (Crawl). Serve serves a database through
// an httptest server.
package servetest

// Package serve is profdb serve as a library: an http.Handler that shows
// the result sets of a store.DB in a browser and as JSON, read-only.
//
// The JSON API (/api/v1/runs, /api/v1/runs/{selector},
// /api/v1/compare/{a}/{b}, /api/v1/trend) answers with the documents
// list --json, show --json, compare --json and trend --json print, written
// by the same library functions (readback.Listing, readback.Summary,
// compare.Result and trend.Trend's WriteJSON) from the same options: query
// parameters are named as the commands' flags and read by the same rules
// (store.FilterText, selector.Parse, compare.ParseStyle, trend.Options).
// The pages (/, /runs/{selector}, /runs/{selector}/source/{file},
// /compare/{a}/{b}, /trend) are package report's, linked to each other.
//
// Every request reads in one read-only snapshot (readback.Begin), its
// selectors resolved in it too (selector.Resolver.Source); only GET and
// HEAD are answered (else 405); a request waits at most Options.Wait for
// one of Options.MaxConcurrent slots of database work (else 503) and its
// statements are cancelled after Options.QueryTimeout, on the server too
// (the drivers' cancel on PostgreSQL, SQLite and SQL Server; KILL QUERY
// on MySQL and MariaDB, whose server would run the statement on:
// dialects.QueryKiller, run by the read snapshot of package store). With
// a Token, every route but /healthz needs it: as a bearer header, a
// cookie, or once as ?token=, which sets the HttpOnly, SameSite=Strict
// cookie.
//
// What never changes is kept from request to request, for the requests
// that follow: a result set never changes once written, and an INST_ID
// profdb's ledger gave out is never given out again. The headline figures
// of the runs and trend pages (readback.FigureCache, FigureCacheSize
// result sets) and the pages of a run, a comparison and a trend
// (KeptPageBytes) are kept under the INST_IDs and export times of the
// result sets they show, which each request chooses in its own snapshot
// first: a deleted run is not found, a new one makes a new trend. Result
// sets without a ledger row are read each time. The columns of the tables
// are read once (store.DB.KeepColumns, which New calls), the list of
// tables in each request. The server keeps nothing else: several can
// serve one database, and answer alike.
//
// NewServer gives an http.Server the timeouts a server facing slow or
// hostile clients needs; CheckAddr refuses an address other than
// loopback without a token unless told otherwise.
package serve

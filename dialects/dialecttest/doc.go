// Package dialecttest is the conformance suite of profdb's dialects: Run
// checks a Dialect against a real database, one subtest per check (the
// catalogue and how Tables and Columns see it, a round trip of edge values,
// an INSERT at the parameter limit, the consumer query). Every dialect
// package's tests call it, and so do the integration tests for each of
// their servers. FuzzBulkMatchesInsert is the body of the dialects' fuzz
// test of their bulk path; the other exported functions are the helpers
// the dialects' own tests share. It imports no dialect.
package dialecttest

// Package historytest holds the history benchmark (task bench:history): the
// cost of each profdb command on a database that holds 100, 1,000 or 5,000
// result sets, built from real Go coverage profiles and a real CPU profile;
// and the serve benchmark (task bench:serve, serve_test.go): profdb serve
// on the same databases, its routes asked by 32 clients at once.
// It is tests only: no package imports it, and it has no code outside its
// test files; see docs/performance.md, "Many result sets: the history
// benchmark". It builds profdb with clitest, measures each command with
// launchtest and takes its servers from dbtest.
package historytest

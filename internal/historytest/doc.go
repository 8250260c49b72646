// Package historytest holds the history benchmark (task bench:history): the
// cost of each profdb command on a database that holds 100, 1,000 or 5,000
// result sets, built from real Go coverage profiles and a real CPU profile.
// It has no code of its own outside its test files; see
// docs/performance.md, "Many result sets: the history benchmark".
package historytest

// Package dialecttest holds the checks every dialect's tests share: the
// full table catalogue, a round trip of edge values through a real
// database, the Light Coverage consumer query of docs/layout.md
// ("Upper-case names without quotes"), and an INSERT at the dialect's parameter limit. It imports no dialect, so
// each dialect package's own tests use it.
package dialecttest

// Package srcroottest builds, for tests, a source root with attacks around
// it: file names that data might give (../ chains, /proc/self/environ,
// absolute paths, C:\..\..\etc\hostname, links in the root that point out,
// a FIFO) and the secrets that a reader which followed them would show.
// Every test of something that reads files under --source-root (package
// srcroot's users: the HTML report, the Go coverage reader) runs them.
package srcroottest

// Package input reads profiler output files and delivers their result sets
// to an resultset.Target. Each format lives in its own package (interchange,
// profilerj, gocover, lcov) and registers itself here in init; Detect picks
// a format from a file's first bytes, Read runs one.
package input

package sqlite

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
)

// BusyTimeoutMillis is how long a connection waits for another writer's
// lock before failing with SQLITE_BUSY: 60 seconds.
const BusyTimeoutMillis = 60000

// DriverDSN turns a profdb SQLite DSN into a modernc.org/sqlite DSN (a
// file: URI). The forms are:
//
//	sqlite:PATH           PATH relative to the working directory or absolute
//	sqlite:///abs/path    an absolute path
//	sqlite://rel/path     a relative path (sqlite://x.db is the file x.db)
//
// Everything after the scheme (and "//") is the file path, taken literally:
// no percent-decoding, no query string, no fragment, so paths with spaces,
// '?', '#' or '%' work as typed. In-memory databases are refused: every
// pooled connection would see its own, empty database.
func (Dialect) DriverDSN(dsn string) (string, error) {
	path, err := parseDSN(dsn)
	if err != nil {
		if scheme, _, _ := strings.Cut(dsn, ":"); !strings.EqualFold(scheme, "sqlite") {
			// Some other database's DSN, perhaps with a password in a
			// form Redact does not know: name only the scheme.
			return "", fmt.Errorf("sqlite: DSN with scheme %q: %w", scheme, err)
		}
		return "", fmt.Errorf("sqlite: DSN %q: %w", dsn, err)
	}
	return fileURI(path) + "?" + queryParams, nil
}

// queryParams are the settings DriverDSN adds to every connection:
//   - busy_timeout: wait for a concurrent writer instead of failing at once;
//   - _txlock=immediate: BEGIN IMMEDIATE, so a transaction takes the write
//     lock at its start and two exporters cannot both read, then deadlock on
//     upgrading to write;
//   - cache_size: a 16 MiB page cache (default 2 MB): the export benchmark
//     loads 1M rows into a table with two indexes as fast as with 64 MiB,
//     and the whole profdb process stays at 54 MiB, the same at 4M rows;
//     memory is taken only as pages are cached;
//   - _dqs=0: a double-quoted name that matches no column is an error, not
//     a string literal (SQLite's "double-quoted string" misfeature).
//
// Nothing weakens durability: journal mode and synchronous stay at SQLite's
// defaults (rollback journal, FULL).
var queryParams = fmt.Sprintf("_pragma=busy_timeout%%28%d%%29&_pragma=cache_size%%28-%d%%29&_txlock=immediate&_dqs=0",
	BusyTimeoutMillis, CacheKiB)

// CacheKiB is the page cache size DriverDSN sets, in KiB.
const CacheKiB = 16384

// parseDSN returns the file path of a profdb SQLite DSN.
func parseDSN(dsn string) (string, error) {
	scheme, rest, ok := strings.Cut(dsn, ":")
	if !ok || !strings.EqualFold(scheme, "sqlite") {
		return "", errors.New(`want "sqlite:PATH", "sqlite:///abs/path" or "sqlite://rel/path"`)
	}
	path := rest
	if strings.HasPrefix(rest, "//") {
		path = rest[2:] // sqlite:///abs -> /abs; sqlite://rel -> rel
	}
	switch {
	case path == "":
		return "", errors.New("no file path")
	case path == ":memory:" || strings.HasPrefix(path, "file::memory:") || strings.Contains(path, "mode=memory"):
		return "", errors.New("in-memory databases are not supported (each pooled connection would get its own empty database); give a file path")
	case strings.ContainsRune(path, 0):
		return "", errors.New("file path contains a NUL byte")
	}
	return path, nil
}

// fileURI returns an SQLite URI filename (https://sqlite.org/uri.html) for
// path, percent-encoding every byte that is not unreserved, '/' or ':' so
// that '?', '#', '%' and spaces stay part of the path.
func fileURI(path string) string {
	p := filepath.ToSlash(path)
	if vol := filepath.VolumeName(path); vol != "" && !strings.HasPrefix(p, "/") {
		p = "/" + p // file:///C:/x.db
	}
	var b strings.Builder
	b.Grow(len(p) + 8)
	if strings.HasPrefix(p, "/") {
		// An empty authority, so that a path starting with "//" is not
		// read as a host.
		b.WriteString("file://")
	} else {
		b.WriteString("file:")
	}
	const hex = "0123456789ABCDEF"
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9',
			c == '-', c == '.', c == '_', c == '~', c == '/', c == ':':
			b.WriteByte(c)
		default:
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
		}
	}
	return b.String()
}

package sqlite

import (
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/profdb/profdb/dialects"
)

// BusyTimeoutMillis is how long a connection waits for another writer's
// lock before failing with SQLITE_BUSY: 60 seconds.
const BusyTimeoutMillis = 60000

// DriverDSN turns a profdb SQLite DSN into a modernc.org/sqlite DSN (a
// file: URI) for a connection that may create and write the file; see
// DriverDSNAccess.
func (d Dialect) DriverDSN(dsn string) (string, error) {
	return d.DriverDSNAccess(dsn, dialects.ReadWrite)
}

// DriverDSNAccess turns a profdb SQLite DSN into a modernc.org/sqlite DSN
// (a file: URI) for a connection limited to access a. The forms are:
//
//	sqlite:PATH           PATH relative to the working directory or absolute
//	sqlite:///abs/path    an absolute path
//	sqlite://rel/path     a relative path (sqlite://x.db is the file x.db)
//	sqlite:PATH?mode=ro   any form, with parameters after the first '?'
//
// Everything after the scheme (and "//") up to the first '?' is the file
// path, taken literally: no percent-decoding, no fragment, so paths with
// spaces, '#' or '%' work as typed (a '?' cannot be part of the path). The
// one parameter is mode, SQLite's own URI parameter: ro (read only), rw
// (read and write an existing file) or rwc (also create it, the default).
// The stricter of mode and a wins: ReadOnly opens with mode=ro, NoCreate
// with mode=rw, so that a missing file is an error instead of a new empty
// database. A read-only connection begins its transactions deferred (it
// takes no write lock); others begin them immediate (see queryParams).
// In-memory databases are refused: every pooled connection would see its
// own, empty database.
func (Dialect) DriverDSNAccess(dsn string, a dialects.Access) (string, error) {
	path, mode, err := parseDSN(dsn)
	if err != nil {
		return "", dsnError(dsn, err)
	}
	switch {
	case a == dialects.ReadOnly:
		mode = "ro"
	case a == dialects.NoCreate && mode == "rwc":
		mode = "rw"
	}
	params := queryParams
	if mode == "ro" {
		params = readParams
	}
	if mode != "rwc" {
		params = "mode=" + mode + "&" + params
	}
	return fileURI(path) + "?" + params, nil
}

// File returns the path of the database file a profdb SQLite DSN names.
func (Dialect) File(dsn string) (string, error) {
	path, _, err := parseDSN(dsn)
	if err != nil {
		return "", dsnError(dsn, err)
	}
	return path, nil
}

// dsnError prefixes err with the DSN, or only its scheme when the DSN is
// another database's, which may hold a password in a form Redact does not
// know.
func dsnError(dsn string, err error) error {
	if scheme, _, _ := strings.Cut(dsn, ":"); !strings.EqualFold(scheme, "sqlite") {
		return fmt.Errorf("sqlite: DSN with scheme %q: %w", scheme, err)
	}
	return fmt.Errorf("sqlite: DSN %q: %w", dsn, err)
}

// queryParams are the settings DriverDSN adds to every connection:
//   - busy_timeout: wait for a concurrent writer instead of failing at once;
//   - _txlock=immediate: BEGIN IMMEDIATE, so a transaction takes the write
//     lock at its start and two exporters cannot both read, then deadlock on
//     upgrading to write;
//   - cache_size: a 16 MiB page cache (default 2 MB), large enough that a
//     load into a table with two indexes goes as fast as with a larger one,
//     and small enough that the process's memory stays flat with the row
//     count (docs/performance.md, "SQLite: indexes, page cache and
//     statement size"); memory is taken only as pages are cached;
//   - _dqs=0: a double-quoted name that matches no column is an error, not
//     a string literal (SQLite's "double-quoted string" misfeature).
//
// Nothing weakens durability: journal mode and synchronous stay at SQLite's
// defaults (rollback journal, FULL).
var queryParams = fmt.Sprintf("_pragma=busy_timeout%%28%d%%29&_pragma=cache_size%%28-%d%%29&_txlock=immediate&_dqs=0",
	BusyTimeoutMillis, CacheKiB)

// readParams are queryParams for a read-only connection: its transactions
// begin deferred, taking only the shared lock of a reader, and its page
// cache stays at SQLite's default: what reads (copy, show, report, verify)
// go over their rows once, and a 16 MiB cache filled only to hold pages
// they would not read again (docs/performance.md, "Figures of
// 2026-11-27").
var readParams = fmt.Sprintf("_pragma=busy_timeout%%28%d%%29&_dqs=0", BusyTimeoutMillis)

// CacheKiB is the page cache size DriverDSN sets, in KiB.
const CacheKiB = 16384

// parseDSN returns the file path of a profdb SQLite DSN and its mode
// parameter ("rwc" when absent).
func parseDSN(dsn string) (path, mode string, err error) {
	scheme, rest, ok := strings.Cut(dsn, ":")
	if !ok || !strings.EqualFold(scheme, "sqlite") {
		return "", "", errors.New(`want "sqlite:PATH", "sqlite:///abs/path" or "sqlite://rel/path"`)
	}
	path = rest
	if strings.HasPrefix(rest, "//") {
		path = rest[2:] // sqlite:///abs -> /abs; sqlite://rel -> rel
	}
	path, query, hasQuery := strings.Cut(path, "?")
	switch {
	case path == "":
		return "", "", errors.New("no file path")
	case path == ":memory:" || strings.HasPrefix(path, "file::memory:") || strings.Contains(query, "mode=memory"):
		return "", "", errors.New("in-memory databases are not supported (each pooled connection would get its own empty database); give a file path")
	case strings.ContainsRune(path, 0):
		return "", "", errors.New("file path contains a NUL byte")
	}
	mode = "rwc"
	if hasQuery {
		vals, err := url.ParseQuery(query)
		if err != nil {
			return "", "", fmt.Errorf("bad parameters after '?': %w", err)
		}
		for k, v := range vals {
			if k != "mode" {
				return "", "", fmt.Errorf("unknown parameter %q after '?' (the one parameter is mode=ro, rw or rwc; a file name cannot contain '?')", k)
			}
			if len(v) != 1 || (v[0] != "ro" && v[0] != "rw" && v[0] != "rwc") {
				return "", "", fmt.Errorf("mode=%s: want mode=ro, rw or rwc", strings.Join(v, ","))
			}
			mode = v[0]
		}
	}
	return path, mode, nil
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

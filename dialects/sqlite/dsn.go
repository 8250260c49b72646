package sqlite

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/profdb/profdb/dialects"
)

var _ dialects.LockWaiter = Dialect{}

// DriverDSN turns a profdb SQLite DSN into a modernc.org/sqlite DSN (a
// file: URI) for a connection that may create and write the file; see
// DriverDSNAccess.
func (d Dialect) DriverDSN(dsn string) (string, error) {
	return d.DriverDSNAccess(dsn, dialects.ReadWrite)
}

// DriverDSNAccess turns a profdb SQLite DSN into a modernc.org/sqlite DSN
// (a file: URI) for a connection limited to access a, that waits for
// another connection's lock as the DSN says (DriverDSNWait).
func (d Dialect) DriverDSNAccess(dsn string, a dialects.Access) (string, error) {
	drv, _, err := d.DriverDSNWait(dsn, a, 0)
	return drv, err
}

// DriverDSNWait turns a profdb SQLite DSN into a modernc.org/sqlite DSN
// (a file: URI) for a connection limited to access a that waits up to
// wait for a lock another connection holds (0: the DSN's lock_timeout, or
// dialects.DefaultLockTimeout; negative: no limit). The forms are:
//
//	sqlite:PATH           PATH relative to the working directory or absolute
//	sqlite:///abs/path    an absolute path
//	sqlite://rel/path     a relative path (sqlite://x.db is the file x.db)
//	sqlite:PATH?mode=ro   any form, with parameters after the first '?'
//
// Everything after the scheme (and "//") up to the first '?' is the file
// path, taken literally: no percent-decoding, no fragment, so paths with
// spaces, '#' or '%' work as typed (a '?' cannot be part of the path). The
// parameters are:
//   - mode, SQLite's own URI parameter: ro (read only), rw (read and
//     write an existing file) or rwc (also create it, the default). The
//     stricter of mode and a wins: ReadOnly opens with mode=ro, NoCreate
//     with mode=rw, so that a missing file is an error instead of a new
//     empty database. A read-only connection begins its transactions
//     deferred (it takes no write lock); others begin them immediate (see
//     queryParams).
//   - lock_timeout, a duration such as 90s or 30m (0: no limit): how long
//     a connection waits for the lock of another that writes (or, for a
//     writer about to commit, that reads) before it gives up, SQLite's
//     busy timeout. A writer that gave up while the file changed waits
//     again (see dialects.LockWaiter); a wait argument other than 0 wins.
//
// It returns the lock timeout set, negative for none. In-memory databases
// are refused: every pooled connection would see its own, empty database.
func (Dialect) DriverDSNWait(dsn string, a dialects.Access, wait time.Duration) (string, time.Duration, error) {
	p, err := parseDSN(dsn)
	if err != nil {
		return "", 0, dsnError(dsn, err)
	}
	mode := p.mode
	switch {
	case a == dialects.ReadOnly:
		mode = "ro"
	case a == dialects.NoCreate && mode == "rwc":
		mode = "rw"
	}
	if wait == 0 {
		wait = p.wait
	}
	if wait == 0 {
		wait = dialects.DefaultLockTimeout
	}
	params := queryParams(busyMillis(wait))
	if mode == "ro" {
		params = readParams(busyMillis(wait))
	}
	if mode != "rwc" {
		params = "mode=" + mode + "&" + params
	}
	return fileURI(p.path) + "?" + params, wait, nil
}

// busyMillis is SQLite's busy timeout, in milliseconds, for the lock
// timeout wait: at least 1 for a positive wait, and for no limit
// (negative) the largest SQLite takes, 24 days.
func busyMillis(wait time.Duration) int64 {
	if wait < 0 || wait.Milliseconds() > math.MaxInt32 {
		return math.MaxInt32
	}
	return max(wait.Milliseconds(), 1)
}

// WriteProgress returns the size and modification time of the database
// file, of its rollback journal and of its write-ahead log: a writer that
// loads rows grows the journal or the log or writes into the file as its
// page cache fills, and a commit writes the file or the log. It only asks
// the file system (stat) and never opens the files: closing a descriptor
// of the database file would drop every lock the process's own SQLite
// connections hold on it (POSIX record locks belong to the process, not to
// the descriptor), so that another process could write while one of them
// believes it holds the write lock.
func (Dialect) WriteProgress(file string) (string, error) {
	var b strings.Builder
	for _, suffix := range []string{"", "-journal", "-wal"} {
		fi, err := os.Stat(file + suffix)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			b.WriteString("none;")
			continue
		case err != nil:
			return "", fmt.Errorf("sqlite: %w", err)
		}
		fmt.Fprintf(&b, "%d %d;", fi.Size(), fi.ModTime().UnixNano())
	}
	return b.String(), nil
}

// LockTimedOut reports whether err is SQLITE_BUSY (any extended code):
// another connection held the lock for the whole busy timeout.
func (Dialect) LockTimedOut(err error) bool {
	var se *sqlite.Error
	return errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_BUSY
}

// File returns the path of the database file a profdb SQLite DSN names.
func (Dialect) File(dsn string) (string, error) {
	p, err := parseDSN(dsn)
	if err != nil {
		return "", dsnError(dsn, err)
	}
	return p.path, nil
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

// queryParams are the settings DriverDSN adds to every connection that
// may write:
//   - busy_timeout: wait for a concurrent writer instead of failing at once
//     (the lock timeout, in milliseconds);
//   - _txlock=immediate: BEGIN IMMEDIATE, so a transaction takes the write
//     lock at its start and two exporters cannot both read, then deadlock on
//     upgrading to write (SQLite would fail one of them at once, without
//     waiting);
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
func queryParams(busyMillis int64) string {
	return fmt.Sprintf("_pragma=busy_timeout%%28%d%%29&_pragma=cache_size%%28-%d%%29&_txlock=immediate&_dqs=0", busyMillis, CacheKiB)
}

// readParams are queryParams for a read-only connection: its transactions
// begin deferred, taking only the shared lock of a reader, and its page
// cache stays at SQLite's default: what reads (copy, show, report, verify)
// go over their rows once, and a 16 MiB cache filled only to hold pages
// they would not read again (docs/performance.md, "Figures of
// 2026-11-27").
func readParams(busyMillis int64) string {
	return fmt.Sprintf("_pragma=busy_timeout%%28%d%%29&_dqs=0", busyMillis)
}

// CacheKiB is the page cache size DriverDSN sets, in KiB.
const CacheKiB = 16384

// dsnParams are what a profdb SQLite DSN says.
type dsnParams struct {
	path string
	mode string        // "rwc" when absent
	wait time.Duration // lock_timeout: 0 when absent, negative for no limit
}

// parseDSN reads a profdb SQLite DSN.
func parseDSN(dsn string) (dsnParams, error) {
	scheme, rest, ok := strings.Cut(dsn, ":")
	if !ok || !strings.EqualFold(scheme, "sqlite") {
		return dsnParams{}, errors.New(`want "sqlite:PATH", "sqlite:///abs/path" or "sqlite://rel/path"`)
	}
	path := rest
	if strings.HasPrefix(rest, "//") {
		path = rest[2:] // sqlite:///abs -> /abs; sqlite://rel -> rel
	}
	path, query, hasQuery := strings.Cut(path, "?")
	switch {
	case path == "":
		return dsnParams{}, errors.New("no file path")
	case path == ":memory:" || strings.HasPrefix(path, "file::memory:") || strings.Contains(query, "mode=memory"):
		return dsnParams{}, errors.New("in-memory databases are not supported (each pooled connection would get its own empty database); give a file path")
	case strings.ContainsRune(path, 0):
		return dsnParams{}, errors.New("file path contains a NUL byte")
	}
	p := dsnParams{path: path, mode: "rwc"}
	if !hasQuery {
		return p, nil
	}
	vals, err := url.ParseQuery(query)
	if err != nil {
		return dsnParams{}, fmt.Errorf("bad parameters after '?': %w", err)
	}
	for k, v := range vals {
		switch {
		case k != "mode" && k != "lock_timeout":
			return dsnParams{}, fmt.Errorf("unknown parameter %q after '?' (the parameters are mode=ro, rw or rwc and lock_timeout=DURATION; a file name cannot contain '?')", k)
		case len(v) != 1:
			return dsnParams{}, fmt.Errorf("%s given %d times: give it once", k, len(v))
		case k == "mode":
			if v[0] != "ro" && v[0] != "rw" && v[0] != "rwc" {
				return dsnParams{}, fmt.Errorf("mode=%s: want mode=ro, rw or rwc", v[0])
			}
			p.mode = v[0]
		default:
			d, err := time.ParseDuration(v[0])
			if err != nil || d < 0 {
				return dsnParams{}, fmt.Errorf("lock_timeout=%s: want a duration such as 90s or 30m, or 0 for no limit", v[0])
			}
			if p.wait = d; d == 0 {
				p.wait = -1
			}
		}
	}
	return p, nil
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

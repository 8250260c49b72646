package store

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"sync"
	"time"

	"github.com/profdb/profdb/dialects"
)

// A database file that the dialect's driver opens itself
// (dialects.AccessDSN: SQLite) is held by every DB that Open opens on it,
// from before the driver opens it until after Close closed the driver's
// connections: the hold tells every other DB, in this process and in
// others, that the file is in use. A file that a DB's Open created (it
// did not exist before) is removed when its last hold ends while it is
// still empty, so that a command that failed (or wrote nothing) leaves no
// empty file behind, which SQLite would open as an empty database; it is
// never removed while another holds it. Without holds, a command that
// failed removed the file that another, started at the same time, had
// opened and was about to write: that one's result set went into the
// removed file, and was lost.
//
// Within a process, the DBs on one file share one heldFile; between
// processes, the platform marks the file in use (lockShared) and removes
// it only when no other process marks it (removeIfUnused), see
// newfile_unix.go and newfile_windows.go. On platforms without such a
// mark, a file is never removed.

// heldFile is a database file held by the DBs of this process.
type heldFile struct {
	path    string      // as the DSN of the DB that first held it names it
	f       *os.File    // open while held: marks the file in use (nil where the platform has no mark)
	info    fs.FileInfo // the file's identity
	refs    int         // the DBs that hold it
	created bool        // a DB of this process created it: removed by the last release while empty
}

// held is the registry of the database files the DBs of this process
// hold, one entry per file: two DBs on one file share its entry (and its
// descriptor), as SQLite shares one lock per file between its connections
// in a process. It must be one per file for a second reason: on Unix,
// closing any descriptor of a file drops every POSIX lock the process
// holds on it, SQLite's included, so a descriptor of a database file is
// closed only when no DB of the process uses the file any more.
var held struct {
	sync.Mutex
	files []*heldFile
}

// hold returns the file at path, held for one more DB, or nil when there
// is no regular file at path (or it cannot be opened: the driver then
// says why). created records that the DB created it (see absentFile).
// It waits, up to ctx, while another process removes the file, then
// finds it gone.
func hold(ctx context.Context, path string, created bool) (*heldFile, error) {
	if path == "" {
		return nil, nil
	}
	held.Lock()
	defer held.Unlock()
	for {
		fi, err := os.Stat(path)
		if err != nil || !fi.Mode().IsRegular() {
			return nil, nil
		}
		for _, h := range held.files {
			if os.SameFile(h.info, fi) {
				h.refs++
				h.created = h.created || created
				return h, nil
			}
		}
		f, err := lockShared(ctx, path)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			continue // removed since: look again
		case err != nil && ctx.Err() != nil:
			return nil, err
		case err != nil:
			return nil, nil
		}
		h := &heldFile{path: path, f: f, info: fi, refs: 1, created: created}
		if f != nil {
			// The mark is taken: the file can no longer be removed. Was it
			// removed (and perhaps made anew) before?
			ffi, ferr := f.Stat()
			pfi, perr := os.Stat(path)
			if ferr != nil || perr != nil || !os.SameFile(ffi, pfi) {
				f.Close()
				continue
			}
			h.info = ffi
		}
		held.files = append(held.files, h)
		return h, nil
	}
}

// markWait bounds how long lockShared waits for the mark of a file: a
// process that removes the file holds it exclusively for as long as it
// takes to check the file and remove it, a fraction of a millisecond.
const markWait = 10 * time.Second

// release ends one DB's hold. The last one closes the file and, if a DB
// created it and remove is true, removes it while it is empty and no
// other process holds it.
func (h *heldFile) release(remove bool) error {
	held.Lock()
	defer held.Unlock()
	if h.refs--; h.refs > 0 {
		return nil
	}
	for i, o := range held.files {
		if o == h {
			held.files = append(held.files[:i], held.files[i+1:]...)
			break
		}
	}
	if h.f == nil {
		return nil
	}
	if !h.created || !remove {
		return h.f.Close()
	}
	return removeIfUnused(h.f, h.path, h.info)
}

// emptyNew reports whether the file at path, identified by fi as it is
// now, is still the one held (was) and nothing was ever committed into
// it: it holds no byte, and no journal (rollback or write-ahead log) of a
// transaction is beside it.
func emptyNew(path string, fi, was fs.FileInfo) bool {
	if !os.SameFile(fi, was) || fi.Size() != 0 {
		return false
	}
	for _, suffix := range []string{"-journal", "-wal"} {
		if _, err := os.Lstat(path + suffix); !errors.Is(err, fs.ErrNotExist) {
			return false
		}
	}
	return true
}

// fileOf returns the path of the database file dsn names when the dialect
// opens database files itself (dialects.AccessDSN), "" otherwise.
func fileOf(d dialects.Dialect, dsn string) string {
	a, ok := d.(dialects.AccessDSN)
	if !ok {
		return ""
	}
	path, err := a.File(dsn)
	if err != nil {
		return ""
	}
	return path
}

// absentFile reports whether the database file at path (see fileOf) does
// not exist yet while the connection may create it.
func absentFile(path string, o Options) bool {
	if path == "" || o.ReadOnly || o.NoCreate {
		return false
	}
	_, err := os.Lstat(path)
	return errors.Is(err, fs.ErrNotExist)
}

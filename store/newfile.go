package store

import (
	"errors"
	"io/fs"
	"os"

	"github.com/profdb/profdb/dialects"
)

// newFile is a database file that Open created (it did not exist before):
// Close removes it while it is still empty, so that a command that failed
// (or wrote nothing) leaves no empty file behind, which SQLite would open
// as an empty database.
type newFile struct {
	path string
	info fs.FileInfo // as Open found it, just created
}

// absentFile returns the path of the database file dsn names when the
// dialect opens database files itself (dialects.AccessDSN), the connection
// may create one and none exists yet; "" otherwise.
func absentFile(d dialects.Dialect, dsn string, o Options) string {
	a, ok := d.(dialects.AccessDSN)
	if !ok || o.ReadOnly || o.NoCreate {
		return ""
	}
	path, err := a.File(dsn)
	if err != nil {
		return ""
	}
	if _, err := os.Lstat(path); !errors.Is(err, fs.ErrNotExist) {
		return ""
	}
	return path
}

// created returns the new file at path, absent before Open connected, or
// nil when there is none (the DSN's own mode=rw, say, created nothing).
func created(path string) *newFile {
	if path == "" {
		return nil
	}
	fi, err := os.Lstat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	return &newFile{path: path, info: fi}
}

// removeIfEmpty removes the file when it is still the one Open created and
// nothing was ever committed into it: it holds no byte, and no journal
// (rollback or write-ahead log) of a transaction is beside it.
func (f *newFile) removeIfEmpty() error {
	fi, err := os.Lstat(f.path)
	if err != nil || !os.SameFile(fi, f.info) || fi.Size() != 0 {
		return nil
	}
	for _, suffix := range []string{"-journal", "-wal"} {
		if _, err := os.Lstat(f.path + suffix); !errors.Is(err, fs.ErrNotExist) {
			return nil
		}
	}
	if err := os.Remove(f.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

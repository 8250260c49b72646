//go:build !linux && !darwin && !windows

package store

import (
	"context"
	"io/fs"
	"os"
)

// lockShared marks nothing on this platform (it has no lock that leaves
// SQLite's own alone and belongs to a descriptor): a file is held
// unmarked, and since no process could tell that another uses it, a file
// that a DB created is never removed.
func lockShared(context.Context, string) (*os.File, error) { return nil, nil }

// removeIfUnused is never called here: no file is held with a descriptor.
func removeIfUnused(f *os.File, _ string, _ fs.FileInfo) error { return f.Close() }

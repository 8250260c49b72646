package store

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"time"

	"golang.org/x/sys/windows"
)

// lockShared opens the file at path, which must exist: a file that is
// open cannot be removed on Windows unless every handle of it lets it be
// (FILE_SHARE_DELETE), which neither Go's os.Open nor SQLite's handles
// do, so that the handle f is the mark that the file is in use. It waits,
// up to ctx or markWait, while a process that removes the file holds it
// alone (see removeIfUnused).
func lockShared(ctx context.Context, path string) (*os.File, error) {
	for deadline := time.Now().Add(markWait); ; {
		f, err := os.Open(path)
		if !errors.Is(err, windows.ERROR_SHARING_VIOLATION) || time.Now().After(deadline) {
			return f, err
		}
		t := time.NewTimer(time.Millisecond)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		case <-t.C:
		}
	}
}

// removeIfUnused closes f, the last hold of this process on the file at
// path, which was, and removes the file if it is still the one held and
// empty (emptyNew) and no other handle of it is open: it opens the file
// sharing nothing, which fails while another process has it open (an
// os.Remove would fail then too, with a sharing violation, after
// emptiness was checked without holding it), checks it, and has it
// deleted when that handle closes.
func removeIfUnused(f *os.File, path string, was fs.FileInfo) error {
	err := f.Close() // this handle, too, would stand in the way
	p, perr := windows.UTF16PtrFromString(path)
	if perr != nil {
		return err
	}
	h, cerr := windows.CreateFile(p, windows.GENERIC_READ|windows.DELETE, 0, nil,
		windows.OPEN_EXISTING, windows.FILE_ATTRIBUTE_NORMAL|windows.FILE_FLAG_OPEN_REPARSE_POINT, 0)
	if cerr != nil {
		return err // another process has it open, or it is gone: leave it
	}
	g := os.NewFile(uintptr(h), path)
	defer g.Close()
	fi, serr := g.Stat()
	if serr != nil || !fi.Mode().IsRegular() || !emptyNew(path, fi, was) {
		return err
	}
	deleteFile := byte(1) // FILE_DISPOSITION_INFO{DeleteFile: TRUE}: deleted when g closes
	if derr := windows.SetFileInformationByHandle(h, windows.FileDispositionInfo, &deleteFile, 1); derr != nil {
		return errors.Join(err, &fs.PathError{Op: "remove", Path: path, Err: derr})
	}
	return err
}

//go:build linux || darwin

package store

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// markOffset is where the lock that marks a database file in use lies: an
// open file description lock (F_OFD_SETLK) on the one byte there, far
// beyond the largest file SQLite writes (2^48 bytes) and the bytes it
// locks (from 1 GiB on), so that the mark never meets SQLite's own POSIX
// locks. (flock(2) would: on macOS, the BSDs and Linux NFS it conflicts
// with them, and every write would wait for a lock the readers' marks
// hold.) An open file description lock belongs to the descriptor, not the
// process, so that the hold of a DB is not dropped when SQLite closes a
// descriptor of the file.
const markOffset = 1 << 62

// mark takes (typ F_RDLCK or F_WRLCK) the mark on f without waiting.
func mark(f *os.File, typ int16) error {
	lk := unix.Flock_t{Type: typ, Whence: io.SeekStart, Start: markOffset, Len: 1}
	for {
		err := unix.FcntlFlock(f.Fd(), ofdSetlk, &lk)
		if !errors.Is(err, unix.EINTR) {
			return err
		}
	}
}

// lockShared opens the file at path, which must exist, and takes its
// shared mark: no other profdb process removes it while f is open. It
// waits, up to ctx, while a process that removes the file holds the
// exclusive mark (for as long as it takes to check the file and remove
// it). Where the file system has no such locks, the file is held
// unmarked; no process can then take the exclusive mark, so none removes
// it. (So it is, too, after markWait, a wait no remover causes.)
func lockShared(ctx context.Context, path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	for deadline := time.Now().Add(markWait); ; {
		err := mark(f, unix.F_RDLCK)
		if !errors.Is(err, unix.EAGAIN) && !errors.Is(err, unix.EACCES) || time.Now().After(deadline) {
			return f, nil
		}
		t := time.NewTimer(time.Millisecond)
		select {
		case <-ctx.Done():
			t.Stop()
			f.Close()
			return nil, ctx.Err()
		case <-t.C:
		}
	}
}

// removeIfUnused closes f, the last hold of this process on the file at
// path, which was, and removes the file if it is still the one held and
// empty (emptyNew) and no other process marks it in use: it takes the
// exclusive mark without waiting, and checks the file under it.
func removeIfUnused(f *os.File, path string, was fs.FileInfo) error {
	// The exclusive mark needs a descriptor open for writing. No DB of
	// this process uses the file any more: closing f drops no lock of
	// theirs.
	err := f.Close()
	g, oerr := os.OpenFile(path, os.O_RDWR|syscall.O_NONBLOCK, 0)
	if oerr != nil {
		return err // gone, or not ours to write: leave it
	}
	defer g.Close()
	if mark(g, unix.F_WRLCK) != nil {
		return err // another process holds it (or it cannot be marked)
	}
	fi, serr := g.Stat()
	pfi, perr := os.Lstat(path)
	if serr != nil || perr != nil || !os.SameFile(fi, pfi) || !emptyNew(path, fi, was) {
		return err
	}
	if rerr := os.Remove(path); rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
		return rerr
	}
	return err
}

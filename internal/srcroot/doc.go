// Package srcroot is the one way from a file name found in data (a
// coverage file, a profile, a result set) to a file on disk: the file is
// read only when it lies under a root folder the user named
// (--source-root), so that data cannot make profdb read, embed or echo any
// other file.
//
// Open opens the root; Root.Find looks a name up the way the HTML report
// does, Root.ReadFile reads one exact relative name (the Go coverage
// reader's import paths). The rules:
//
//   - A relative name is looked for under the root. Its real path, after
//     ".." and symbolic links, must lie under the root's real path
//     (filepath.EvalSymlinks of both); the file is then opened through an
//     os.Root, which refuses an escape by ".." or by a link whatever
//     happens to the tree meanwhile. Find also tries the name's tails
//     (src/pkg/a.go, then pkg/a.go, then a.go) past any ".." in it.
//   - An absolute name is never opened as it is: it is matched by its
//     tail under the root, longest tail first (/home/ci/build/src/pkg/a.go
//     finds ROOT/home/ci/build/src/pkg/a.go, ROOT/ci/build/src/pkg/a.go, …,
//     ROOT/src/pkg/a.go or ROOT/pkg/a.go), after its ".." are resolved
//     against its own "/" (C:\..\..\etc\hostname is /etc/hostname).
//   - Windows names (backslashes, a drive letter as in C:\x\y.go, UNC
//     \\server\share\x and \\?\ names) are understood on every system,
//     and POSIX names on Windows.
//   - Only regular files are read: a directory, device, FIFO or socket is
//     refused before it is opened (and the file is opened non-blocking and
//     checked again once open, so a FIFO swapped in cannot hang the read);
//     on Linux so is a file of a kernel file system (/proc, /sys and the
//     like), whose files lie about their size. At most the size the file
//     had when it was opened is read, and a file larger than the root's
//     limit (Options.MaxSize) is refused.
//
// A name that is not found gives an error that is fs.ErrNotExist; a
// refused one an error that is ErrRefused, saying why, which callers show
// as a warning. Neither ever holds a byte of any file's contents, only
// the name (as the data gave it: callers escape it for a terminal or a
// page).
package srcroot

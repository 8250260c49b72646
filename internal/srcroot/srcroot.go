package srcroot

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"
)

// DefaultMaxSize is the largest file a Root reads when Options.MaxSize is 0.
const DefaultMaxSize = 16 << 20

// ErrRefused is matched by errors.Is in the error of a name that exists but
// is not read: outside the root, not a regular file, on a kernel file system,
// or too large.
var ErrRefused = errors.New("refused")

// RefusedError says why a name is not read. Its text names the name and
// the reason, never the file's contents.
type RefusedError struct {
	Name   string // the name as the data gave it
	Reason string
	// Outside is set when the name leads out of the root (by "..", an
	// absolute link or one whose target lies outside).
	Outside bool
}

func (e *RefusedError) Error() string        { return "source " + e.Name + " refused: " + e.Reason }
func (e *RefusedError) Is(target error) bool { return target == ErrRefused }

// Options tune a Root.
type Options struct {
	// MaxSize is the largest file read, in bytes (0: DefaultMaxSize); a
	// larger one is refused.
	MaxSize int64
}

// Root is a folder that files are read from, and only from.
type Root struct {
	dir  string // as the user gave it, cleaned: what paths are shown under
	real string // its absolute real path (symbolic links resolved)
	root *os.Root
	max  int64
}

// File is a file found under a Root.
type File struct {
	Rel  string // its slash-separated name relative to the root
	Path string // the root as given joined with Rel: for messages
	Data []byte
}

// Open opens the folder dir as a Root. Close it when done.
func Open(dir string, o Options) (*Root, error) {
	if dir == "" {
		return nil, errors.New("source root: no folder given")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("source root %s: %w", dir, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, fmt.Errorf("source root: %w", err)
	}
	if fi, err := os.Stat(real); err != nil {
		return nil, fmt.Errorf("source root: %w", err)
	} else if !fi.IsDir() {
		return nil, fmt.Errorf("source root %s is not a folder", dir)
	}
	r, err := os.OpenRoot(real)
	if err != nil {
		return nil, fmt.Errorf("source root: %w", err)
	}
	maxSize := o.MaxSize
	if maxSize <= 0 {
		maxSize = DefaultMaxSize
	}
	return &Root{dir: filepath.Clean(dir), real: real, root: r, max: maxSize}, nil
}

// Close closes the root.
func (r *Root) Close() error {
	if err := r.root.Close(); err != nil {
		return fmt.Errorf("source root: %w", err)
	}
	return nil
}

// Dir is the root folder as Open was given it.
func (r *Root) Dir() string { return r.dir }

// Path is where the relative name rel lies under the root as Open was
// given it, for messages.
func (r *Root) Path(rel string) string { return filepath.Join(r.dir, filepath.FromSlash(rel)) }

// Find looks name (a file name as data gives it: relative or absolute,
// POSIX or Windows) up under the root and reads it: a relative name itself
// first, then the tails of its path, longest first; an absolute name by
// the tails of its path only. The first candidate that exists under the
// root decides: it is read, or refused (an error that is ErrRefused). A
// candidate that leads out of the root is skipped for the next; when none
// is found, the error is the refusal of one that led out, else one that is
// fs.ErrNotExist.
func (r *Root) Find(ctx context.Context, name string) (*File, error) {
	var outside error
	for _, rel := range Candidates(name) {
		f, err := r.read(ctx, name, rel)
		var re *RefusedError
		switch {
		case err == nil:
			return f, nil
		case errors.Is(err, fs.ErrNotExist):
			continue
		case errors.As(err, &re) && re.Outside:
			if outside == nil {
				outside = err
			}
			continue
		}
		return nil, err
	}
	if outside != nil {
		return nil, outside
	}
	return nil, fmt.Errorf("source %s: %w", name, fs.ErrNotExist)
}

// ReadFile reads the file of the relative name rel (slash- or
// backslash-separated) under the root, as it is: no tails are tried. An
// absolute name is refused.
func (r *Root) ReadFile(ctx context.Context, rel string) (*File, error) {
	comps, abs := split(rel)
	if abs {
		return nil, &RefusedError{Name: rel, Reason: "an absolute name is not read as it is", Outside: true}
	}
	return r.read(ctx, rel, strings.Join(comps, "/"))
}

// Candidates returns the relative names under a root that name may be, in
// the order Find tries them: see Find.
func Candidates(name string) []string {
	comps, abs := split(name)
	if len(comps) == 0 {
		return nil
	}
	var out []string
	if abs {
		// Resolve ".." against the name's own "/": nothing leads above it.
		var kept []string
		for _, c := range comps {
			if c == ".." {
				if len(kept) > 0 {
					kept = kept[:len(kept)-1]
				}
				continue
			}
			kept = append(kept, c)
		}
		comps = kept
	} else {
		// The name itself, its ".." resolved under the root; then the
		// tails past its last "..".
		out = append(out, strings.Join(comps, "/"))
		for i := len(comps) - 1; i >= 0; i-- {
			if comps[i] == ".." {
				comps = comps[i+1:]
				break
			}
		}
	}
	for i := range comps {
		t := strings.Join(comps[i:], "/")
		if len(out) == 0 || out[0] != t {
			out = append(out, t)
		}
	}
	return out
}

// split splits a POSIX or Windows file name into its components ("" and
// "." left out) and says whether it is absolute: it starts with a slash or
// a backslash, a drive letter (C:\x, C:x) or is a UNC or \\?\ name.
func split(name string) (comps []string, abs bool) {
	s := strings.ReplaceAll(name, `\`, "/")
	if p, ok := strings.CutPrefix(s, "//?/"); ok { // \\?\C:\x, \\?\UNC\server\share\x
		s, abs = p, true
		if len(s) >= 4 && strings.EqualFold(s[:4], "UNC/") {
			s = s[4:]
		}
	} else if p, ok := strings.CutPrefix(s, "//./"); ok { // \\.\C:\x
		s, abs = p, true
	}
	if len(s) >= 2 && s[1] == ':' && ('a' <= s[0]|0x20 && s[0]|0x20 <= 'z') {
		s, abs = s[2:], true
	}
	if strings.HasPrefix(s, "/") {
		abs = true
	}
	for c := range strings.SplitSeq(s, "/") {
		if c != "" && c != "." {
			comps = append(comps, c)
		}
	}
	return comps, abs
}

// read reads rel, a slash-separated relative name, under the root; name is
// the name the data gave, for messages.
func (r *Root) read(ctx context.Context, name, rel string) (*File, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	refuse := func(outside bool, format string, args ...any) error {
		return &RefusedError{Name: name, Reason: fmt.Sprintf(format, args...), Outside: outside}
	}
	if rel == "" {
		return nil, fmt.Errorf("source %s: %w", name, fs.ErrNotExist)
	}
	if c := path.Clean(rel); c == ".." || strings.HasPrefix(c, "../") {
		return nil, refuse(true, "it lies outside the source root")
	}
	// The real path, after ".." and links, must lie under the root's.
	real, err := filepath.EvalSymlinks(filepath.Join(r.real, filepath.FromSlash(rel)))
	if err != nil {
		if missing(err) {
			return nil, fmt.Errorf("source %s: %w", name, fs.ErrNotExist)
		}
		return nil, refuse(false, "%v", err)
	}
	under, ok := within(r.real, real)
	if !ok {
		return nil, refuse(true, "its real path lies outside the source root")
	}
	// Open that real path through the os.Root, which refuses an escape
	// race-free (should a link be put in its way meanwhile), and only once
	// it is known to be a regular file: opening a device may do something,
	// and opening a FIFO would wait for a writer.
	fi, err := r.root.Stat(under)
	if err != nil {
		if missing(err) {
			return nil, fmt.Errorf("source %s: %w", name, fs.ErrNotExist)
		}
		return nil, refuse(true, "%v", err)
	}
	if !fi.Mode().IsRegular() {
		return nil, refuse(false, "not a regular file (%s)", kind(fi.Mode()))
	}
	f, err := r.root.OpenFile(under, openFlags, 0)
	if err != nil {
		return nil, refuse(false, "%v", err)
	}
	defer f.Close()
	open, err := f.Stat()
	if err != nil {
		return nil, refuse(false, "%v", err)
	}
	if !open.Mode().IsRegular() || !os.SameFile(fi, open) {
		return nil, refuse(false, "it changed while it was opened")
	}
	if fs, ok := pseudoFS(f); ok {
		return nil, refuse(false, "a file of %s, not a source file", fs)
	}
	if open.Size() > r.max {
		return nil, refuse(false, "%d bytes, more than the %d read at most", open.Size(), r.max)
	}
	data, err := io.ReadAll(io.LimitReader(f, open.Size()))
	if err != nil {
		return nil, refuse(false, "read: %v", err)
	}
	return &File{Rel: rel, Path: r.Path(rel), Data: data}, nil
}

// missing reports whether err means there is no such file: none, or a path
// through a file.
func missing(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)
}

// within returns the path p relative to the folder dir, and whether p lies
// under (or is) dir; both are absolute real paths.
func within(dir, p string) (string, bool) {
	rel, err := filepath.Rel(dir, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", false
	}
	return rel, true
}

// kind names the type of a file that is not regular.
func kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a folder"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "type " + m.Type().String()
}

// IsAbs reports whether name is absolute as a POSIX or a Windows name: it
// starts with a slash or a backslash, a drive letter, or is a UNC or \\?\
// name. Find matches such a name by its tail only.
func IsAbs(name string) bool {
	_, abs := split(name)
	return abs
}

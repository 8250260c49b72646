package input

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"

	"github.com/profdb/profdb/resultset"
)

// Options carry the settings some formats need.
type Options struct {
	// SourceRoot is where Go coverage profiles find their sources (default:
	// the module in the current folder; only files under the module's
	// folder are read, as package internal/srcroot allows), and the folder
	// Cobertura and JaCoCo reports' relative file names are joined to
	// (default: as the report says; no file is read).
	SourceRoot string
	// SkipMissing turns a missing source file into a warning.
	SkipMissing bool
	// Warnf, if set, receives warnings.
	Warnf func(format string, args ...any)
	// Notef, if set, receives notes about the input that are not
	// warnings, such as an LCOV tracefile's own totals.
	Notef func(format string, args ...any)
	// MaxInflate, if positive, is the most a compressed input (a gzipped
	// pprof profile) may inflate to, in bytes; 0 is the default,
	// InflateRatio times the compressed size and at least InflateFloor.
	MaxInflate int64
}

// ErrSourceNotFound is matched by errors.Is in the error of a reader that
// cannot find the source files its input refers to (those of a Go coverage
// profile): Options.SourceRoot or Options.SkipMissing may help then.
var ErrSourceNotFound = errors.New("input: source files not found")

// SourceNotFound returns an error with the text msg that errors.Is matches
// to ErrSourceNotFound.
func SourceNotFound(msg string) error { return sourceNotFound(msg) }

type sourceNotFound string

func (e sourceNotFound) Error() string        { return string(e) }
func (e sourceNotFound) Is(target error) bool { return target == ErrSourceNotFound }

// Format is one input format.
type Format struct {
	// Name is the --format value: "json", "profilerj", "gocover", "lcov",
	// "cobertura", "jacoco" or "pprof" for profdb's own readers.
	Name string
	// Sniff reports whether a file starting with head (up to 4 KiB) is in
	// this format.
	Sniff func(head []byte) bool
	// Read delivers every result set in r, named name in messages, to t.
	// Each result set is committed on its own; on error the current one is
	// rolled back and the error names the file and line.
	Read func(ctx context.Context, r io.Reader, name string, t resultset.Target, o Options) ([]resultset.Result, error)
}

var (
	mu      sync.RWMutex
	formats = map[string]Format{}
)

// Register makes a format available. It panics on a duplicate name.
func Register(f Format) {
	mu.Lock()
	defer mu.Unlock()
	if _, dup := formats[f.Name]; dup {
		panic("input: Register called twice for format " + f.Name)
	}
	formats[f.Name] = f
}

// Names returns the registered format names, sorted.
func Names() []string {
	mu.RLock()
	defer mu.RUnlock()
	out := make([]string, 0, len(formats))
	for n := range formats {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Lookup returns the format registered under name.
func Lookup(name string) (Format, error) {
	mu.RLock()
	f, ok := formats[name]
	mu.RUnlock()
	if !ok {
		return Format{}, fmt.Errorf("input: %w %q (forgotten import?); registered: %s", ErrUnknownFormat, name, strings.Join(Names(), ", "))
	}
	return f, nil
}

// ErrUnknownFormat is matched by errors.Is in the error of a format name
// no format registered under (Lookup, Read).
var ErrUnknownFormat = errors.New("unknown format")

// ErrUndetected is matched by errors.Is in the error of input whose format
// Detect cannot tell (Read with no format named).
var ErrUndetected = errors.New("cannot tell the format")

// Detect picks the format of a file from its first bytes.
func Detect(head []byte) (Format, error) {
	for _, n := range Names() {
		f, _ := Lookup(n)
		if f.Sniff != nil && f.Sniff(head) {
			return f, nil
		}
	}
	return Format{}, fmt.Errorf("input: %w (formats: %s)", ErrUndetected, strings.Join(Names(), ", "))
}

// Read reads r with the named format, or the detected one when format is
// "".
func Read(ctx context.Context, format string, r io.Reader, name string, t resultset.Target, o Options) ([]resultset.Result, error) {
	var f Format
	var err error
	if format != "" {
		if f, err = Lookup(format); err != nil {
			return nil, err
		}
	} else {
		br := bufio.NewReaderSize(r, 64<<10)
		head, _ := br.Peek(4096)
		if f, err = Detect(head); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		r = br
	}
	return f.Read(ctx, r, name, t, o)
}

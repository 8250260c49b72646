package pprof

import (
	"bufio"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/google/pprof/profile"

	"github.com/profdb/profdb/input"
	"github.com/profdb/profdb/resultset"
)

// FormatName is the name the format is registered under.
const FormatName = "pprof"

// CodeType is the COL_CODE_TYPE of every routine.
const CodeType = "Go"

func init() {
	input.Register(input.Format{Name: FormatName, Sniff: Sniff, Read: Read})
}

// Read decodes the whole pprof profile r (named name in messages and the
// caption) and writes one result set to t: Function Trace for a CPU
// profile, Resource for a heap or allocation profile. A profile that does
// not decode, is not valid, or has sample types without a mapping writes
// nothing; the error names the file.
func Read(ctx context.Context, r io.Reader, name string, t resultset.Target, o input.Options) ([]resultset.Result, error) {
	f, err := load(ctx, r, o)
	if err != nil {
		return nil, fmt.Errorf("%s: pprof: %w", name, err)
	}
	// The profile is garbage now, yet the collector's goal still counts
	// it: collect it before the result set is made, so that the rows are
	// allocated in its place.
	runtime.GC()
	res, err := f.export(ctx, t, "pprof: "+filepath.Base(name))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return []resultset.Result{res}, nil
}

// folded is what Read keeps of a profile once its samples are read: the
// figures folded out of them, which make the result set.
type folded interface {
	export(ctx context.Context, t resultset.Target, caption string) (resultset.Result, error)
}

// load decodes the profile and folds its samples; the profile itself is
// not kept.
func load(ctx context.Context, r io.Reader, o input.Options) (folded, error) {
	d, err := parse(ctx, r, o)
	if err != nil {
		return nil, err
	}
	defer d.close()
	p := d.head
	switch kindOf(p) {
	case kindCPU:
		return foldTrace(ctx, d)
	case kindHeap:
		b, err := buildResource(ctx, d)
		if err != nil {
			return nil, err
		}
		return resourceSet{b}, nil
	}
	return nil, fmt.Errorf("sample types %s have no mapping: profdb reads CPU profiles (%s) and heap or allocation profiles (%s)",
		typeList(p.SampleType), strings.Join(cpuTypes, ", "), strings.Join(heapTypes, ", "))
}

// parse reads the profile, gzipped or not, and decodes all of it but its
// samples: protobuf only (not the legacy text formats profile.Parse also
// accepts). What a gzipped profile inflates to is limited (input.Inflated).
func parse(ctx context.Context, r io.Reader, o input.Options) (*decoded, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	magic, err := br.Peek(2)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("reading: %w", err)
	}
	if !isGzip(magic) {
		return decode(ctx, readErrors{br, "reading"})
	}
	compressed := &input.CountingReader{R: br}
	zr, err := gzip.NewReader(compressed)
	if err != nil {
		return nil, fmt.Errorf("decompressing: %w", err)
	}
	return decode(ctx, readErrors{input.Inflated(compressed, zr, o), "decompressing"})
}

// readErrors prefixes the errors of r but io.EOF and the inflate limit's
// with op.
type readErrors struct {
	r  io.Reader
	op string
}

func (e readErrors) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err != nil && err != io.EOF && !errors.Is(err, input.ErrInflateLimit) {
		err = fmt.Errorf("%s: %w", e.op, err)
	}
	return n, err
}

func isGzip(b []byte) bool { return len(b) >= 2 && b[0] == 0x1f && b[1] == 0x8b }

type kind int

const (
	kindOther kind = iota
	kindCPU
	kindHeap
)

// The sample types (type/unit) of the profiles profdb maps.
var (
	cpuTypes  = []string{"samples/count", "cpu/nanoseconds"}
	heapTypes = []string{"alloc_objects/count", "alloc_space/bytes", "inuse_objects/count", "inuse_space/bytes"}
)

// kindOf classifies a profile by its sample types: a CPU profile has the
// type cpu (in nanoseconds) and at most samples/count besides; a heap or
// allocation profile has some of heapTypes and no other.
func kindOf(p *profile.Profile) kind {
	if len(p.SampleType) == 0 {
		return kindOther
	}
	if only(p.SampleType, cpuTypes) && typeIndex(p, "cpu", "nanoseconds") >= 0 {
		return kindCPU
	}
	if only(p.SampleType, heapTypes) {
		return kindHeap
	}
	return kindOther
}

func only(ts []*profile.ValueType, allowed []string) bool {
	seen := map[string]bool{}
	for _, t := range ts {
		s := t.Type + "/" + t.Unit
		found := false
		for _, a := range allowed {
			found = found || a == s
		}
		if !found || seen[s] {
			return false
		}
		seen[s] = true
	}
	return true
}

// typeIndex returns the index of the sample type typ/unit, -1 if absent.
func typeIndex(p *profile.Profile, typ, unit string) int {
	for i, t := range p.SampleType {
		if t.Type == typ && t.Unit == unit {
			return i
		}
	}
	return -1
}

func typeList(ts []*profile.ValueType) string {
	if len(ts) == 0 {
		return "(none)"
	}
	var b strings.Builder
	for i, t := range ts {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%q", t.Type+"/"+t.Unit)
	}
	return b.String()
}

package pprof

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
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
	p, err := parse(ctx, r)
	if err != nil {
		return nil, fmt.Errorf("%s: pprof: %w", name, err)
	}
	caption := "pprof: " + filepath.Base(name)
	var res resultset.Result
	switch kindOf(p) {
	case kindCPU:
		b, err := buildTrace(ctx, p)
		if err != nil {
			return nil, fmt.Errorf("%s: pprof: %w", name, err)
		}
		defer b.Close()
		res, err = b.Export(ctx, t, caption)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
	case kindHeap:
		b, err := buildResource(ctx, p)
		if err != nil {
			return nil, fmt.Errorf("%s: pprof: %w", name, err)
		}
		res, err = b.Export(ctx, t, caption)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
	default:
		return nil, fmt.Errorf("%s: pprof: sample types %s have no mapping: profdb reads CPU profiles (%s) and heap or allocation profiles (%s)",
			name, typeList(p.SampleType), strings.Join(cpuTypes, ", "), strings.Join(heapTypes, ", "))
	}
	return []resultset.Result{res}, nil
}

// parse reads and decodes the whole profile: gzipped or not, protobuf only
// (not the legacy text formats profile.Parse also accepts).
func parse(ctx context.Context, r io.Reader) (*profile.Profile, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("reading: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if isGzip(data) {
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			return nil, fmt.Errorf("decompressing: %w", err)
		}
		if data, err = io.ReadAll(zr); err != nil {
			return nil, fmt.Errorf("decompressing (%d bytes decompressed): %w", len(data), err)
		}
	}
	if len(data) == 0 {
		return nil, errors.New("empty profile")
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	p, err := profile.ParseUncompressed(data)
	if err != nil {
		return nil, fmt.Errorf("decoding the protobuf profile (%d bytes): %w", len(data), err)
	}
	if err := p.CheckValid(); err != nil {
		return nil, fmt.Errorf("malformed profile: %w", err)
	}
	return p, nil
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

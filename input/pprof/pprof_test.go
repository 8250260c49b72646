package pprof_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/pprof/profile"

	"github.com/profdb/profdb/input"
	"github.com/profdb/profdb/input/pprof"
	"github.com/profdb/profdb/profilers/functiontrace"
	"github.com/profdb/profdb/resultset"
)

// synthetic returns a small profile with the sample types given, two
// functions and a recursive stack, gzipped as Go writes it.
func synthetic(t testing.TB, types ...string) []byte {
	t.Helper()
	p := &profile.Profile{}
	for _, ty := range types {
		typ, unit, _ := strings.Cut(ty, "/")
		p.SampleType = append(p.SampleType, &profile.ValueType{Type: typ, Unit: unit})
	}
	m := &profile.Mapping{ID: 1, File: "/bin/app", HasFunctions: true}
	p.Mapping = []*profile.Mapping{m}
	fa := &profile.Function{ID: 1, Name: "main.(*T).a", Filename: "/src/a.go", StartLine: 10}
	fb := &profile.Function{ID: 2, Name: "main.b", Filename: "/src/a.go", StartLine: 20}
	p.Function = []*profile.Function{fa, fb}
	la := &profile.Location{ID: 1, Mapping: m, Address: 0x1000, Line: []profile.Line{{Function: fa, Line: 11}}}
	lb := &profile.Location{ID: 2, Mapping: m, Address: 0x2000, Line: []profile.Line{{Function: fb, Line: 21}}}
	p.Location = []*profile.Location{la, lb}
	vals := func(v int64) []int64 {
		out := make([]int64, len(types))
		for i := range out {
			out[i] = v * int64(i+1)
		}
		return out
	}
	p.Sample = []*profile.Sample{
		{Location: []*profile.Location{la, lb}, Value: vals(3)},
		{Location: []*profile.Location{lb, la, lb}, Value: vals(5)},
	}
	var buf bytes.Buffer
	if err := p.Write(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func gunzip(t testing.TB, b []byte) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func gz(t *testing.T, b []byte) []byte {
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	w.Write(b)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func head(b []byte) []byte { return b[:min(len(b), 4096)] }

// TestSniff: profiles are recognized gzipped and not; the other formats'
// files, gzipped or not, are not taken.
func TestSniff(t *testing.T) {
	cpu := synthetic(t, "samples/count", "cpu/nanoseconds")
	for name, b := range map[string][]byte{"gzipped": cpu, "uncompressed": gunzip(t, cpu)} {
		if !pprof.Sniff(head(b)) {
			t.Errorf("%s profile not recognized", name)
		}
		if f, err := input.Detect(head(b)); err != nil || f.Name != "pprof" {
			t.Errorf("%s profile detected as %q (%v)", name, f.Name, err)
		}
	}
	var others []string
	for _, pattern := range []string{"../lcov/testdata/*.info", "../gocover/testdata/*.out", "../../examples/*.json", "../../examples/profilerj/*.xml"} {
		m, _ := filepath.Glob(pattern)
		others = append(others, m...)
	}
	if len(others) < 4 {
		t.Fatalf("only %d files of other formats", len(others))
	}
	for _, file := range others {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if pprof.Sniff(head(b)) || pprof.Sniff(head(gz(t, b))) {
			t.Errorf("%s taken for a pprof profile", file)
		}
	}
	for _, s := range []string{"", "\x1f\x8b", "\n", "\x0a\x04\x08\x01\x10\x02", "Hello, world\n"} {
		if pprof.Sniff([]byte(s)) {
			t.Errorf("%q taken for a pprof profile", s)
		}
	}
}

func read(t *testing.T, data []byte) (*resultset.Memory, error) {
	t.Helper()
	m := &resultset.Memory{}
	_, err := pprof.Read(t.Context(), bytes.NewReader(data), "x.pprof", m, input.Options{})
	return m, err
}

// TestOtherSampleTypes: mutex, block and goroutine profiles are refused
// with an error naming the file and the sample types.
func TestOtherSampleTypes(t *testing.T) {
	for _, types := range [][]string{
		{"contentions/count", "delay/nanoseconds"},
		{"goroutine/count"},
		{"samples/count", "cpu/nanoseconds", "extra/count"},
	} {
		m, err := read(t, synthetic(t, types...))
		if err == nil || len(m.Sets) != 0 {
			t.Fatalf("%v: no error, %d sets", types, len(m.Sets))
		}
		if !strings.HasPrefix(err.Error(), "x.pprof: ") || !strings.Contains(err.Error(), `"`+types[len(types)-1]+`"`) {
			t.Errorf("%v: error %v", types, err)
		}
	}
}

// TestBrokenProfiles: cut-off, corrupt and legacy text profiles are
// errors naming the file, and write nothing.
func TestBrokenProfiles(t *testing.T) {
	cpu := synthetic(t, "samples/count", "cpu/nanoseconds")
	raw := gunzip(t, cpu)
	for name, b := range map[string][]byte{
		"empty":        nil,
		"cut gzip":     cpu[:len(cpu)/2],
		"cut protobuf": raw[:len(raw)-3],
		"legacy text":  []byte("heap profile: 1: 2 [3: 4] @ heapprofile\n1: 2 [3: 4] @ 0x1\n"),
	} {
		m, err := read(t, b)
		if err == nil || len(m.Sets) != 0 || !strings.HasPrefix(err.Error(), "x.pprof: pprof: ") {
			t.Errorf("%s: error %v, %d sets", name, err, len(m.Sets))
		}
	}
}

// TestRecursionAndNames: a recursive stack gives nested calls of the same
// routine; Go names are split into package, receiver and name.
func TestRecursionAndNames(t *testing.T) {
	m, err := read(t, synthetic(t, "samples/count", "cpu/nanoseconds"))
	if err != nil {
		t.Fatal(err)
	}
	set := m.Sets[0]
	meta := set.Tables[functiontrace.MetaRoutines]
	got := map[string]string{}
	for i := range meta.Rows {
		got[meta.Value(i, "COL_SYMBOL_MONIKER").(string)] = meta.Value(i, "COL_NAMESPACE").(string) + "|" +
			meta.Value(i, "COL_CLASS_NAME").(string) + "|" + meta.Value(i, "COL_ROUTINE_NAME").(string) + "|" +
			meta.Value(i, "COL_MODULE_NAME").(string)
	}
	if got["main.(*T).a"] != "main|T|a|app" || got["main.b"] != "main||b|app" || len(got) != 2 {
		t.Errorf("routines: %v", got)
	}
	// Stacks b→a (3) and b→a→b (5), cpu values twice the samples: the
	// tree is b(cum 16) → a(flat 6, cum 16) → b(flat 10).
	ct := set.Tables[functiontrace.CallTrace]
	own, with := make([]int64, len(ct.Rows)), make([]int64, len(ct.Rows))
	for i := range ct.Rows {
		rec := ct.Value(i, "REC_ID").(int64) // pre-order
		own[rec] = ct.Value(i, "COL__S").(int64)
		with[rec] = ct.Value(i, "COL__S_WITH_CHILDREN").(int64)
	}
	if len(own) != 3 || own[0] != 0 || own[1] != 6 || own[2] != 10 || with[0] != 16 || with[1] != 16 || with[2] != 10 {
		t.Errorf("CALL_TRACE: own %v, with children %v", own, with)
	}
}

// TestStackTooDeep: a stack deeper than the reader takes is refused,
// naming the sample, for CPU and heap profiles alike, and nothing is
// written.
func TestStackTooDeep(t *testing.T) {
	for _, types := range [][]string{{"samples/count", "cpu/nanoseconds"}, {"alloc_objects/count", "alloc_space/bytes"}} {
		p, err := profile.Parse(bytes.NewReader(synthetic(t, types...)))
		if err != nil {
			t.Fatal(err)
		}
		deep := make([]*profile.Location, 1025)
		for i := range deep {
			deep[i] = p.Location[i%len(p.Location)]
		}
		p.Sample = append(p.Sample, &profile.Sample{Location: deep, Value: p.Sample[0].Value})
		var buf bytes.Buffer
		if err := p.Write(&buf); err != nil {
			t.Fatal(err)
		}
		m := &resultset.Memory{}
		_, err = pprof.Read(t.Context(), &buf, "deep.pprof", m, input.Options{})
		if err == nil || !strings.Contains(err.Error(), "deep.pprof: pprof: sample 3: a stack of 1025 frames, more than 1024") || len(m.Sets) != 0 {
			t.Errorf("%v: %v, %d sets", types, err, len(m.Sets))
		}
	}
}

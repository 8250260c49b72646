//go:build linux

package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/profdb/profdb/internal/launchtest"
)

// maxHostileRSS is the most memory profdb may take to refuse a hostile
// input.
const maxHostileRSS = 200 << 20

// hostileCase is an input generated on the fly and what profdb export
// must say of it.
type hostileCase struct {
	name, file string
	want       []string // in standard error
}

// hostileInputs writes the hostile inputs of issue 32 into dir: each is
// small on disk, or streams, yet once cost gigabytes or crashed profdb.
func hostileInputs(t *testing.T, dir string) []hostileCase {
	t.Helper()
	head := pprofHead(t)
	var sample []byte
	{
		var s []byte
		s = protowire.AppendTag(s, 1, protowire.BytesType)
		s = protowire.AppendBytes(s, []byte{1})
		s = protowire.AppendTag(s, 2, protowire.BytesType)
		s = protowire.AppendBytes(s, []byte{1, 2})
		sample = protowire.AppendBytes(protowire.AppendTag(nil, 2, protowire.BytesType), s)
	}
	var str []byte // a string_table entry
	str = protowire.AppendBytes(protowire.AppendTag(nil, 6, protowire.BytesType), []byte("abcdefgh"))
	// Big parts are written in pieces: the test process stays small, and
	// so the launcher it starts.
	type repeat struct {
		b []byte
		n int
	}
	key := repeat{bytes.Repeat([]byte("k"), 1<<20), 200}
	deep := func(open string) repeat { return repeat{[]byte(open), 3_000_000} }
	cases := []hostileCase{
		{"pprof inflating to 1 GiB of samples", "bomb.pb.gz", []string{"bomb.pb.gz: pprof: decompresses to more than 256 MiB (the default: 100 times the ", "; --max-inflate raises the limit"}},
		{"pprof inflating to 1 GiB of strings", "strings.pb.gz", []string{"strings.pb.gz: pprof: the profile's fields other than samples (locations, functions, mappings, strings) take more than 32 MiB"}},
		{"pprof whose gzip trailer claims 4 GiB", "trailer.pb.gz", []string{"trailer.pb.gz: pprof: decompressing: gzip: invalid checksum"}},
		{"Cobertura of 3 million nested elements", "cobertura.xml", []string{"cobertura.xml:2: elements nested more than 256 deep, inside <x>"}},
		{"JaCoCo of 3 million nested groups", "jacoco.xml", []string{"jacoco.xml:2: elements nested more than 256 deep, inside <group>"}},
		{"a 200 MB unknown key", "key.json", []string{`key.json:1:2: unknown key "` + strings.Repeat("k", 64) + `…" in result set object`}},
		{"a 200 MB caption", "caption.json", []string{`caption.json:1:34: a string longer than 8 MiB, the most profdb reads`}},
	}
	write := func(name string, parts ...any) {
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		w := bufio.NewWriterSize(f, 1<<20)
		for _, p := range parts {
			switch p := p.(type) {
			case []byte:
				w.Write(p)
			case repeat:
				for range p.n {
					w.Write(p.b)
				}
			}
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
	}
	// 1 GiB of repeated gzip members, of 1 MiB of samples or strings each.
	bomb := func(name string, field []byte) {
		member := gzipBytes(t, bytes.Repeat(field, (1<<20)/len(field)))
		write(name, gzipBytes(t, head), repeat{member, 1024})
	}
	bomb("bomb.pb.gz", sample)
	bomb("strings.pb.gz", str)
	// A sample of 4.2 MB of random bytes, the trailer claiming 4 GiB - 1.
	noise := make([]byte, 4_200_000)
	rand.Read(noise)
	field := protowire.AppendBytes(protowire.AppendTag(nil, 2, protowire.BytesType), noise)
	z := gzipBytes(t, append(append([]byte(nil), head...), field...))
	binary.LittleEndian.PutUint32(z[len(z)-4:], 0xffffffff)
	write("trailer.pb.gz", z)
	write("cobertura.xml", []byte("<coverage>\n"), deep("<x>"))
	write("jacoco.xml", []byte("<report name='r'><sessioninfo id='s' start='1' dump='2'/>\n"), deep("<group name='g'>"))
	write("key.json", []byte(`{"`), key, []byte(`": 1}`))
	write("caption.json", []byte(`{"profiler":"resource","caption":"`), key, []byte(`"}`))
	return cases
}

// pprofHead is a CPU profile without samples but for one, uncompressed.
func pprofHead(t *testing.T) []byte {
	t.Helper()
	fn := &profile.Function{ID: 1, Name: "main.f", Filename: "f.go"}
	loc := &profile.Location{ID: 1, Line: []profile.Line{{Function: fn, Line: 3}}}
	p := &profile.Profile{
		SampleType: []*profile.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}},
		Function:   []*profile.Function{fn},
		Location:   []*profile.Location{loc},
		Sample:     []*profile.Sample{{Location: []*profile.Location{loc}, Value: []int64{1, 2}}},
	}
	var b bytes.Buffer
	if err := p.WriteUncompressed(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func gzipBytes(t *testing.T, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// ran is how a child profdb ended.
type ran struct {
	code   int // -1 when a signal ended it
	signal string
	stderr string
	maxRSS int64
}

// runChild runs args in dir through a launcher (internal/launchtest), whose
// child's peak RSS is its own: a child of the test process would start
// from the test's. The test binary among args (profdbBin) runs as profdb.
func runChild(t *testing.T, dir string, args ...string) ran {
	t.Helper()
	sh := `cd "$0" && exec "$@"`
	res, err := launchtest.Run(t.Context(), []string{asProfdb + "=1"}, append([]string{"sh", "-c", sh, dir}, args...)...)
	if err != nil {
		t.Fatal(err)
	}
	r := ran{stderr: res.Stderr, maxRSS: res.MaxRSS}
	switch {
	case res.Err == "":
	case strings.HasPrefix(res.Err, "exit status "):
		if _, err := fmt.Sscanf(res.Err, "exit status %d", &r.code); err != nil {
			t.Fatal(err)
		}
	default:
		r.code, r.signal = -1, res.Err
	}
	return r
}

// crashed reports how the Go runtime died in r, if it did.
func (r ran) crashed() string {
	switch {
	case r.signal != "":
		return "killed by " + r.signal
	case strings.Contains(r.stderr, "fatal error"), strings.Contains(r.stderr, "runtime: "), strings.Contains(r.stderr, "goroutine "):
		return "the Go runtime died"
	}
	return ""
}

func hostileSetup(t *testing.T) (bin, dir string, cases []hostileCase) {
	t.Helper()
	if testing.Short() {
		t.Skip("writes 2 GB of hostile inputs")
	}
	bin = profdbBin(t)
	dir = t.TempDir()
	return bin, dir, hostileInputs(t, dir)
}

// TestHostileInputs: each hostile input of issue 32 ends in a clear error,
// exit status 2, with a short message and a peak RSS under 200 MB. Each
// runs in a 4 GiB address space (ulimit -v), where an allocation from a
// claimed size, or one that grows with the input, fails as "fatal error:
// out of memory": none may crash the Go runtime.
func TestHostileInputs(t *testing.T) {
	bin, dir, cases := hostileSetup(t)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			db := "sqlite:" + filepath.Join(t.TempDir(), "h.db")
			r := runChild(t, dir, "sh", "-c", `ulimit -v 4194304 && exec "$0" "$@"`, bin, "export", "--db", db, tc.file)
			t.Logf("exit %d, peak RSS %d MB: %s", r.code, r.maxRSS>>20, r.stderr)
			if how := r.crashed(); how != "" {
				t.Fatalf("%s: %.2000s", how, r.stderr)
			}
			if r.code != exitCannotRun {
				t.Errorf("exit status %d, want 2", r.code)
			}
			for _, w := range tc.want {
				if !strings.Contains(r.stderr, w) {
					t.Errorf("standard error %.600q lacks %q", r.stderr, w)
				}
			}
			if len(r.stderr) > 2000 {
				t.Errorf("%d bytes on standard error", len(r.stderr))
			}
			if r.maxRSS > maxHostileRSS {
				t.Errorf("peak RSS %d MB, want under %d", r.maxRSS>>20, maxHostileRSS>>20)
			}
		})
	}
}

// TestLongCaptionPrintedCut: a caption of 8 MB, near the most a string
// may take (8 MiB), is exported whole, and export's line, list and show
// print its start and "…".
func TestLongCaptionPrintedCut(t *testing.T) {
	if testing.Short() {
		t.Skip("writes an 8 MB caption")
	}
	bin := profdbBin(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "long.json")
	caption := strings.Repeat("c", 8<<20-1<<10)
	f, err := os.Create(file)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	fmt.Fprintf(w, `{"profiler":"resource","caption":%q}`, caption)
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	db := "sqlite:" + filepath.Join(dir, "c.db")
	cut := `"` + strings.Repeat("c", 256) + `…"`
	for _, args := range [][]string{{"export", "--db", db, file}, {"list", "--db", db}, {"show", "--db", db, "1"}} {
		out, err := profdbCommand(bin, args...).CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%.2000s", args[0], err, out)
		}
		if len(out) > 4000 || !bytes.Contains(out, []byte(cut)) {
			t.Errorf("%s printed %d bytes: %.2000s", args[0], len(out), out)
		}
	}
}

package pprof_test

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/google/pprof/profile"

	"github.com/profdb/profdb/exporter"
	"github.com/profdb/profdb/input"
	"github.com/profdb/profdb/input/pprof"
	"github.com/profdb/profdb/internal/launchtest"
	"github.com/profdb/profdb/resultset"
	"github.com/profdb/profdb/store"
)

var (
	benchSamples = flag.Int("samples", 1_000_000, "BenchmarkReadPprof: samples in the generated CPU profile")
	benchStacks  = flag.Int("stacks", 5_000, "BenchmarkReadPprof: distinct stacks among them")
	benchDepth   = flag.Int("depth", 32, "BenchmarkReadPprof: frames per stack, at most")
	benchWrite   = flag.String("write", "", "BenchmarkReadPprof: also write the generated profile to this file (for profdb export)")
)

// generated returns a gzipped CPU profile of samples samples spread over
// stacks distinct stacks of 8 to depth frames, drawn from 2,000 functions
// (one location each, every tenth with an inlined callee). Stacks share
// their outer frames as real programs' do: each is a path down a random
// tree of calls. The same arguments give the same profile.
func generated(tb testing.TB, samples, stacks, depth int) []byte {
	tb.Helper()
	rng := rand.New(rand.NewPCG(1, uint64(stacks)))
	p := &profile.Profile{
		SampleType: []*profile.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}},
		PeriodType: &profile.ValueType{Type: "cpu", Unit: "nanoseconds"},
		Period:     10_000_000,
	}
	m := &profile.Mapping{ID: 1, File: "/bin/app", HasFunctions: true, HasFilenames: true, HasLineNumbers: true}
	p.Mapping = []*profile.Mapping{m}
	const nfn = 2000
	for i := range nfn {
		p.Function = append(p.Function, &profile.Function{ID: uint64(i + 1),
			Name: fmt.Sprintf("example.com/app/pkg%d.(*T%d).Method%d", i%50, i%7, i), Filename: fmt.Sprintf("/src/pkg%d/f.go", i%50),
			StartLine: int64(10 * i)})
	}
	for i := range nfn {
		l := &profile.Location{ID: uint64(i + 1), Mapping: m, Address: uint64(0x1000 + 16*i),
			Line: []profile.Line{{Function: p.Function[i], Line: int64(10*i + 1 + i%5)}}}
		if i%10 == 0 {
			in := p.Function[(i+1)%nfn]
			l.Line = append([]profile.Line{{Function: in, Line: in.StartLine + 2}}, l.Line...)
		}
		p.Location = append(p.Location, l)
	}
	// Each stack extends a random earlier one (its prefix from the top)
	// with new frames, so stacks form a tree, as in a real program.
	stk := make([][]*profile.Location, 0, stacks)
	for len(stk) < stacks {
		var s []*profile.Location
		if len(stk) > 0 {
			base := stk[rng.IntN(len(stk))]
			s = append(s, base[:rng.IntN(len(base))]...)
		}
		want := 8 + rng.IntN(depth-7)
		for len(s) < want {
			s = append(s, p.Location[rng.IntN(nfn)])
		}
		stk = append(stk, s)
	}
	for i := range samples {
		s := stk[i%stacks]
		if i >= stacks {
			s = stk[rng.IntN(stacks)]
		}
		leafFirst := make([]*profile.Location, len(s))
		for j, l := range s {
			leafFirst[len(s)-1-j] = l
		}
		n := int64(1 + rng.IntN(3))
		p.Sample = append(p.Sample, &profile.Sample{Location: leafFirst, Value: []int64{n, n * p.Period}})
	}
	var buf bytes.Buffer
	if err := p.Write(&buf); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

// discard is a Target that takes every row and keeps none.
type discard struct{ rows int64 }

func (d *discard) Begin(context.Context, resultset.Header) (resultset.ResultWriter, error) {
	return d, nil
}
func (d *discard) SetHeader(resultset.Header) error { return nil }
func (d *discard) Table(string, []string) (resultset.TableWriter, error) {
	return d, nil
}
func (d *discard) Write([]any) error                 { d.rows++; return nil }
func (d *discard) Commit() (resultset.Result, error) { return resultset.Result{}, nil }
func (d *discard) Rollback() error                   { return nil }

// BenchmarkReadPprof reads a generated CPU profile (-samples, -stacks,
// -depth) into a Target that discards the rows: the time and allocations
// of decoding, folding the samples into the call tree and producing every
// row. docs/performance.md has figures.
func BenchmarkReadPprof(b *testing.B) {
	data := generated(b, *benchSamples, *benchStacks, *benchDepth)
	if *benchWrite != "" {
		if err := os.WriteFile(*benchWrite, data, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	var rows int64
	for b.Loop() {
		d := &discard{}
		if _, err := pprof.Read(b.Context(), bytes.NewReader(data), "gen.pb.gz", d, input.Options{}); err != nil {
			b.Fatal(err)
		}
		rows = d.rows
	}
	b.ReportMetric(float64(rows), "rows")
}

// rssChild names the environment variable that makes the test binary a
// child of BenchmarkPprofPeakRSS: "parse:FILE" decodes FILE with
// profile.Parse and keeps the result; "export:FILE" exports it with Read
// into a new SQLite database beside it, as profdb export does.
const rssChild = "PROFDB_PPROF_RSS_CHILD"

// runRSSChild runs the child of BenchmarkPprofPeakRSS and exits when the
// environment asks for one (TestMain calls it first).
func runRSSChild() {
	spec := os.Getenv(rssChild)
	if spec == "" {
		return
	}
	if err := rssChildRun(spec); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(0)
}

func rssChildRun(spec string) error {
	mode, file, ok := strings.Cut(spec, ":")
	if !ok {
		return fmt.Errorf("%s=%q: want parse:FILE or export:FILE", rssChild, spec)
	}
	f, err := os.Open(file)
	if err != nil {
		return err
	}
	defer f.Close()
	switch mode {
	case "parse":
		p, err := profile.Parse(f)
		if err != nil {
			return err
		}
		runtime.KeepAlive(p)
		return nil
	case "export":
		ctx := context.Background()
		db, err := store.Open(ctx, "sqlite://"+file+".db", store.Options{})
		if err != nil {
			return err
		}
		defer db.Close()
		_, err = pprof.Read(ctx, f, file, exporter.New(db, exporter.Options{}), input.Options{})
		return err
	}
	return fmt.Errorf("%s=%q: unknown mode %q", rssChild, spec, mode)
}

// peakRSS runs the test binary as a child in mode on file, through a
// launcher (package launch), and returns its peak RSS in bytes.
func peakRSS(b *testing.B, mode, file string) int64 {
	b.Helper()
	r := launchtest.Measure(b, []string{rssChild + "=" + mode + ":" + file}, os.Args[0], "-test.run=^$")
	if r.Err != "" {
		b.Fatalf("child %s: %s\n%s", mode, r.Err, r.Stderr)
	}
	return r.MaxRSS
}

// BenchmarkPprofPeakRSS measures the peak RSS of exporting a generated CPU
// profile (-samples, -stacks, -depth) into SQLite against that of decoding
// it with profile.Parse alone: the floor for any reader that uses the
// library. export/parse near 1 means memory follows the profile's size and
// no more. docs/pprof.md has figures.
func BenchmarkPprofPeakRSS(b *testing.B) {
	file := filepath.Join(b.TempDir(), "gen.pb.gz")
	if err := os.WriteFile(file, generated(b, *benchSamples, *benchStacks, *benchDepth), 0o644); err != nil {
		b.Fatal(err)
	}
	var parse, export int64
	for b.Loop() {
		parse = peakRSS(b, "parse", file)
		if err := os.Remove(file + ".db"); err != nil && !errors.Is(err, fs.ErrNotExist) {
			b.Fatal(err)
		}
		export = peakRSS(b, "export", file)
	}
	b.ReportMetric(float64(parse)/(1<<20), "parse-MiB")
	b.ReportMetric(float64(export)/(1<<20), "export-MiB")
	b.ReportMetric(float64(export)/float64(parse), "export/parse")
}

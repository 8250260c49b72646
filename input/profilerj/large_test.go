package profilerj_test

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/profdb/profdb/input"
	"github.com/profdb/profdb/input/profilerj"
	"github.com/profdb/profdb/profilers/functiontrace"
	"github.com/profdb/profdb/profilers/lightcoverage"
	"github.com/profdb/profdb/resultset"
)

// writeLarge writes a snapshot of about size bytes to path: many threads
// with deep call trees over a few hundred methods, a memory and a coverage
// section. It returns the number of call-tree nodes and of footprint lines.
func writeLarge(t *testing.T, path string, size int64) (nodes, lines int64) {
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	rng := rand.New(rand.NewPCG(1, 2))
	var written int64
	pr := func(format string, a ...any) {
		n, _ := fmt.Fprintf(w, format, a...)
		written += int64(n)
	}
	var tree func(depth int)
	tree = func(depth int) {
		m := depth*8 + rng.IntN(8)
		cnt := 1 + rng.IntN(1000)
		pr(`<profile name="com.example.p%d.C%d.m%d(int,java.lang.String)" signature="(ILjava/lang/String;)V" count="%d" cumulatedElapsed="%d" cumulated="%d" methodElapsed="%d" method="%d" overheadCumulated="0" overheadMethod="0" exceptions="0">`+"\n",
			m%7, m%31, m, cnt, cnt*40, cnt*30, cnt*10, cnt*7)
		nodes++
		if depth < 9 {
			for k := rng.IntN(4); k > 0; k-- {
				tree(depth + 1)
			}
		}
		pr("</profile>\n")
	}
	pr("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<doc>\n<profile>\n")
	for th := 0; written < size*9/10; th++ {
		pr("<thread name=\"worker-%d\" cpuTime=\"%d\" isAlive=\"true\">\n", th, th*1000)
		for k := 0; k < 3; k++ {
			tree(0)
		}
		pr("</thread>\n")
	}
	pr("</profile>\n<memory>\n<thread name=\"main\">\n")
	for c := 0; c < 500; c++ {
		pr("<memory class=\"com.example.p%d.C%d\" count=\"%d\" max=\"%d\"/>\n", c%7, c, c, 2*c)
	}
	pr("</thread>\n</memory>\n<coverage>\n")
	for c := 0; written < size; c++ {
		pr("<class name=\"com.example.p%d.C%d\" source=\"C%d.java\">\n", c%7, c, c)
		for m := 0; m < 10; m++ {
			pr("<method name=\"m%d\" signature=\"()V\" firstline=\"%d\" count=\"%d\">\n<footprints>", m, m*20+1, m)
			for l := 0; l < 15; l++ {
				v := rng.IntN(5) - 1
				if v >= 0 {
					lines++
				}
				pr("%d ", v)
			}
			pr("</footprints>\n</method>\n")
		}
		pr("</class>\n")
	}
	pr("</coverage>\n</doc>\n")
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return nodes, lines
}

// TestLargeSnapshotBoundedMemory parses a generated 20 MB snapshot and
// samples the heap meanwhile: the call rows are spooled to disk, so the
// heap in use stays far below the file size times the row overhead.
func TestLargeSnapshotBoundedMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("large file")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "large.xml")
	nodes, lines := writeLarge(t, path, 20<<20)
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	// The spool goes to os.TempDir(): a folder of this test's own, so that
	// what is left there is this read's alone.
	spoolDir := t.TempDir()
	t.Setenv("TMPDIR", spoolDir)

	runtime.GC()
	var base runtime.MemStats
	runtime.ReadMemStats(&base)
	var peak atomic.Uint64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > peak.Load() {
				peak.Store(ms.HeapInuse)
			}
			select {
			case <-stop:
				return
			case <-time.After(2 * time.Millisecond):
			}
		}
	}()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rec recorder
	watch := &spoolWatch{Target: &rec, dir: spoolDir, table: functiontrace.CallTrace}
	start := time.Now()
	res, err := profilerj.Read(context.Background(), f, path, watch, input.Options{})
	elapsed := time.Since(start)
	close(stop)
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 3 {
		t.Fatalf("%d result sets, want 3", len(res))
	}
	if got := rec.rows[functiontrace.CallTrace]; got != nodes {
		t.Errorf("CALL_TRACE rows %d, want %d (one per node)", got, nodes)
	}
	if got := rec.rows[lightcoverage.Lines]; got != lines {
		t.Errorf("LINES rows %d, want %d", got, lines)
	}
	p := peak.Load()
	t.Logf("%d MB snapshot, %d call nodes, %d call routes, %d CALL_STACK rows, %d lines: %v; heap in use %.1f MB before, peak %.1f MB",
		st.Size()>>20, nodes, rec.rows[functiontrace.CallRoutes], rec.rows[functiontrace.CallStack], lines,
		elapsed.Round(time.Millisecond), float64(base.HeapInuse)/(1<<20), float64(p)/(1<<20))
	if p > 64<<20 {
		t.Errorf("peak heap in use %.1f MB, want under 64 MB", float64(p)/(1<<20))
	}
	// The call rows went through a spool file, and it is gone.
	if watch.err != nil {
		t.Fatal(watch.err)
	}
	if len(watch.seen) == 0 {
		t.Errorf("no spool file in %s when %s began: the call rows were not spooled", spoolDir, functiontrace.CallTrace)
	}
	left, err := os.ReadDir(spoolDir)
	if err != nil {
		t.Fatal(err)
	}
	if len(left) != 0 {
		t.Errorf("temporary files left in %s: %v", spoolDir, left)
	}
}

// spoolWatch is a Target that lists dir when the rows of table begin.
type spoolWatch struct {
	resultset.Target
	dir   string
	table string
	seen  []string // the names in dir then
	err   error
}

func (s *spoolWatch) Begin(ctx context.Context, h resultset.Header) (resultset.ResultWriter, error) {
	w, err := s.Target.Begin(ctx, h)
	if err != nil {
		return nil, err
	}
	return &spoolWatchWriter{ResultWriter: w, s: s}, nil
}

type spoolWatchWriter struct {
	resultset.ResultWriter
	s *spoolWatch
}

func (w *spoolWatchWriter) Table(name string, columns []string) (resultset.TableWriter, error) {
	if name == w.s.table {
		ents, err := os.ReadDir(w.s.dir)
		if err != nil {
			w.s.err = err
		}
		for _, e := range ents {
			w.s.seen = append(w.s.seen, e.Name())
		}
	}
	return w.ResultWriter.Table(name, columns)
}

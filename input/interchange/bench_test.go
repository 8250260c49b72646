package interchange

import (
	"bytes"
	"context"
	"math/rand/v2"
	"testing"

	"github.com/profdb/profdb/profilers/functiontrace"
	"github.com/profdb/profdb/resultset"
)

// discard is a Target that drops every row, counting them.
type discard struct{ rows int64 }

func (d *discard) Begin(ctx context.Context, h resultset.Header) (resultset.ResultWriter, error) {
	return discardSet{d}, nil
}

type discardSet struct{ d *discard }

func (s discardSet) SetHeader(resultset.Header) error { return nil }
func (s discardSet) Table(string, []string) (resultset.TableWriter, error) {
	return discardTable(s), nil
}
func (s discardSet) Commit() (resultset.Result, error) { return resultset.Result{Rows: s.d.rows}, nil }
func (s discardSet) Rollback() error                   { return nil }

type discardTable struct{ d *discard }

func (t discardTable) Write(row []any) error { t.d.rows++; return nil }

// callTraceFile generates a function-trace result set whose CALL_TRACE table
// has n rows of realistic values, with the Writer.
func callTraceFile(tb testing.TB, n int) []byte {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	must := func(err error) {
		if err != nil {
			tb.Fatal(err)
		}
	}
	must(w.Begin(resultset.Header{Profiler: functiontrace.Name, Caption: "bench",
		Counter: &resultset.Counter{Name: "Time", Description: "Elapsed Time", Frequency: int64(2400000000)}}))
	must(w.Table(functiontrace.Threads, []string{"COL_LINE_NUMBER", "COL_WIN32THREADID", "ID", "PARENT_ID", "REC_ID"}))
	must(w.Row(int64(0), int64(4711), int64(0), int64(-1), int64(0)))
	cols := []string{"COL__S", "COL__S_WITH_CHILDREN", "COL_CALL_NO", "COL_LINE_NUMBER", "COL_NEXT",
		"COL_PARENT_NO", "COL_RECID", "COL_ROUTINE_NAME", "ID", "PARENT_ID", "REC_ID"}
	must(w.Table(functiontrace.CallTrace, cols))
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range n {
		self := rng.Int64N(5_000_000)
		routine := rng.Int64N(5000)
		must(w.Row(self, self+rng.Int64N(50_000_000), int64(i), rng.Int64N(3000), int64(i+1),
			int64(i/4), routine, routine, int64(i), int64(0), int64(i)))
	}
	must(w.End())
	return buf.Bytes()
}

func BenchmarkDecodeCallTrace(b *testing.B) {
	const n = 200_000
	data := callTraceFile(b, n)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		d := &discard{}
		if _, err := Read(context.Background(), bytes.NewReader(data), "bench.json", d); err != nil {
			b.Fatal(err)
		}
		if d.rows != n+1 {
			b.Fatalf("%d rows, want %d", d.rows, n+1)
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

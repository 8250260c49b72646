package interchange

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"testing"

	"github.com/profdb/profdb/profilers/functiontrace"
	"github.com/profdb/profdb/resultset"
)

// streamCallTrace writes a function-trace result set with n CALL_TRACE rows
// to a pipe; with childFirst the CALL_TRACE table comes before THREADS.
func streamCallTrace(n int, childFirst bool) (io.Reader, *int64) {
	pr, pw := io.Pipe()
	size := new(int64)
	go func() {
		cw := &countWriter{w: pw, n: size}
		w := NewWriter(cw)
		err := w.Begin(resultset.Header{Profiler: functiontrace.Name, Caption: "large"})
		threads := func() {
			if err == nil {
				err = w.Table(functiontrace.Threads, []string{"ID", "PARENT_ID"})
			}
			if err == nil {
				err = w.Row(int64(0), int64(-1))
			}
		}
		if !childFirst {
			threads()
		}
		if err == nil {
			err = w.Table(functiontrace.CallTrace, []string{"ID", "PARENT_ID", "REC_ID", "COL__S", "COL__S_WITH_CHILDREN", "COL_CALL_NO", "COL_PARENT_NO", "COL_ROUTINE_NAME"})
		}
		for i := 0; i < n && err == nil; i++ {
			err = w.Row(int64(i), int64(0), int64(i+1), int64(i)*1_000_003, int64(i)*2_000_003, int64(i+1), int64(i/2), fmt.Sprint(i%7))
		}
		if childFirst {
			threads()
		}
		if err == nil {
			err = w.End()
		}
		pw.CloseWithError(err)
	}()
	return pr, size
}

type countWriter struct {
	w io.Writer
	n *int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	*c.n += int64(len(p))
	return c.w.Write(p)
}

// TestReadLargeStreamBoundedMemory reads a file of some 100 MB from a pipe:
// the heap must not grow with it.
func TestReadLargeStreamBoundedMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("large input")
	}
	const n = 700_000
	r, size := streamCallTrace(n, false)
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	d := &discard{}
	if _, err := Read(context.Background(), r, "large.json", d); err != nil {
		t.Fatal(err)
	}
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	if d.rows != n+1 || *size < 80<<20 {
		t.Fatalf("%d rows, %d bytes", d.rows, *size)
	}
	grown := int64(after.HeapSys) - int64(before.HeapSys)
	t.Logf("read %d MB; heap grew by %d MB", *size>>20, grown>>20)
	if grown > 32<<20 {
		t.Errorf("heap grew by %d MB reading %d MB", grown>>20, *size>>20)
	}
}

// TestReadLargeSpool: a large child table before its parent goes through the
// spool intact and in order, and the spool is removed.
func TestReadLargeSpool(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	const n = 60_000
	r, _ := streamCallTrace(n, true)
	var tables []string
	var spooled []os.DirEntry // what tmp holds when the CALL_TRACE rows come back
	next := 0
	tg := &funcTarget{
		table: func(name string, cols []string) error { tables = append(tables, name); return nil },
		write: func(row []any) error {
			if tables[len(tables)-1] != functiontrace.CallTrace {
				return nil
			}
			if next == 0 {
				spooled = readDir(t, tmp)
			}
			// Columns in documented order, INST_ID left out.
			want := []any{boxInt(int64(next) * 1_000_003), boxInt(int64(next) * 2_000_003), boxInt(int64(next + 1)), nil, nil,
				boxInt(int64(next / 2)), nil, fmt.Sprint(next % 7), boxInt(int64(next)), boxInt(0), boxInt(int64(next + 1))}
			if fmt.Sprint(row) != fmt.Sprint(want) {
				return fmt.Errorf("row %d: %v, want %v", next, row, want)
			}
			// Integers must come back as int64, text as string.
			if _, ok := row[0].(int64); !ok {
				return fmt.Errorf("row %d: COL__S is %T", next, row[0])
			}
			if _, ok := row[7].(string); !ok {
				return fmt.Errorf("row %d: COL_ROUTINE_NAME is %T", next, row[7])
			}
			next++
			return nil
		},
	}
	if _, err := Read(context.Background(), r, "spool.json", tg); err != nil {
		t.Fatal(err)
	}
	if next != n || len(tables) != 2 || tables[0] != functiontrace.Threads {
		t.Errorf("%d rows, tables %v", next, tables)
	}
	if len(spooled) == 0 {
		t.Errorf("no temporary file in %s while the spooled rows came back: the spool stayed in memory", tmp)
	}
	if left := readDir(t, tmp); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}

	// A Target that fails in the middle of the spooled rows: the spool
	// file is removed all the same.
	r, _ = streamCallTrace(n, true)
	boom := errors.New("boom")
	rows := 0
	tg = &funcTarget{write: func([]any) error {
		if rows++; rows == n/2 {
			return boom
		}
		return nil
	}}
	_, err := Read(context.Background(), r, "spool.json", tg)
	r.(*io.PipeReader).Close() // ends the writer, which the failed Read left mid-document
	if !errors.Is(err, boom) {
		t.Fatalf("a Target failing at row %d: error %v, want boom", n/2, err)
	}
	if left := readDir(t, tmp); len(left) != 0 {
		t.Errorf("temporary files left after the failed read: %v", left)
	}
}

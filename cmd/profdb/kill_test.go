package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/profdb/profdb/dialects"
	"github.com/profdb/profdb/exporter"
	"github.com/profdb/profdb/internal/dbtest"
	"github.com/profdb/profdb/profilers"
	"github.com/profdb/profdb/profilers/functiontrace"
	"github.com/profdb/profdb/store"
)

// writeCallTraceJSON writes an interchange file with one function-trace
// result set of n CALL_TRACE rows.
func writeCallTraceJSON(t *testing.T, path, caption string, n int) int64 {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	fmt.Fprintf(w, `{"profiler":"function-trace","caption":%q,"tables":{`, caption)
	fmt.Fprint(w, `"FUNCTION_TRACE_PROFILER_THREADS":[{"ID":0,"PARENT_ID":-1,"REC_ID":0,"COL_WIN32THREADID":7}],`)
	fmt.Fprint(w, `"FUNCTION_TRACE_PROFILER_CALL_TRACE":[`)
	for i := 0; i < n; i++ {
		if i > 0 {
			w.WriteByte(',')
		}
		fmt.Fprintf(w, `{"ID":%d,"PARENT_ID":0,"REC_ID":%d,"COL__S":%d,"COL__S_WITH_CHILDREN":%d,"COL_CALL_NO":%d,"COL_LINE_NUMBER":%d,"COL_NEXT":%d,"COL_PARENT_NO":%d,"COL_RECID":%d,"COL_ROUTINE_NAME":%d}`,
			i, i, i*3, i*7, i, i%100, i+1, i-1, i%50, i%50)
	}
	fmt.Fprint(w, "]}}\n")
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return st.Size()
}

// readBytes is how much a process has read so far (/proc/PID/io rchar).
func readBytes(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/io", pid))
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "rchar: "); ok {
			n, _ := strconv.ParseInt(v, 10, 64)
			return n
		}
	}
	return -1
}

// tableCounts counts the rows of INSTANCES, RELATIONS and every
// function-trace table (-1 for a table that does not exist).
func tableCounts(t *testing.T, dsn string) map[string]int64 {
	t.Helper()
	ctx := context.Background()
	db, err := exporter.Open(ctx, dsn, store.Options{}, exporter.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	d := db.DB().Dialect()
	names, err := d.Tables(ctx, db.DB().SQL(), "")
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]string{}
	for _, n := range names {
		have[strings.ToUpper(n)] = n
	}
	def, err := profilers.Lookup(functiontrace.Name)
	if err != nil {
		t.Fatal(err)
	}
	tables, err := profilers.Tables(def)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int64{}
	for _, tb := range tables {
		real, ok := have[tb.Name]
		if !ok {
			out[tb.Name] = -1
			continue
		}
		var n int64
		if err := db.DB().SQL().QueryRowContext(ctx, "SELECT COUNT(*) FROM "+dialects.Qualify(d, "", real)).Scan(&n); err != nil {
			t.Fatal(err)
		}
		out[tb.Name] = n
	}
	return out
}

// faultInputs returns the profdb command (profdbBin) and writes the inputs of a fault test: a
// small result set of 10 rows that must survive, and a big one of rows
// CALL_TRACE rows, size bytes, that the fault hits.
func faultInputs(t *testing.T, rows int) (bin, small, big string, size int64) {
	t.Helper()
	if testing.Short() {
		t.Skip("writes a large file")
	}
	if runtime.GOOS != "linux" {
		t.Skip("watches the child's progress through /proc/PID/io, which only Linux has")
	}
	bin = profdbBin(t)
	dir := t.TempDir()
	small = filepath.Join(dir, "small.json")
	writeCallTraceJSON(t, small, "complete", 10)
	big = filepath.Join(dir, "big.json")
	size = writeCallTraceJSON(t, big, "faulted", rows)
	return bin, small, big, size
}

// TestKilledExportLeavesNoTrace SIGKILLs a child "profdb export" while it
// is writing rows and checks that nothing of its result set remains, on
// each local database and with both write paths.
func TestKilledExportLeavesNoTrace(t *testing.T) {
	bin, small, big, size := faultInputs(t, 600_000)
	for _, dialect := range dbtest.Dialects() {
		for _, bulk := range []string{"auto", "off"} {
			t.Run(dialect+"/bulk="+bulk, func(t *testing.T) {
				dsn := dbtest.Fresh(t, dialect)
				// One complete result set first: it must survive.
				if out, err := profdbCommand(bin, "export", "--db", dsn, "--bulk", bulk, small).CombinedOutput(); err != nil {
					t.Fatalf("first export: %v\n%s", err, out)
				}
				before := tableCounts(t, dsn)
				cmd := profdbCommand(bin, "export", "--db", dsn, "--bulk", bulk, "--quiet", big)
				var stderr strings.Builder
				cmd.Stderr = &stderr
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				// Kill once the child has read (and so sent on) a third of
				// the input: it is then inside its transaction, rows written.
				// Babelfish takes batched INSERTs at about 3,000 rows/s: there
				// a fortieth (15,000 rows, well past the reader's buffer) will
				// do.
				threshold := size / 3
				if dialect == "sqlserver" && bulk == "off" {
					threshold = size / 40
				}
				deadline := time.Now().Add(2 * time.Minute)
				killedAt := int64(-1)
				for time.Now().Before(deadline) {
					if n := readBytes(cmd.Process.Pid); n >= threshold {
						killedAt = n
						break
					}
					time.Sleep(2 * time.Millisecond)
				}
				if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
					t.Fatalf("kill: %v (the export finished too early? stderr: %s)", err, stderr.String())
				}
				err := cmd.Wait()
				ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus)
				if !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
					t.Fatalf("the export was not killed mid-way (read %d of %d bytes): %v, stderr: %s", killedAt, size, err, stderr.String())
				}
				if killedAt < 0 {
					t.Fatalf("the export never read a third of its input in 2 minutes; stderr: %s", stderr.String())
				}
				after := tableCounts(t, dsn)
				// MySQL commits DDL, so its tables may exist, but empty;
				// everywhere else nothing at all changed.
				if !reflect.DeepEqual(before, after) {
					t.Fatalf("killed export left rows: before %v, after %v", before, after)
				}
				out, err := profdbCommand(bin, "verify", "--db", dsn).CombinedOutput()
				if err != nil {
					t.Fatalf("verify after kill: %v\n%s", err, out)
				}
				out, err = profdbCommand(bin, "list", "--db", dsn).CombinedOutput()
				if err != nil || strings.Count(string(out), "\n") != 2 || strings.Contains(string(out), "faulted") {
					t.Fatalf("list after kill: %v\n%s", err, out)
				}
				// The database takes the next export normally.
				out, err = profdbCommand(bin, "export", "--db", dsn, small).CombinedOutput()
				if err != nil || !strings.HasPrefix(string(out), "INST_ID 2 ") {
					t.Fatalf("export after kill: %v\n%s", err, out)
				}
			})
		}
	}
}

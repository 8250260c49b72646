package pprof_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/profdb/profdb/ddl"
	"github.com/profdb/profdb/exporter"
	"github.com/profdb/profdb/input"
	"github.com/profdb/profdb/input/pprof"
	"github.com/profdb/profdb/internal/dbtest"
	"github.com/profdb/profdb/internal/launchtest"
	"github.com/profdb/profdb/internal/pproftest"
	"github.com/profdb/profdb/profilers/functiontrace"
	"github.com/profdb/profdb/profilers/resource"
	"github.com/profdb/profdb/resultset"
	"github.com/profdb/profdb/store"

	_ "github.com/profdb/profdb/dialects/mysql"
	_ "github.com/profdb/profdb/dialects/postgres"
	_ "github.com/profdb/profdb/dialects/sqlite"
	_ "github.com/profdb/profdb/dialects/sqlserver"
)

// realProfiles builds testdata/prog, which profiles itself, and runs it
// once for the whole test binary: it returns its CPU and heap profiles.
var realProfiles = sync.OnceValues(func() ([2]string, error) {
	dir, err := os.MkdirTemp("", "profdb-pprof-")
	if err != nil {
		return [2]string{}, err
	}
	prog := filepath.Join(dir, "prog")
	if out, err := exec.Command("go", "build", "-o", prog, "./testdata/prog").CombinedOutput(); err != nil {
		return [2]string{}, fmt.Errorf("go build: %v\n%s", err, out)
	}
	files := [2]string{filepath.Join(dir, "cpu.pprof"), filepath.Join(dir, "heap.pprof")}
	if out, err := exec.Command(prog, files[0], files[1]).CombinedOutput(); err != nil {
		return [2]string{}, fmt.Errorf("prog: %v\n%s", err, out)
	}
	return files, nil
})

func TestMain(m *testing.M) {
	launchtest.Main()
	runRSSChild()
	code := m.Run()
	if files, err := realProfiles(); err == nil {
		os.RemoveAll(filepath.Dir(files[0]))
	}
	os.Exit(code)
}

func profiles(t *testing.T) (cpu, heap string) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs a Go program")
	}
	files, err := realProfiles()
	if err != nil {
		t.Fatal(err)
	}
	return files[0], files[1]
}

// figures are flat and cum per function name.
type figures map[string][2]int64

func (f figures) add(name string, flat, cum int64) {
	v := f[name]
	f[name] = [2]int64{v[0] + flat, v[1] + cum}
}

// nonzero drops the functions whose figures are both 0.
func (f figures) nonzero() figures {
	out := figures{}
	for k, v := range f {
		if v != [2]int64{} {
			out[k] = v
		}
	}
	return out
}

// top runs go tool pprof -top on file for the sample index (every node,
// in raw units) and returns flat and cum per function.
func top(t *testing.T, file, index, unit string) figures {
	t.Helper()
	args := []string{"tool", "pprof", "-top", "-nodecount=1000000", "-nodefraction=0", "-edgefraction=0",
		"-sample_index=" + index}
	if unit != "" {
		args = append(args, "-unit="+unit)
	}
	cmd := exec.Command("go", append(args, file)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go tool pprof: %v\n%s", err, stderr.Bytes())
	}
	f, err := pproftest.Parse(out, unit)
	if err != nil {
		t.Fatalf("go tool pprof -top: %v\n%s", err, out)
	}
	return figures(f)
}

// tables gives the rows of a result set's tables: from memory or from a
// database.
type tables func(t *testing.T, table string, cols ...string) [][]any

func memTables(set resultset.MemorySet) tables {
	return func(t *testing.T, table string, cols ...string) [][]any {
		tb := set.Tables[table]
		if tb == nil {
			t.Fatalf("no table %s", table)
		}
		out := make([][]any, len(tb.Rows))
		for i := range tb.Rows {
			for _, c := range cols {
				out[i] = append(out[i], tb.Value(i, c))
			}
		}
		return out
	}
}

func dbTables(ctx context.Context, db *store.DB, inst int64) tables {
	return func(t *testing.T, table string, cols ...string) [][]any {
		t.Helper()
		cat, err := db.Catalog(ctx, db.SQL())
		if err != nil {
			t.Fatal(err)
		}
		qt, err := cat.Table(table)
		if err != nil {
			t.Fatal(err)
		}
		var qc []string
		for _, c := range append(cols, "INST_ID") {
			q, err := cat.Column(ctx, table, c)
			if err != nil {
				t.Fatal(err)
			}
			qc = append(qc, q)
		}
		rows, err := db.SQL().QueryContext(ctx, fmt.Sprintf("SELECT %s FROM %s WHERE %s = %d",
			strings.Join(qc[:len(cols)], ", "), qt, qc[len(cols)], inst))
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var out [][]any
		for rows.Next() {
			row := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range row {
				ptrs[i] = &row[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			out = append(out, row)
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		return out
	}
}

func num(t *testing.T, v any) int64 {
	t.Helper()
	switch x := v.(type) {
	case nil:
		return 0
	case int64:
		return x
	case int32:
		return int64(x)
	case float64:
		return int64(x)
	case []byte:
		return num(t, string(x))
	case ddl.Dec:
		return num(t, string(x))
	case string:
		if strings.Contains(x, ".") { // a decimal column: integral, with a scale
			x = strings.TrimSuffix(strings.TrimRight(x, "0"), ".")
		}
		n, err := strconv.ParseInt(x, 10, 64)
		if err != nil {
			t.Fatalf("number %q: %v", x, err)
		}
		return n
	case fmt.Stringer:
		return num(t, x.String())
	}
	t.Fatalf("unexpected value %#v (%T)", v, v)
	return 0
}

func text(v any) string {
	switch x := v.(type) {
	case []byte:
		return string(x)
	case string:
		return x
	}
	return ""
}

// monikers returns the full names of the routines by REC_ID.
func monikers(t *testing.T, tb tables, table string) map[int64]string {
	names := map[int64]string{}
	for _, r := range tb(t, table, "REC_ID", "COL_SYMBOL_MONIKER") {
		names[num(t, r[0])] = text(r[1])
	}
	return names
}

// traceFigures returns, from Function Trace tables, the time flat and cum
// per function, the way go tool pprof counts them: cum adds a call's time
// with children unless a caller up its stack is the same function (so
// recursion is counted once), and the samples flat (ROUTINES hit counts).
func traceFigures(t *testing.T, tb tables) (cpu, samples figures) {
	names := monikers(t, tb, functiontrace.MetaRoutines)
	type call struct {
		parent int64
		name   string
	}
	calls := map[int64]call{}
	cpu, samples = figures{}, figures{}
	rows := tb(t, functiontrace.CallTrace, "REC_ID", "COL_PARENT_NO", "COL_ROUTINE_NAME", "COL__S", "COL__S_WITH_CHILDREN")
	for _, r := range rows {
		calls[num(t, r[0])] = call{num(t, r[1]), names[num(t, r[2])]}
	}
	for _, r := range rows {
		c := calls[num(t, r[0])]
		cum := num(t, r[4])
		for p := c.parent; p >= 0; p = calls[p].parent {
			if calls[p].name == c.name {
				cum = 0
				break
			}
		}
		cpu.add(c.name, num(t, r[3]), cum)
	}
	for _, r := range tb(t, functiontrace.Routines, "REC_ID", "COL_HIT_COUNT") {
		samples.add(names[num(t, r[0])], num(t, r[1]), 0)
	}
	return cpu.nonzero(), samples.nonzero()
}

// heapFigures returns, from Resource tables, the figures of each sample
// index: flat from the allocation sites' classes, cum of the in-use ones
// from the objects' creation stacks.
func heapFigures(t *testing.T, tb tables) map[string]figures {
	out := map[string]figures{}
	cols := map[string]string{"alloc_objects": "COL_TOTAL_CREATED", "alloc_space": "COL_TOTAL_SIZE",
		"inuse_objects": "COL_LIVE_COUNT", "inuse_space": "COL_LIVE_SIZE"}
	for index, col := range cols {
		f := figures{}
		for _, r := range tb(t, resource.ClassesData, "COL_CLASS_NAME", col) {
			f.add(text(r[0]), num(t, r[1]), 0)
		}
		out[index] = f
	}
	names := monikers(t, tb, resource.MetaRoutines)
	size := map[int64]int64{}
	for _, r := range tb(t, resource.Objects, "ID", "COL_SIZE") {
		size[num(t, r[0])] = num(t, r[1])
	}
	seen := map[[2]any]bool{}
	for _, r := range tb(t, resource.CreationCallStack, "PARENT_ID", "COL_ROUTINERID", "COL_HIT_COUNT") {
		obj, name := num(t, r[0]), names[num(t, r[1])]
		if seen[[2]any{obj, name}] {
			continue // recursion: once per stack
		}
		seen[[2]any{obj, name}] = true
		out["inuse_space"].add(name, 0, size[obj])
		out["inuse_objects"].add(name, 0, num(t, r[2]))
	}
	for k, f := range out {
		out[k] = f.nonzero()
	}
	return out
}

// compare reports the functions whose figures differ; cum only when
// withCum.
func compare(t *testing.T, what string, got, want figures, withCum bool) {
	t.Helper()
	var names []string
	for n := range want {
		names = append(names, n)
	}
	for n := range got {
		if _, ok := want[n]; !ok {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	for _, n := range names {
		g, w := got[n], want[n]
		if !withCum {
			g[1], w[1] = 0, 0
		}
		if g != w {
			t.Errorf("%s: %s: flat, cum %v; go tool pprof -top says %v", what, n, g, w)
		}
	}
	if len(want) < 3 {
		t.Errorf("%s: go tool pprof -top lists %d functions: the profile is too small to tell", what, len(want))
	}
}

func checkCPU(t *testing.T, tb tables, file string) {
	cpu, samples := traceFigures(t, tb)
	compare(t, "cpu", cpu, top(t, file, "cpu", "ns"), true)
	compare(t, "samples", samples, top(t, file, "samples", ""), false)
}

func checkHeap(t *testing.T, tb tables, file string) {
	got := heapFigures(t, tb)
	for _, index := range []string{"alloc_objects", "alloc_space", "inuse_objects", "inuse_space"} {
		unit := ""
		if strings.HasSuffix(index, "space") {
			unit = "B"
		}
		compare(t, index, got[index], top(t, file, index, unit), strings.HasPrefix(index, "inuse"))
	}
}

func readMemory(t *testing.T, file string) resultset.MemorySet {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m := &resultset.Memory{}
	if _, err := input.Read(t.Context(), "", f, file, m, input.Options{}); err != nil {
		t.Fatal(err)
	}
	if len(m.Sets) != 1 {
		t.Fatalf("%d result sets", len(m.Sets))
	}
	return m.Sets[0]
}

// TestRealProfilesAgreeWithPprofTop reads the CPU and heap profiles of a Go
// program (format detected) and compares the tables with go tool pprof
// -top on the same files, for every sample index.
func TestRealProfilesAgreeWithPprofTop(t *testing.T) {
	cpu, heap := profiles(t)
	set := readMemory(t, cpu)
	if set.Header.Profiler != functiontrace.Name || set.Header.Counter == nil || set.Header.Counter.Name != "cpu" ||
		set.Header.Counter.Frequency != int64(1000000000) {
		t.Fatalf("CPU profile: header %+v, counter %+v", set.Header, set.Header.Counter)
	}
	checkCPU(t, memTables(set), cpu)
	set = readMemory(t, heap)
	if set.Header.Profiler != resource.Name {
		t.Fatalf("heap profile: header %+v", set.Header)
	}
	checkHeap(t, memTables(set), heap)
}

// TestRealProfilesInDatabases exports both profiles into each database,
// verifies the result sets and compares what the tables hold with go tool
// pprof -top.
func TestRealProfilesInDatabases(t *testing.T) {
	cpu, heap := profiles(t)
	for _, dialect := range dbtest.Dialects() {
		t.Run(dialect, func(t *testing.T) {
			ctx := t.Context()
			db, err := store.Open(ctx, dbtest.Fresh(t, dialect), store.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			ex := exporter.New(db, exporter.Options{})
			for _, c := range []struct {
				file  string
				check func(*testing.T, tables, string)
			}{{cpu, checkCPU}, {heap, checkHeap}} {
				f, err := os.Open(c.file)
				if err != nil {
					t.Fatal(err)
				}
				res, err := input.Read(ctx, "pprof", f, c.file, ex, input.Options{})
				f.Close()
				if err != nil {
					t.Fatal(err)
				}
				findings, err := db.Verify(ctx, res[0].InstID)
				if err != nil {
					t.Fatal(err)
				}
				for _, fd := range findings {
					t.Errorf("verify %s: %+v", filepath.Base(c.file), fd)
				}
				c.check(t, dbTables(ctx, db, res[0].InstID), c.file)
			}
		})
	}
}

// TestChunksAgreeWithPprofTop reads a generated CPU profile whose samples
// are decoded in several chunks and compares the tables with go tool pprof
// -top on the same file: no sample is lost or counted twice at a chunk's
// edge.
func TestChunksAgreeWithPprofTop(t *testing.T) {
	if testing.Short() {
		t.Skip("generates a large profile")
	}
	data := generated(t, 300_000, 5_000, 32)
	if n := len(gunzip(t, data)); n < 3*pprof.ChunkBytes {
		t.Fatalf("the profile is %d bytes: fewer than three chunks of %d", n, pprof.ChunkBytes)
	}
	file := filepath.Join(t.TempDir(), "gen.pb.gz")
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	checkCPU(t, memTables(readMemory(t, file)), file)
}

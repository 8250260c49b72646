package exporter_test

// The export benchmark: for each available database, the same
// function-trace result set of -rows CALL_TRACE rows written three ways,
// in one run:
//
//	(a) cli  the profdb binary exporting an interchange JSON file, as a
//	         user runs it (its peak RSS is measured too);
//	(b) api  resultset.Export with the rows generated in memory, into a
//	         fresh namespace (it creates the tables);
//	(b2)     the same into tables that exist already, with their indexes;
//	(c) raw  the driver's fastest path with no profdb code in the way, into
//	         the same table created from the same DDL, indexes in place;
//	(n) native, (copy)  the database's own client loading the rows from
//	         CSV, and profdb copy from another database (bench_native_test.go).
//
// (a) and (b) create the tables themselves, so they may build the indexes
// after the rows where the dialect allows (dialects.IndexSplitter); (c)
// loads into the indexed table, as a hand-written loader into existing
// tables would. Run it with
//
//	go test -run '^$' -bench Export -benchtime 1x -timeout 0 ./exporter/
//	go test -run '^$' -bench Export -benchtime 1x -timeout 0 ./exporter/ -args -rows 100000
//	go test -run '^$' -bench Export -benchtime 1x -timeout 0 ./exporter/ -args -memrows 4000000
//
// (task bench runs the first). The JSON file is written by a few lines of
// its own (writeBenchJSON, the format of docs/interchange.md), so that the
// exporter's tests do not depend on package input/interchange. SQLite
// always runs; PostgreSQL, MySQL and SQL Server run when
// PROFDB_TEST_POSTGRES, PROFDB_TEST_MYSQL and PROFDB_TEST_SQLSERVER are set. Every namespace
// is fresh (internal/dbtest.Fresh) and dropped afterwards.

import (
	"bufio"
	"context"
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/lib/pq"
	mssql "github.com/microsoft/go-mssqldb"

	"github.com/profdb/profdb/ddl"
	"github.com/profdb/profdb/dialects"
	"github.com/profdb/profdb/exporter"
	"github.com/profdb/profdb/internal/clitest"
	"github.com/profdb/profdb/internal/dbtest"
	"github.com/profdb/profdb/internal/launchtest"
	"github.com/profdb/profdb/profilers"
	"github.com/profdb/profdb/profilers/functiontrace"
	"github.com/profdb/profdb/resultset"
	"github.com/profdb/profdb/store"
)

var (
	benchRows    = flag.Int("rows", 1_000_000, "CALL_TRACE rows of BenchmarkExport")
	benchMemRows = flag.Int("memrows", 0, "if set, BenchmarkExport also runs the CLI with this many rows and compares its peak RSS (memory flatness; e.g. 4000000)")
	benchSettle  = flag.Duration("settle", 2*time.Second, "BenchmarkExport pauses this long before each measured path, for the server to finish the previous one's writes")
	benchOnly    = flag.String("only", "", "BenchmarkExport runs only this path (raw, native, api, pre, cli, copy or off), for profiling")
	benchRepeat  = flag.Int("repeat", 3, "BenchmarkExport measures each path this many times, in turn, and reports the best and the median")
	benchBulkOff = flag.Bool("bulkoff", false, "BenchmarkExport also runs resultset.Export with BulkOff (batched INSERT), as (b')")
)

// callTraceColumns are the CALL_TRACE columns the benchmark fills, every
// one but INST_ID: 11 BIGINT columns (12 with INST_ID).
var callTraceColumns = []string{"COL__S", "COL__S_WITH_CHILDREN", "COL_CALL_NO", "COL_LINE_NUMBER", "COL_NEXT",
	"COL_PARENT_NO", "COL_RECID", "COL_ROUTINE_NAME", "ID", "PARENT_ID", "REC_ID"}

var threadColumns = []string{"ID", "PARENT_ID", "REC_ID", "COL_WIN32THREADID"}

var threadRow = []any{int64(0), int64(-1), int64(0), int64(4711)}

// callTraceRow fills row with the values of call i: a call tree 64 deep,
// timings in counter ticks, 5000 routines.
func callTraceRow(i int64, row []any) {
	depth := i % 64
	parent := int64(-1)
	if depth > 0 {
		parent = i - 1
	}
	next := i + 1
	if depth == 63 {
		next = -1
	}
	row[0] = 1000 + (i*7919)%1_000_003     // COL__S
	row[1] = 5000 + (i*104_729)%50_000_017 // COL__S_WITH_CHILDREN
	row[2] = i                             // COL_CALL_NO
	row[3] = 10 + (i*31)%2000              // COL_LINE_NUMBER
	row[4] = next                          // COL_NEXT
	row[5] = parent                        // COL_PARENT_NO
	row[6] = (i * 13) % 5000               // COL_RECID
	row[7] = (i * 13) % 5000               // COL_ROUTINE_NAME
	row[8] = i                             // ID
	row[9] = int64(0)                      // PARENT_ID: the thread
	row[10] = i                            // REC_ID
}

// benchSet is the result set of the benchmark with n calls.
func benchSet(n int) *resultset.ResultSet {
	return &resultset.ResultSet{
		Header: resultset.Header{Profiler: functiontrace.Name, Caption: "bench",
			Counter: &resultset.Counter{Name: "Time", Description: "Elapsed Time", Frequency: int64(2_400_000_000)}},
		Tables: []resultset.TableRows{
			{Name: functiontrace.Threads, Columns: threadColumns, Rows: rowsOf(threadRow)},
			{Name: functiontrace.CallTrace, Columns: callTraceColumns, Rows: func(yield func([]any, error) bool) {
				row := make([]any, len(callTraceColumns))
				for i := range int64(n) {
					callTraceRow(i, row)
					if !yield(row, nil) {
						return
					}
				}
			}},
		},
	}
}

// writeBenchJSON writes the benchmark's result set as interchange JSON.
func writeBenchJSON(path string, n int) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	w.WriteString(`{"profiler":"function-trace","caption":"bench","counter":{"name":"Time","description":"Elapsed Time","frequency":2400000000},"tables":{` + "\n")
	w.WriteString(`"FUNCTION_TRACE_PROFILER_THREADS":[` + "\n" + `{"ID":0,"PARENT_ID":-1,"REC_ID":0,"COL_WIN32THREADID":4711}` + "\n],\n")
	w.WriteString(`"FUNCTION_TRACE_PROFILER_CALL_TRACE":[`)
	row := make([]any, len(callTraceColumns))
	var b []byte
	for i := range int64(n) {
		callTraceRow(i, row)
		b = b[:0]
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, "\n{"...)
		for j, c := range callTraceColumns {
			if j > 0 {
				b = append(b, ',')
			}
			b = append(b, '"')
			b = append(b, c...)
			b = append(b, `":`...)
			b = strconv.AppendInt(b, row[j].(int64), 10)
		}
		b = append(b, '}')
		w.Write(b)
	}
	w.WriteString("\n]}}\n")
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func TestMain(m *testing.M) {
	launchtest.Main()
	os.Exit(m.Run())
}

// benchResult is one measured path.
type benchResult struct {
	rows    int64
	elapsed time.Duration
	maxRSS  int64         // bytes; (a) only
	checks  time.Duration // of elapsed, the checks before the commit; (b) only
	note    string
}

func (r benchResult) rate() float64 { return float64(r.rows) / r.elapsed.Seconds() }

// summary sums up repeated measurements of one path: the best rate and
// the median.
type summary struct {
	note         string
	best, median float64
	rss, maxRSS  int64 // the median and the largest peak RSS of the runs; (a) only
	runs         int
	// bestUnchecked is the best rate of the runs without the time of the
	// checks before the commit; (b) only.
	bestUnchecked float64
}

func summarize(rs []benchResult) summary {
	rates := make([]float64, len(rs))
	rss := make([]int64, len(rs))
	s := summary{note: rs[0].note, runs: len(rs)}
	for i, r := range rs {
		rates[i] = r.rate()
		rss[i] = r.maxRSS
		if r.checks > 0 {
			s.bestUnchecked = max(s.bestUnchecked, float64(r.rows)/(r.elapsed-r.checks).Seconds())
		}
	}
	slices.Sort(rates)
	slices.Sort(rss)
	s.rss, s.maxRSS = rss[len(rss)/2], rss[len(rss)-1]
	s.best = rates[len(rates)-1]
	if n := len(rates); n%2 == 1 {
		s.median = rates[n/2]
	} else {
		s.median = (rates[n/2-1] + rates[n/2]) / 2
	}
	return s
}

func (s summary) String() string {
	out := fmt.Sprintf("%-42s %9.0f rows/s", s.note, s.best)
	if s.runs > 1 {
		out += fmt.Sprintf(" (median %7.0f)", s.median)
	}
	return out
}

// BenchmarkExport measures (a), (b) and (c) on every available database,
// -repeat times each in turn, and prints the best rows/s of each path (and
// the median), the ratios a/c and b/c of the best rates (and of the
// medians), and the peak RSS of (a). The best of a few runs is the figure
// least disturbed by whatever else the machine (and the database server on
// it) is doing; the medians show how much that was.
func BenchmarkExport(b *testing.B) {
	n := *benchRows
	dir := b.TempDir()
	jsonFile := filepath.Join(dir, fmt.Sprintf("calls-%d.json", n))
	if err := writeBenchJSON(jsonFile, n); err != nil {
		b.Fatal(err)
	}
	bin := buildProfdb(b, dir)
	fmt.Printf("\nExport of %d CALL_TRACE rows (12 BIGINT columns) in one transaction; best of %d runs (median); %s, GOMAXPROCS=%d\n",
		n, *benchRepeat, runtime.Version(), runtime.GOMAXPROCS(0))
	order := []string{"raw", "native", "api", "pre", "cli", "copy"}
	if *benchBulkOff {
		order = append(order, "off")
	}
	if *benchOnly != "" {
		if !slices.Contains(order, *benchOnly) && *benchOnly != "off" {
			b.Fatalf("-only %q: want one of %s or off", *benchOnly, strings.Join(order, ", "))
		}
		order = []string{*benchOnly}
	}
	for _, name := range append(localDialects, "sqlserver") {
		b.Run(name, func(b *testing.B) {
			if name != "sqlite" && os.Getenv(dbtest.EnvVar(name)) == "" {
				b.Skipf("%s is not set", dbtest.EnvVar(name))
			}
			skipped := map[string]string{}
			var srcDSN, csv string
			paths := map[string]func() (benchResult, bool){
				"raw": func() (benchResult, bool) { return benchRaw(b, name, n), true },
				"api": func() (benchResult, bool) { return benchAPI(b, name, n, exporter.BulkAuto), true },
				"cli": func() (benchResult, bool) { return benchCLI(b, bin, name, jsonFile, n), true },
				"off": func() (benchResult, bool) { return benchAPI(b, name, n, exporter.BulkOff), true },
				"pre": func() (benchResult, bool) { return benchAPIExisting(b, name, n), true },
				"native": func() (benchResult, bool) {
					if nativeClients[name] == "" {
						return benchResult{note: "no native client of " + name + " here"}, false
					}
					if csv == "" {
						csv = benchCSV(b, dir, n)
					}
					return benchNative(b, name, csv, n)
				},
				"copy": func() (benchResult, bool) {
					from := copySource[name]
					if from == "" || (from != "sqlite" && os.Getenv(dbtest.EnvVar(from)) == "") {
						return benchResult{note: "no copy source for " + name}, false
					}
					if srcDSN == "" {
						srcDSN = copySourceDSN(b, from, n)
					}
					return benchCopy(b, bin, name, srcDSN, from, n), true
				},
			}
			for range b.N {
				runs := map[string][]benchResult{}
				for range max(1, *benchRepeat) {
					for _, p := range order {
						if _, skip := skipped[p]; skip {
							continue
						}
						r, ok := paths[p]()
						if !ok {
							skipped[p] = r.note
							continue
						}
						runs[p] = append(runs[p], r)
					}
				}
				sum := map[string]summary{}
				for _, p := range order {
					if len(runs[p]) > 0 {
						sum[p] = summarize(runs[p])
					}
				}
				raw, rawOK := sum["raw"]
				native, nativeOK := sum["native"]
				ratio := func(s summary) string {
					out := ""
					if rawOK {
						out += fmt.Sprintf("  %.2f of raw (median %.2f)", s.best/raw.best, s.median/raw.median)
					}
					if nativeOK {
						out += fmt.Sprintf("  %.2f of native (median %.2f)", s.best/native.best, s.median/native.median)
					}
					return out
				}
				for _, p := range order {
					if note, ok := skipped[p]; ok {
						fmt.Printf("%-9s %-6s %s\n", name, "("+p+")", note)
					}
				}
				if rawOK {
					fmt.Printf("%-9s (c)    %s\n", name, raw)
					b.ReportMetric(raw.best, "raw-rows/s")
				}
				if nativeOK {
					fmt.Printf("%-9s (n)    %s\n", name, native)
					b.ReportMetric(native.best, "native-rows/s")
				}
				api, apiOK := sum["api"]
				if apiOK {
					fmt.Printf("%-9s (b)    %s%s\n", name, api, ratio(api))
					if api.bestUnchecked > 0 {
						fmt.Printf("%-9s (b)    the same runs without the time of the checks before the commit: %9.0f rows/s (with them %.1f%% fewer)\n",
							name, api.bestUnchecked, 100*(1-api.best/api.bestUnchecked))
						b.ReportMetric(api.bestUnchecked, "api-unchecked-rows/s")
					}
					b.ReportMetric(api.best, "api-rows/s")
					if rawOK {
						b.ReportMetric(api.best/raw.best, "b/c")
					}
					if nativeOK {
						b.ReportMetric(api.best/native.best, "b/n")
					}
				}
				if pre, ok := sum["pre"]; ok {
					fmt.Printf("%-9s (b2)   %s%s\n", name, pre, ratio(pre))
					b.ReportMetric(pre.best, "pre-rows/s")
				}
				cli, cliOK := sum["cli"]
				if cliOK {
					fmt.Printf("%-9s (a)    %s%s  peak RSS %.1f MiB (largest %.1f)\n", name, cli, ratio(cli), float64(cli.rss)/(1<<20), float64(cli.maxRSS)/(1<<20))
					b.ReportMetric(cli.best, "cli-rows/s")
					b.ReportMetric(float64(cli.rss)/(1<<20), "cli-MiB")
					if rawOK {
						b.ReportMetric(cli.best/raw.best, "a/c")
					}
					if nativeOK {
						b.ReportMetric(cli.best/native.best, "a/n")
					}
					if apiOK {
						fmt.Printf("%-9s (b/a)  the API %.2f times the CLI (median %.2f)\n", name, api.best/cli.best, api.median/cli.median)
						b.ReportMetric(api.best/cli.best, "b/a")
					}
					if m := *benchMemRows; m > 0 {
						big := filepath.Join(dir, fmt.Sprintf("calls-%d.json", m))
						if _, err := os.Stat(big); err != nil {
							if err := writeBenchJSON(big, m); err != nil {
								b.Fatal(err)
							}
						}
						cli2 := benchCLI(b, bin, name, big, m)
						fmt.Printf("%-9s (a)    %s at %d rows: %9.0f rows/s  peak RSS %.1f MiB (%+.1f%% of the %.1f MiB at %d rows)\n",
							name, cli2.note, m, cli2.rate(), float64(cli2.maxRSS)/(1<<20),
							100*(float64(cli2.maxRSS)/float64(cli.rss)-1), float64(cli.rss)/(1<<20), n)
						b.ReportMetric(float64(cli2.maxRSS)/(1<<20), "cli-memrows-MiB")
					}
				}
				if cp, ok := sum["copy"]; ok {
					fmt.Printf("%-9s (copy) %s%s  peak RSS %.1f MiB (largest %.1f)\n", name, cp, ratio(cp), float64(cp.rss)/(1<<20), float64(cp.maxRSS)/(1<<20))
					b.ReportMetric(cp.best, "copy-rows/s")
					if cliOK {
						fmt.Printf("%-9s (copy/a) the copy %.2f times the export (median %.2f)\n", name, cp.best/cli.best, cp.median/cli.median)
						b.ReportMetric(cp.best/cli.best, "copy/a")
					}
					if m := *benchMemRows; m > 0 {
						from := copySource[name]
						big := copySourceDSN(b, from, m)
						cp2 := benchCopy(b, bin, name, big, from, m)
						fmt.Printf("%-9s (copy) %s at %d rows: %9.0f rows/s  peak RSS %.1f MiB (%+.1f%% of the %.1f MiB at %d rows)\n",
							name, cp2.note, m, cp2.rate(), float64(cp2.maxRSS)/(1<<20),
							100*(float64(cp2.maxRSS)/float64(cp.rss)-1), float64(cp.rss)/(1<<20), n)
						b.ReportMetric(float64(cp2.maxRSS)/(1<<20), "copy-memrows-MiB")
					}
				}
				if off, ok := sum["off"]; ok {
					fmt.Printf("%-9s (b')   %s%s\n", name, off, ratio(off))
				}
			}
		})
	}
}

// buildProfdb builds cmd/profdb as a user does.
func buildProfdb(b *testing.B, dir string) string {
	b.Helper()
	bin, err := clitest.Build(b.Context(), dir)
	if err != nil {
		b.Fatal(err)
	}
	return bin
}

// benchCLI runs (a): profdb export FILE into a fresh namespace.
func benchCLI(b *testing.B, bin, dialect, file string, n int) benchResult {
	b.Helper()
	s := scope(b)
	defer s.end()
	dsn := dbtest.Fresh(s, dialect)
	settle(s, dsn)
	r := launchtest.Measure(b, nil, bin, "export", "--quiet", "--db", dsn, file)
	if r.Err != "" {
		b.Fatalf("profdb export: %s\n%s%s", r.Err, r.Stdout, r.Stderr)
	}
	checkCount(s, dsn, n)
	note := "profdb export (JSON file)"
	if e := strings.TrimSpace(r.Stderr); e != "" {
		note += " [" + e + "]"
	}
	return benchResult{rows: int64(n) + 1, elapsed: r.Elapsed, maxRSS: r.MaxRSS, note: note}
}

// benchAPI runs (b): resultset.Export into a fresh namespace.
func benchAPI(b *testing.B, dialect string, n int, mode exporter.BulkMode) benchResult {
	b.Helper()
	s := scope(b)
	defer s.end()
	dsn := dbtest.Fresh(s, dialect)
	settle(s, dsn)
	ctx := context.Background()
	var logs []string
	// The checks export runs before it commits (as verify would) take
	// the time from PhaseCheck to PhaseCommit.
	var checkStart, checkEnd time.Time
	phase := func(p string) {
		switch p {
		case store.PhaseCheck:
			checkStart = time.Now()
		case store.PhaseCommit:
			checkEnd = time.Now()
		}
	}
	db, err := exporter.Open(ctx, dsn, store.Options{Phase: phase, Logf: func(f string, a ...any) { logs = append(logs, fmt.Sprintf(f, a...)) }}, exporter.Options{Bulk: mode})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	start := time.Now()
	res, err := resultset.Export(ctx, db, benchSet(n))
	elapsed := time.Since(start)
	if err != nil {
		b.Fatal(err)
	}
	if res.Rows != int64(n)+1 {
		b.Fatalf("exported %d rows, want %d", res.Rows, n+1)
	}
	checkCount(s, dsn, n)
	note := "resultset.Export, bulk=" + mode.String()
	if len(logs) > 0 {
		note += " [" + strings.Join(logs, "; ") + "]"
	}
	return benchResult{rows: res.Rows, elapsed: elapsed, checks: checkEnd.Sub(checkStart), note: note}
}

// benchAPIExisting runs (b2): resultset.Export into tables that exist
// already, created from profdb's DDL with their indexes (as "profdb ddl"
// would make them), so that the export loads into indexed tables as (c)
// does.
func benchAPIExisting(b *testing.B, dialect string, n int) benchResult {
	b.Helper()
	s := scope(b)
	defer s.end()
	dsn := dbtest.Fresh(s, dialect)
	ctx := context.Background()
	db, err := exporter.Open(ctx, dsn, store.Options{}, exporter.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	d := db.DB().Dialect()
	def := profilers.MustLookup(functiontrace.Name)
	for _, t := range append(profilers.Shared(), def.Tables...) {
		for _, stmt := range d.CreateTableIn("", t) {
			if _, err := db.DB().SQL().ExecContext(ctx, stmt); err != nil {
				b.Fatal(err)
			}
		}
	}
	settle(s, dsn)
	start := time.Now()
	res, err := resultset.Export(ctx, db, benchSet(n))
	elapsed := time.Since(start)
	if err != nil {
		b.Fatal(err)
	}
	checkCount(s, dsn, n)
	return benchResult{rows: res.Rows, elapsed: elapsed, note: "resultset.Export into existing tables"}
}

// checkCount fails unless the namespace holds n call-trace rows.
func checkCount(b testing.TB, dsn string, n int) {
	b.Helper()
	db := dbtest.Open(b, dsn)
	defer db.Close()
	d, err := dialects.ForDSN(dsn)
	if err != nil {
		b.Fatal(err)
	}
	var got int64
	if err := db.QueryRow("SELECT COUNT(*) FROM " + dialects.Qualify(d, "", d.StoredName(functiontrace.CallTrace))).Scan(&got); err != nil {
		b.Fatal(err)
	}
	if got != int64(n) {
		b.Fatalf("%d call-trace rows, want %d", got, n)
	}
}

// scoped is a testing.B whose cleanups (the fresh namespaces of
// internal/dbtest) run when one measured path ends, not with the
// benchmark, so that no path runs beside the dropping of another's data.
type scoped struct {
	*testing.B
	cleanups []func()
}

func scope(b *testing.B) *scoped { return &scoped{B: b} }

// Cleanup registers f for end.
func (s *scoped) Cleanup(f func()) { s.cleanups = append(s.cleanups, f) }

func (s *scoped) end() {
	for i := len(s.cleanups) - 1; i >= 0; i-- {
		s.cleanups[i]()
	}
}

// settle lets the server finish the writes of the previous path before the
// next one is timed: a CHECKPOINT on PostgreSQL (it needs superuser rights
// and is skipped without them), and on every database a short pause for
// the other background work (InnoDB's page flushing, the kernel's
// writeback).
func settle(t testing.TB, dsn string) {
	t.Helper()
	d, err := dialects.ForDSN(dsn)
	if err != nil {
		t.Fatal(err)
	}
	if d.Name() == "postgres" {
		db := dbtest.Open(t, dsn)
		defer db.Close()
		if _, err := db.Exec("CHECKPOINT"); err != nil {
			t.Fatal(err)
		}
	}
	exec.Command("sync").Run()
	time.Sleep(*benchSettle)
}

// benchRaw runs (c): the call-trace table created from profdb's DDL, with
// its indexes, in a fresh namespace; then the rows through the driver's
// fastest path in one transaction, timed from BEGIN to COMMIT.
func benchRaw(b *testing.B, dialect string, n int) benchResult {
	b.Helper()
	s := scope(b)
	defer s.end()
	dsn := dbtest.Fresh(s, dialect)
	db := dbtest.Open(s, dsn)
	defer db.Close()
	d, err := dialects.ForDSN(dsn)
	if err != nil {
		s.Fatal(err)
	}
	ctx := context.Background()
	def := profilers.MustLookup(functiontrace.Name)
	table, _ := def.Table(functiontrace.CallTrace)
	for _, s := range d.CreateTableIn("", table) {
		if _, err := db.ExecContext(ctx, s); err != nil {
			b.Fatal(err)
		}
	}
	cols := make([]string, 0, len(callTraceColumns)+1)
	for _, c := range callTraceColumns {
		cols = append(cols, d.StoredName(c))
	}
	cols = append(cols, d.StoredName(ddl.InstID))
	name := d.StoredName(table.Name)
	settle(s, dsn)

	start := time.Now()
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		b.Fatal(err)
	}
	var note string
	switch dialect {
	case "postgres":
		note, err = rawCopy(ctx, tx, name, cols, n)
	case "mysql":
		note, err = rawLoadData(ctx, tx, name, cols, n)
	case "sqlite":
		note, err = rawInsert(ctx, tx, d, name, cols, n)
	case "sqlserver":
		note, err = rawBulkCopy(ctx, tx, d.Quote(name), cols, n)
	default:
		err = errors.New("no raw path for " + dialect)
	}
	if err != nil {
		tx.Rollback()
		b.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	elapsed := time.Since(start)
	checkCount(s, dsn, n)
	return benchResult{rows: int64(n), elapsed: elapsed, note: note}
}

// rawCopy: lib/pq CopyIn (COPY FROM STDIN).
func rawCopy(ctx context.Context, tx *sql.Tx, table string, cols []string, n int) (string, error) {
	return rawCopyIn(ctx, tx, pq.CopyIn(table, cols...), cols, n, "lib/pq CopyIn (COPY FROM STDIN)")
}

// rawBulkCopy: go-mssqldb's bulk copy (mssql.CopyIn, TDS BULK LOAD).
func rawBulkCopy(ctx context.Context, tx *sql.Tx, table string, cols []string, n int) (string, error) {
	return rawCopyIn(ctx, tx, mssql.CopyIn(table, mssql.BulkOptions{}, cols...), cols, n, "go-mssqldb CopyIn (bulk copy)")
}

// rawCopyIn sends n rows through a driver's copy statement (a prepared
// statement whose Execs take one row each and whose last, empty Exec ends
// the copy), and returns note.
func rawCopyIn(ctx context.Context, tx *sql.Tx, query string, cols []string, n int, note string) (string, error) {
	stmt, err := tx.PrepareContext(ctx, query)
	if err != nil {
		return "", err
	}
	defer stmt.Close()
	row := make([]any, len(cols))
	row[len(cols)-1] = int64(1)
	for i := range int64(n) {
		callTraceRow(i, row)
		if _, err := stmt.ExecContext(ctx, row...); err != nil {
			return "", err
		}
	}
	_, err = stmt.ExecContext(ctx)
	return note, err
}

var rawReaderSeq atomic.Int64

// rawLoadData: LOAD DATA LOCAL INFILE from a reader handler, the text
// written by a goroutine through an io.Pipe.
func rawLoadData(ctx context.Context, tx *sql.Tx, table string, cols []string, n int) (string, error) {
	name := fmt.Sprintf("bench-raw-%d", rawReaderSeq.Add(1))
	pr, pw := io.Pipe()
	mysql.RegisterReaderHandler(name, func() io.Reader { return pr })
	defer mysql.DeregisterReaderHandler(name)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		w := bufio.NewWriterSize(pw, 64<<10)
		row := make([]any, len(cols)-1)
		var line []byte
		for i := range int64(n) {
			callTraceRow(i, row)
			line = line[:0]
			for _, v := range row {
				line = strconv.AppendInt(line, v.(int64), 10)
				line = append(line, '\t')
			}
			line = append(line, "1\n"...)
			if _, err := w.Write(line); err != nil {
				pw.CloseWithError(err)
				return
			}
		}
		pw.CloseWithError(w.Flush())
	}()
	q := make([]string, len(cols))
	for i, c := range cols {
		q[i] = "`" + c + "`"
	}
	_, err := tx.ExecContext(ctx, "LOAD DATA LOCAL INFILE 'Reader::"+name+"' INTO TABLE `"+table+
		"` CHARACTER SET utf8mb4 FIELDS TERMINATED BY X'09' ESCAPED BY X'5C' LINES TERMINATED BY X'0A' ("+strings.Join(q, ", ")+")")
	pr.Close()
	wg.Wait()
	return "LOAD DATA LOCAL INFILE (reader handler)", err
}

// rawInsertRows is the statement size of the raw SQLite path: the fastest
// measured (see dialects/sqlite.BulkRows).
const rawInsertRows = 256

// rawInsert: SQLite's fastest statement, a prepared multi-row INSERT
// reused.
func rawInsert(ctx context.Context, tx *sql.Tx, d dialects.Dialect, table string, cols []string, n int) (string, error) {
	stmt, err := tx.PrepareContext(ctx, dialects.InsertSQL(d, d.Quote(table), cols, rawInsertRows))
	if err != nil {
		return "", err
	}
	defer stmt.Close()
	one, err := tx.PrepareContext(ctx, dialects.InsertSQL(d, d.Quote(table), cols, 1))
	if err != nil {
		return "", err
	}
	defer one.Close()
	args := make([]any, 0, rawInsertRows*len(cols))
	row := make([]any, len(cols)-1)
	for i := range int64(n) {
		callTraceRow(i, row)
		args = append(append(args, row...), int64(1))
		if len(args) == cap(args) {
			if _, err := stmt.ExecContext(ctx, args...); err != nil {
				return "", err
			}
			args = args[:0]
		}
	}
	for len(args) > 0 {
		if _, err := one.ExecContext(ctx, args[:len(cols)]...); err != nil {
			return "", err
		}
		args = args[len(cols):]
	}
	return fmt.Sprintf("prepared %d-row INSERT, reused", rawInsertRows), nil
}

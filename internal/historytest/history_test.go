package historytest_test

// The history benchmark: what each profdb command costs on a database that
// holds many result sets. Opt-in:
//
//	go test -run '^$' -bench History -benchtime 1x -timeout 0 ./internal/historytest/ \
//	    -args -sizes 100,1000,5000 [-tracesizes 20,200] [-dbs sqlite,postgres,mysql,sqlserver] [-repeat 3] [-only compare,show]
//
// (task bench:history). SQLite always; the servers when their
// PROFDB_TEST_* variable is set. The inputs are real: five Go coverage
// profiles of spf13/pflag's tests (go test -coverprofile, run on a copy of
// the module from the module cache, with different -run filters) and two
// CPU profiles of a small Go program that parses and type-checks standard
// library packages. They are made once and kept in -cache.
//
// A history of N result sets is built as N exports would leave it, without
// N exports: the distinct inputs are exported for real with the profdb
// binary, then the database copies its own rows, INSERT … SELECT, doubling
// the result sets held until there are N: every table's INST_ID shifted,
// RELATIONS' ID (unique in the whole table) moved past the largest, and
// PROFDB_RESULT_SETS given its rows. Result set i is then a copy of input
// (i-1) mod V + 1, as if the V inputs had been exported in turn; every
// tenth is on branch feature and the others on main, for the commands
// that name result sets by selector (show latest, check latest --baseline
// branch:main, trend --branch main --last 100). With -beside T a coverage
// history holds T function traces too, built first, so older than its
// coverage sets. profdb
// verify checks the whole database before anything else runs (that run is
// the first of the command verify's). No
// ANALYZE runs after the build: the statistics are those the server keeps
// by itself.

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/profdb/profdb/dialects"
	_ "github.com/profdb/profdb/dialects/mysql"
	_ "github.com/profdb/profdb/dialects/postgres"
	_ "github.com/profdb/profdb/dialects/sqlite"
	_ "github.com/profdb/profdb/dialects/sqlserver"
	"github.com/profdb/profdb/internal/clitest"
	"github.com/profdb/profdb/internal/dbtest"
	"github.com/profdb/profdb/internal/launchtest"
	"github.com/profdb/profdb/profilers"
)

var (
	histSizes      = flag.String("sizes", "", "BenchmarkHistory: result sets held in the coverage histories, comma-separated (e.g. 100,1000,5000); with -tracesizes unset too, the benchmark skips")
	histTraceSizes = flag.String("tracesizes", "", "BenchmarkHistory: result sets held in the function-trace histories (e.g. 20,200)")
	histDBs        = flag.String("dbs", "sqlite,postgres,mysql,sqlserver", "BenchmarkHistory: databases (the servers need PROFDB_TEST_POSTGRES, PROFDB_TEST_MYSQL, PROFDB_TEST_SQLSERVER)")
	histRepeat     = flag.Int("repeat", 3, "BenchmarkHistory: runs of each command; the median is printed")
	histOnly       = flag.String("only", "", "BenchmarkHistory: measure only these commands, comma-separated (names as printed: compare, check, show, report, verify-inst, copy-inst, list, list-last, delete-dry-10, verify, merge-100, delete-10, delete-1, export)")
	histSkip       = flag.String("skip", "", "BenchmarkHistory: do not measure these commands; with verify among them, the history built is checked with verify --inst on its first, middle and last result sets instead of the whole database")
	histBeside     = flag.Int("beside", 0, "BenchmarkHistory: function traces a coverage history holds beside its coverage sets, exported and copied before them (issue 34's database: -sizes 1000,5000 -beside 200)")
	histCache      = flag.String("cache", "", "BenchmarkHistory: folder for the generated inputs (default: profdb-histbench in the user's cache folder)")
)

// pflagModule is the module whose tests give the coverage profiles: it has
// no dependencies, and profdb's go.mod requires it (through cobra), so the
// module cache holds it.
const pflagModule = "github.com/spf13/pflag@v1.0.9"

// coverRuns are the go test runs of pflag behind the coverage inputs.
var coverRuns = [][]string{
	{},
	{"-run", "^Test[A-M]"},
	{"-run", "^Test[N-Z]"},
	{"-run", "Parse"},
	{"-covermode", "count"},
}

// traceRuns is the number of CPU profiles made, and traceSeconds how long
// the program runs for each.
const (
	traceRuns    = 2
	traceSeconds = "1s"
)

func TestMain(m *testing.M) {
	launchtest.Main()
	os.Exit(m.Run())
}

// kind is one sort of history: its inputs and how profdb exports them.
type kind struct {
	name     string   // coverage, trace
	profiler string   // the profiler its result sets are of
	inputs   []string // files, exported in turn
	export   []string // flags of profdb export besides --db
	sizes    []int
	// before, when set, is another kind whose history of beside result
	// sets is built first, in the same database: older sets of another
	// profiler that every command of this kind must pass over.
	before *kind
	beside int
}

// cmdSpec is one measured command. args gives its arguments after the
// binary, for a history of n result sets (A = n-1 and B = n), on its
// repeat-th run; nil skips it at that size.
type cmdSpec struct {
	name    string
	sub     string // subcommand, and flag it needs ("" for none): skipped
	flag    string // when the binary lacks them
	mutates bool
	okExit1 bool // exit status 1 (a failed gate) is an answer, not a failure
	args    func(h *history, repeat int) []string
}

// history is one database holding n result sets of one kind, numbered
// from first+1 (k.beside sets of k.before come first).
type history struct {
	dsn, tmp string
	k        *kind
	n        int
	first    int
	// verified is the run of profdb verify that checked the history after
	// it was built: the first run of the command verify.
	verified *launchtest.Result
}

func (h *history) a() string { return h.inst(h.n - 1) }
func (h *history) b() string { return h.inst(h.n) }

// inst is the INST_ID of the history's i-th result set of its kind.
func (h *history) inst(i int) string { return strconv.Itoa(h.first + i) }

// span is "--inst" of the history's i-th to j-th result sets of its kind.
func (h *history) span(i, j int) string { return h.inst(i) + "-" + h.inst(j) }

var commands = []cmdSpec{
	{name: "compare", sub: "compare", args: func(h *history, _ int) []string {
		return []string{"compare", "--db", h.dsn, h.a(), h.b()}
	}},
	{name: "check", sub: "check", okExit1: true, args: func(h *history, _ int) []string {
		rule := []string{"--max-drop", "1"}
		if h.k.name == "trace" {
			rule = []string{"--max-time-increase", "10"}
		}
		return append([]string{"check", "--db", h.dsn, h.b(), "--baseline", h.a()}, rule...)
	}},
	{name: "show", sub: "show", args: func(h *history, _ int) []string {
		return []string{"show", "--db", h.dsn, h.b()}
	}},
	{name: "report", sub: "report", args: func(h *history, _ int) []string {
		return []string{"report", "--db", h.dsn, "--inst", h.b(), "-o", filepath.Join(h.tmp, "report.html")}
	}},
	{name: "verify-inst", sub: "verify", args: func(h *history, _ int) []string {
		return []string{"verify", "--db", h.dsn, "--inst", h.b()}
	}},
	{name: "copy-inst", sub: "copy", args: func(h *history, r int) []string {
		to := filepath.Join(h.tmp, fmt.Sprintf("copy-%d.db", r))
		return []string{"copy", "-q", "--from", h.dsn, "--to", "sqlite:" + to, "--inst", h.b()}
	}},
	{name: "list", sub: "list", args: func(h *history, _ int) []string {
		return []string{"list", "--db", h.dsn}
	}},
	{name: "list-last", sub: "list", flag: "--last", args: func(h *history, _ int) []string {
		return []string{"list", "--db", h.dsn, "--last", "20"}
	}},
	// Issue 34's commands, by selector: the newest result set (on branch
	// feature, see setBranches) against the newest of main before it, and
	// the last 100 of main.
	{name: "show-latest", sub: "show", args: func(h *history, _ int) []string {
		return []string{"show", "--db", h.dsn, "latest"}
	}},
	{name: "check-latest", sub: "check", okExit1: true, args: func(h *history, _ int) []string {
		rule := []string{"--max-drop", "1"}
		if h.k.name == "trace" {
			rule = []string{"--max-time-increase", "10"}
		}
		return append([]string{"check", "--db", h.dsn, "latest", "--baseline", "branch:main"}, rule...)
	}},
	{name: "trend", sub: "trend", args: func(h *history, _ int) []string {
		return []string{"trend", "--db", h.dsn, "--branch", "main", "--profiler", h.k.profiler, "--last", "100"}
	}},
	{name: "delete-dry-10", sub: "delete", flag: "--dry-run", args: func(h *history, _ int) []string {
		if h.n < 12 {
			return nil
		}
		return []string{"delete", "--db", h.dsn, "--inst", h.span(1, 10), "--dry-run"}
	}},
	// The whole database: its first run is the check of the history built.
	{name: "verify", sub: "verify", args: func(h *history, _ int) []string {
		return []string{"verify", "--db", h.dsn}
	}},
	// The commands that change the history come last, each repeat on
	// other result sets: merge adds one, delete-10 removes 1-10, 11-20...,
	// delete-1 one set after those, export adds one.
	{name: "merge-100", sub: "merge", mutates: true, args: func(h *history, _ int) []string {
		args := []string{"merge", "--db", h.dsn, "--caption", "merge of the newest 100"}
		for i := max(1, h.n-99); i <= h.n; i++ {
			args = append(args, h.inst(i))
		}
		return args
	}},
	{name: "delete-10", sub: "delete", mutates: true, args: func(h *history, r int) []string {
		if 11*(*histRepeat) > h.n-2 {
			return nil
		}
		return []string{"delete", "--db", h.dsn, "--inst", h.span(10*r+1, 10*r+10)}
	}},
	{name: "delete-1", sub: "delete", mutates: true, args: func(h *history, r int) []string {
		if 11*(*histRepeat) > h.n-2 {
			return nil
		}
		return []string{"delete", "--db", h.dsn, "--inst", h.inst(10*(*histRepeat) + 1 + r)}
	}},
	{name: "export", sub: "export", mutates: true, args: func(h *history, _ int) []string {
		return append(append([]string{"export", "--db", h.dsn, "-q"}, h.k.export...), h.k.inputs[0])
	}},
}

// sample is the median of a command's runs on one history.
type sample struct {
	secs, mib float64
}

// BenchmarkHistory builds histories of -sizes coverage result sets and
// -tracesizes function-trace result sets in each of -dbs, and runs each
// command -repeat times on each as a child process: median wall time and
// peak RSS, printed as a line per history and command, then as a table
// per database and kind with the growth from the smallest size to the
// largest.
func BenchmarkHistory(b *testing.B) {
	coverSizes, err := parseSizes(*histSizes)
	if err != nil {
		b.Fatalf("-sizes: %v", err)
	}
	traceSizes, err := parseSizes(*histTraceSizes)
	if err != nil {
		b.Fatalf("-tracesizes: %v", err)
	}
	if len(coverSizes)+len(traceSizes) == 0 {
		b.Skip("set -sizes or -tracesizes (e.g. -args -sizes 100,1000 -tracesizes 20,200) to run it")
	}
	if *histRepeat < 1 {
		b.Fatalf("-repeat %d: want at least 1", *histRepeat)
	}
	only, err := commandSet(*histOnly)
	if err != nil {
		b.Fatalf("-only: %v", err)
	}
	skip, err := commandSet(*histSkip)
	if err != nil {
		b.Fatalf("-skip: %v", err)
	}
	ctx := b.Context()
	cache := cacheDir()
	var kinds []*kind
	if len(coverSizes) > 0 {
		inputs, srcRoot, err := coverageInputs(ctx, cache)
		if err != nil {
			b.Fatal(err)
		}
		kinds = append(kinds, &kind{name: "coverage", profiler: "light-coverage", inputs: inputs, export: []string{"--source-root", srcRoot}, sizes: coverSizes})
	}
	if len(traceSizes) > 0 || *histBeside > 0 && len(coverSizes) > 0 {
		inputs, err := traceInputs(ctx, cache)
		if err != nil {
			b.Fatal(err)
		}
		traces := &kind{name: "trace", profiler: "function-trace", inputs: inputs, sizes: traceSizes}
		if *histBeside > 0 && len(coverSizes) > 0 {
			kinds[0].before, kinds[0].beside = traces, *histBeside
		}
		if len(traceSizes) > 0 {
			kinds = append(kinds, traces)
		}
	}
	for _, k := range kinds {
		for _, in := range k.inputs {
			st, err := os.Stat(in)
			if err != nil {
				b.Fatal(err)
			}
			fmt.Printf("input %-8s %s (%d bytes)\n", k.name, in, st.Size())
		}
	}
	bin, err := clitest.Build(ctx, b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	has := haves(ctx, bin)
	for _, dbName := range strings.Split(*histDBs, ",") {
		dbName = strings.TrimSpace(dbName)
		if dbName != "sqlite" && os.Getenv(dbtest.EnvVar(dbName)) == "" {
			fmt.Printf("%s: %s is not set, skipped\n", dbName, dbtest.EnvVar(dbName))
			continue
		}
		for _, k := range kinds {
			// results[command][size]
			results := map[string]map[int]sample{}
			for _, n := range k.sizes {
				b.Run(fmt.Sprintf("%s/%s/%d", dbName, k.name, n), func(b *testing.B) {
					h := &history{dsn: dbtest.Fresh(b, dbName), tmp: b.TempDir(), k: k, n: n}
					build(b, bin, dbName, h, !skip["verify"])
					for b.Loop() {
						for _, c := range commands {
							if len(only) > 0 && !only[c.name] || skip[c.name] {
								continue
							}
							if !has(c.sub, c.flag) {
								fmt.Printf("%-9s %-8s %5d sets: %-13s skipped: this profdb has no %s %s\n", dbName, k.name, n, c.name, c.sub, c.flag)
								continue
							}
							s, ok := measure(b, bin, h, c)
							if !ok {
								continue
							}
							if results[c.name] == nil {
								results[c.name] = map[int]sample{}
							}
							results[c.name][n] = s
							b.ReportMetric(s.secs, c.name+"-s")
						}
					}
				})
			}
			printTable(dbName, k, results)
		}
	}
}

// cacheDir is the folder of the generated inputs: -cache, else
// profdb-histbench/GO_VERSION in the user's cache folder.
func cacheDir() string {
	if *histCache != "" {
		return *histCache
	}
	dir, err := os.UserCacheDir()
	if err != nil {
		dir = os.TempDir()
	}
	return filepath.Join(dir, "profdb-histbench", runtime.Version())
}

// commandSet parses a comma-separated list of command names.
func commandSet(list string) (map[string]bool, error) {
	set := map[string]bool{}
	if strings.TrimSpace(list) == "" {
		return set, nil
	}
	for _, c := range strings.Split(list, ",") {
		c = strings.TrimSpace(c)
		if !slices.ContainsFunc(commands, func(s cmdSpec) bool { return s.name == c }) {
			return nil, fmt.Errorf("no command %q", c)
		}
		set[c] = true
	}
	return set, nil
}

func parseSizes(s string) ([]int, error) {
	var sizes []int
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 2 {
			return nil, fmt.Errorf("%q is not a number of result sets (at least 2)", f)
		}
		sizes = append(sizes, n)
	}
	slices.Sort(sizes)
	return slices.Compact(sizes), nil
}

// haves tells whether the binary has a subcommand and, if flag is not
// empty, that flag of it, from its help.
func haves(ctx context.Context, bin string) func(sub, flag string) bool {
	help := map[string]string{}
	return func(sub, flag string) bool {
		text, ok := help[sub]
		if !ok {
			out, err := exec.CommandContext(ctx, bin, "help", sub).CombinedOutput()
			if err == nil && strings.Contains(string(out), "profdb "+sub) {
				text = string(out)
			}
			help[sub] = text
		}
		return text != "" && (flag == "" || strings.Contains(text, flag+" "))
	}
}

// run runs profdb, failing the benchmark when it does not exit 0, and
// returns its standard output.
func run(tb testing.TB, bin string, args ...string) string {
	tb.Helper()
	out, err := exec.CommandContext(tb.Context(), bin, args...).Output()
	if err != nil {
		tb.Fatalf("profdb %s: %v%s", shown(args), err, scrub(args, stderrOf(err)))
	}
	return string(out)
}

// shown is a command line as the benchmark prints it: the passwords of
// its DSNs redacted.
func shown(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = a
		if strings.Contains(a, "://") || strings.HasPrefix(a, "sqlite:") {
			out[i] = dialects.Redact(a)
		}
	}
	return strings.Join(out, " ")
}

// scrub removes from text the secrets of the DSNs among args.
func scrub(args []string, text string) string {
	for _, a := range args {
		if strings.Contains(a, "://") {
			text = dialects.ScrubText(a, text)
		}
	}
	return text
}

func stderrOf(err error) string {
	if ee, ok := err.(*exec.ExitError); ok && len(ee.Stderr) > 0 {
		return "\n" + string(ee.Stderr)
	}
	return ""
}

// build fills h's database: the inputs exported in turn with profdb, then
// copied in the database until it holds h.n result sets, then verified:
// the whole database when full is set, else the first and last five result
// sets and the middle one (a copy of each input, from the first copies and
// the last).
func build(b *testing.B, bin, dbName string, h *history, full bool) {
	start := time.Now()
	db := dbtest.Open(b, h.dsn)
	d, err := dialects.ForDSN(h.dsn)
	if err != nil {
		b.Fatal(err)
	}
	var exported time.Duration
	if k := h.k.before; k != nil {
		// The other kind's history first: its sets are the older ones.
		real := min(h.k.beside, len(k.inputs))
		for _, in := range k.inputs[:real] {
			run(b, bin, append(append([]string{"export", "--db", h.dsn, "-q"}, k.export...), in)...)
		}
		exported = time.Since(start)
		if err := replicate(b.Context(), db, d, 1, real, h.k.beside); err != nil {
			b.Fatal(err)
		}
		h.first = h.k.beside
	}
	mark := time.Now()
	real := min(h.n, len(h.k.inputs))
	for _, in := range h.k.inputs[:real] {
		run(b, bin, append(append([]string{"export", "--db", h.dsn, "-q"}, h.k.export...), in)...)
	}
	exported += time.Since(mark)
	if err := replicate(b.Context(), db, d, h.first+1, real, h.n); err != nil {
		b.Fatal(err)
	}
	if err := setBranches(b.Context(), db, d); err != nil {
		b.Fatal(err)
	}
	replicated := time.Since(start) - exported
	verify := []string{bin, "verify", "--db", h.dsn}
	if !full {
		verify = append(verify, "--inst", h.span(1, min(5, h.n))+","+h.inst((h.n+1)/2)+","+h.span(max(1, h.n-4), h.n))
	}
	v := launchtest.Measure(b, nil, verify...)
	if v.Err != "" {
		b.Fatalf("profdb %s: %s\n%s%s", shown(verify[1:]), v.Err, scrub(verify, v.Stdout), scrub(verify, v.Stderr))
	}
	if full {
		h.verified = &v
	}
	beside := ""
	if h.k.before != nil {
		beside = fmt.Sprintf(" beside %d sets of %s before them", h.k.beside, h.k.before.profiler)
	}
	fmt.Printf("%-9s %-8s %5d sets%s: built in %.1f s (exports %.1f s, copies %.1f s), %s in %.1f s\n",
		dbName, h.k.name, h.n, beside, (exported + replicated).Seconds(), exported.Seconds(), replicated.Seconds(), strings.Join(append([]string{"verify"}, verify[4:]...), " "), v.Elapsed.Seconds())
	var inBytes int64
	for _, in := range h.k.inputs[:real] {
		st, err := os.Stat(in)
		if err != nil {
			b.Fatal(err)
		}
		inBytes += st.Size()
	}
	if h.k.before != nil {
		fmt.Printf("%-9s %-8s %5d sets: storage not measured beside another profiler's sets\n", dbName, h.k.name, h.n)
	} else if err := printStorage(b.Context(), db, dbName, h, float64(inBytes)/float64(real)); err != nil {
		b.Error(err)
	}
}

// replicate copies result sets first..first+have-1 inside the database,
// doubling them until there are want from first on: the copy of set i is
// set i+have. It writes what
// exports of the same inputs would: INST_ID in every table that has one
// (INSTANCES, RELATIONS, the profiler tables, PROFDB_RESULT_SETS), and
// RELATIONS' ID, which is unique in the whole table, past the largest.
// Every other column is copied as it is; a column the server numbers by
// itself (PROFDB_ROW_ID) is left to it.
func replicate(ctx context.Context, db *sql.DB, d dialects.Dialect, first, have, want int) error {
	names, err := d.Tables(ctx, db, "")
	if err != nil {
		return fmt.Errorf("replicate: %w", err)
	}
	type table struct {
		name  string
		cols  []string // quoted
		inst  string   // quoted INST_ID
		relID string   // quoted ID of RELATIONS; "" elsewhere
	}
	var tables []table
	for _, name := range names {
		cols, err := d.Columns(ctx, db, "", name)
		if err != nil {
			return fmt.Errorf("replicate: %w", err)
		}
		t := table{name: d.Quote(name)}
		for _, c := range cols {
			switch {
			case strings.EqualFold(c.Name, "PROFDB_ROW_ID"):
				continue
			case strings.EqualFold(c.Name, "INST_ID"):
				t.inst = d.Quote(c.Name)
			case strings.EqualFold(c.Name, "ID") && strings.EqualFold(name, "RELATIONS"):
				t.relID = d.Quote(c.Name)
			}
			t.cols = append(t.cols, d.Quote(c.Name))
		}
		if t.inst != "" {
			tables = append(tables, t)
		}
	}
	if !slices.ContainsFunc(tables, func(t table) bool { return t.relID != "" }) {
		return fmt.Errorf("replicate: no RELATIONS table with an ID among %v", names)
	}
	for have < want {
		n := min(have, want-have)
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return fmt.Errorf("replicate: %w", err)
		}
		for _, t := range tables {
			exprs := slices.Clone(t.cols)
			for i, c := range exprs {
				switch c {
				case t.inst:
					exprs[i] = fmt.Sprintf("%s + %d", c, have)
				case t.relID:
					var top int64
					if err := tx.QueryRowContext(ctx, "SELECT MAX("+c+") FROM "+t.name).Scan(&top); err != nil {
						tx.Rollback()
						return fmt.Errorf("replicate: largest RELATIONS ID: %w", err)
					}
					exprs[i] = fmt.Sprintf("%s + %d", c, top)
				}
			}
			q := fmt.Sprintf("INSERT INTO %s (%s) SELECT %s FROM %s WHERE %s BETWEEN %d AND %d",
				t.name, strings.Join(t.cols, ", "), strings.Join(exprs, ", "), t.name, t.inst, first, first+n-1)
			if _, err := tx.ExecContext(ctx, q); err != nil {
				tx.Rollback()
				return fmt.Errorf("replicate: %s: %w", q, err)
			}
		}
		if err := tx.Commit(); err != nil {
			return fmt.Errorf("replicate: commit: %w", err)
		}
		have += n
	}
	return nil
}

// setBranches puts every tenth result set (INST_ID a multiple of 10) on
// branch feature and the others on main, as a CI that exports main's
// builds and a pull request's now and then would: so the newest of a
// history of 1,000 or 5,000 sets is a pull request's, and branch:main
// picks the one before it.
func setBranches(ctx context.Context, db *sql.DB, d dialects.Dialect) error {
	cols, err := d.Columns(ctx, db, "", d.StoredName(profilers.ResultSetsTable))
	if err != nil {
		return fmt.Errorf("branches: %w", err)
	}
	var branch, inst string
	for _, c := range cols {
		switch {
		case strings.EqualFold(c.Name, profilers.ColBranch):
			branch = d.Quote(c.Name)
		case strings.EqualFold(c.Name, "INST_ID"):
			inst = d.Quote(c.Name)
		}
	}
	if branch == "" || inst == "" {
		return fmt.Errorf("branches: %s has no %s or INST_ID", profilers.ResultSetsTable, profilers.ColBranch)
	}
	q := fmt.Sprintf("UPDATE %s SET %s = CASE WHEN %s %% 10 = 0 THEN 'feature' ELSE 'main' END",
		d.Quote(d.StoredName(profilers.ResultSetsTable)), branch, inst)
	if _, err := db.ExecContext(ctx, q); err != nil {
		return fmt.Errorf("branches: %s: %w", q, err)
	}
	return nil
}

// measure runs c -repeat times on h and prints and returns the medians; ok
// is false when the command was skipped or failed (the benchmark fails).
func measure(b *testing.B, bin string, h *history, c cmdSpec) (sample, bool) {
	var secs, mib []float64
	for r := range *histRepeat {
		args := c.args(h, r)
		if args == nil {
			fmt.Printf("%-9s %-8s %5d sets: %-13s skipped: too few result sets\n", dbOf(h.dsn), h.k.name, h.n, c.name)
			return sample{}, false
		}
		var res launchtest.Result
		if c.name == "verify" && r == 0 && h.verified != nil {
			res = *h.verified
		} else {
			res = launchtest.Measure(b, nil, append([]string{bin}, args...)...)
		}
		if res.Err != "" && !(c.okExit1 && res.Err == "exit status 1") {
			b.Errorf("profdb %s: %s\n%s", shown(args), res.Err, scrub(args, res.Stderr))
			return sample{}, false
		}
		secs = append(secs, res.Elapsed.Seconds())
		mib = append(mib, float64(res.MaxRSS)/(1<<20))
	}
	s := sample{median(secs), median(mib)}
	fmt.Printf("%-9s %-8s %5d sets: %-13s %8.3f s %7.1f MiB   (runs: %s s)\n", dbOf(h.dsn), h.k.name, h.n, c.name, s.secs, s.mib, fmtList(secs))
	return s, true
}

func dbOf(dsn string) string {
	d, err := dialects.ForDSN(dsn)
	if err != nil {
		return "?"
	}
	return d.Name()
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func fmtList(v []float64) string {
	parts := make([]string, len(v))
	for i, x := range v {
		parts[i] = strconv.FormatFloat(x, 'f', 3, 64)
	}
	return strings.Join(parts, " ")
}

// printTable prints command × size: median time and peak RSS, and the
// growth from the smallest size measured to the largest.
func printTable(dbName string, k *kind, results map[string]map[int]sample) {
	if len(results) == 0 {
		return
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "\n%s, %s histories: median of %d, time s / peak RSS MiB\n", dbName, k.name, *histRepeat)
	fmt.Fprintf(&sb, "| command |")
	for _, n := range k.sizes {
		fmt.Fprintf(&sb, " %d sets |", n)
	}
	fmt.Fprintf(&sb, " growth (time, RSS) |\n| --- |%s --- |\n", strings.Repeat(" ---: |", len(k.sizes)))
	for _, c := range commands {
		r := results[c.name]
		if len(r) == 0 {
			continue
		}
		fmt.Fprintf(&sb, "| %s |", c.name)
		var got []int
		for _, n := range k.sizes {
			if s, ok := r[n]; ok {
				fmt.Fprintf(&sb, " %.3f s / %.0f MiB |", s.secs, s.mib)
				got = append(got, n)
			} else {
				fmt.Fprintf(&sb, " — |")
			}
		}
		if len(got) >= 2 {
			lo, hi := r[got[0]], r[got[len(got)-1]]
			fmt.Fprintf(&sb, " ×%.2f, ×%.2f |\n", hi.secs/lo.secs, hi.mib/lo.mib)
		} else {
			fmt.Fprintf(&sb, " — |\n")
		}
	}
	fmt.Print(sb.String())
}

// printStorage prints the bytes the history takes on disk, in all and per
// result set beside the mean input size, and per table and index.
func printStorage(ctx context.Context, db *sql.DB, dbName string, h *history, inputBytes float64) error {
	type obj struct {
		name  string
		bytes int64
	}
	var total int64
	var objs []obj
	query := func(q string, scan func(*sql.Rows) error) error {
		rows, err := db.QueryContext(ctx, q)
		if err != nil {
			return fmt.Errorf("storage: %s: %w", q, err)
		}
		defer rows.Close()
		for rows.Next() {
			if err := scan(rows); err != nil {
				return fmt.Errorf("storage: %s: %w", q, err)
			}
		}
		if err := rows.Err(); err != nil {
			return fmt.Errorf("storage: %s: %w", q, err)
		}
		return nil
	}
	switch dbName {
	case "sqlite":
		var pages, size int64
		if err := db.QueryRowContext(ctx, "SELECT page_count * page_size, page_size FROM pragma_page_count(), pragma_page_size()").Scan(&pages, &size); err != nil {
			return fmt.Errorf("storage: %w", err)
		}
		total = pages
		// dbstat, where the SQLite build has it: bytes per table and index.
		err := query("SELECT name, SUM(pgsize) FROM dbstat GROUP BY name HAVING SUM(pgsize) > "+strconv.FormatInt(size, 10)+" ORDER BY 2 DESC", func(r *sql.Rows) error {
			var o obj
			err := r.Scan(&o.name, &o.bytes)
			objs = append(objs, o)
			return err
		})
		if err != nil {
			fmt.Printf("%-9s %-8s %5d sets: no sizes per table (%v)\n", dbName, h.k.name, h.n, err)
		}
	case "postgres":
		err := query(`SELECT c.relname, c.relkind::text, pg_relation_size(c.oid), pg_total_relation_size(c.oid)
FROM pg_class c JOIN pg_namespace s ON s.oid = c.relnamespace
WHERE s.nspname = current_schema() AND c.relkind IN ('r', 'i') ORDER BY 4 DESC`, func(r *sql.Rows) error {
			var o obj
			var kind string
			var rel, tot int64
			if err := r.Scan(&o.name, &kind, &rel, &tot); err != nil {
				return err
			}
			if kind == "r" {
				total += tot
				o.name += " (table, toast and indexes: " + strconv.FormatInt(tot, 10) + "; heap)"
			}
			o.bytes = rel
			if rel > 8192 {
				objs = append(objs, o)
			}
			return nil
		})
		if err != nil {
			return err
		}
	case "mysql":
		err := query(`SELECT TABLE_NAME, DATA_LENGTH, INDEX_LENGTH FROM information_schema.TABLES
WHERE TABLE_SCHEMA = DATABASE() ORDER BY DATA_LENGTH + INDEX_LENGTH DESC`, func(r *sql.Rows) error {
			var name string
			var data, index int64
			if err := r.Scan(&name, &data, &index); err != nil {
				return err
			}
			total += data + index
			if data+index > 16384*2 {
				objs = append(objs, obj{name + " (data)", data}, obj{name + " (indexes)", index})
			}
			return nil
		})
		if err != nil {
			return err
		}
		// The size of each index, from InnoDB's persistent statistics.
		err = query(`SELECT CONCAT(table_name, '.', index_name), stat_value * @@innodb_page_size FROM mysql.innodb_index_stats
WHERE database_name = DATABASE() AND stat_name = 'size' AND stat_value > 2 ORDER BY 2 DESC`, func(r *sql.Rows) error {
			var o obj
			var v float64
			err := r.Scan(&o.name, &v)
			o.bytes = int64(v)
			objs = append(objs, o)
			return err
		})
		if err != nil {
			fmt.Printf("%-9s %-8s %5d sets: no sizes per index (%v)\n", dbName, h.k.name, h.n, err)
		}
	default:
		fmt.Printf("%-9s %-8s %5d sets: storage not measured on %s\n", dbName, h.k.name, h.n, dbName)
		return nil
	}
	fmt.Printf("%-9s %-8s %5d sets: storage %.1f MB, %.0f KB per result set (input %.0f KB: ×%.1f)\n",
		dbName, h.k.name, h.n, float64(total)/1e6, float64(total)/float64(h.n)/1e3, inputBytes/1e3, float64(total)/float64(h.n)/inputBytes)
	slices.SortStableFunc(objs, func(a, b obj) int { return cmp.Compare(b.bytes, a.bytes) })
	for _, o := range objs {
		fmt.Printf("%-9s %-8s %5d sets:   %12d bytes  %s\n", dbName, h.k.name, h.n, o.bytes, o.name)
	}
	return nil
}

// goCmd runs the go command in dir, with the environment of a plain
// module build, and fails with its output.
func goCmd(ctx context.Context, dir string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=", "GOTOOLCHAIN=local")
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go %s (in %s): %w%s", strings.Join(args, " "), dir, err, stderrOf(err))
	}
	return out, nil
}

// coverageInputs makes (once) the coverage profiles of pflag's tests, one
// per coverRuns entry, and returns them with the folder of the sources
// they name.
func coverageInputs(ctx context.Context, cache string) ([]string, string, error) {
	src := filepath.Join(cache, "pflag")
	var files []string
	for i := range coverRuns {
		files = append(files, filepath.Join(cache, fmt.Sprintf("pflag-%d.coverprofile", i+1)))
	}
	if allExist(files) {
		return files, src, nil
	}
	out, err := goCmd(ctx, ".", "mod", "download", "-json", pflagModule)
	if err != nil {
		return nil, "", err
	}
	var mod struct{ Dir string }
	if err := json.Unmarshal(out, &mod); err != nil || mod.Dir == "" {
		return nil, "", fmt.Errorf("go mod download %s said %q: %v", pflagModule, out, err)
	}
	if err := os.RemoveAll(src); err != nil {
		return nil, "", err
	}
	if err := os.MkdirAll(cache, 0o755); err != nil {
		return nil, "", err
	}
	// A writable copy: go test writes nothing there, but the module
	// cache's folders are read-only and the copy must be removable.
	if err := os.CopyFS(src, os.DirFS(mod.Dir)); err != nil {
		return nil, "", fmt.Errorf("copy %s: %w", mod.Dir, err)
	}
	for i, run := range coverRuns {
		args := append([]string{"test", "-count=1", "-coverprofile=" + files[i]}, run...)
		if _, err := goCmd(ctx, src, append(args, ".")...); err != nil {
			return nil, "", err
		}
	}
	return files, src, nil
}

// traceProgram is the Go program whose CPU profiles are the function
// traces: for the given time, it parses, formats and type-checks standard
// library packages from source, compresses the text and matches a regexp
// over it, so that its call tree is that of real code.
const traceProgram = `package main

import (
	"bytes"
	"compress/flate"
	"encoding/json"
	"flag"
	"go/ast"
	"go/format"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/pprof"
	"sort"
	"strings"
	"time"
)

func main() {
	out := flag.String("cpuprofile", "cpu.pprof", "file to write the CPU profile to")
	dur := flag.Duration("d", time.Second, "how long to run")
	flag.Parse()
	f, err := os.Create(*out)
	if err != nil {
		panic(err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		panic(err)
	}
	pkgs := []string{"fmt", "strconv", "bufio", "bytes", "strings", "encoding/json", "net/url", "text/template", "regexp/syntax", "sort"}
	re := regexp.MustCompile(` + "`func \\(?\\w*\\s*\\*?(\\w+)\\)?\\s*(\\w+)\\(`" + `)
	end := time.Now().Add(*dur)
	for i := 0; time.Now().Before(end); i++ {
		pkg := pkgs[i%len(pkgs)]
		fset := token.NewFileSet()
		files, _ := filepath.Glob(filepath.Join(runtime.GOROOT(), "src", pkg, "*.go"))
		var asts []*ast.File
		var src bytes.Buffer
		for _, fn := range files {
			if strings.HasSuffix(fn, "_test.go") {
				continue
			}
			af, err := parser.ParseFile(fset, fn, nil, parser.ParseComments)
			if err != nil {
				continue
			}
			asts = append(asts, af)
			format.Node(&src, fset, af)
		}
		conf := types.Config{Importer: importer.ForCompiler(fset, "source", nil), Error: func(error) {}}
		conf.Check(pkg, fset, asts, &types.Info{Types: map[ast.Expr]types.TypeAndValue{}, Uses: map[*ast.Ident]types.Object{}})
		var z bytes.Buffer
		w, _ := flate.NewWriter(&z, 6)
		w.Write(src.Bytes())
		w.Close()
		names := map[string]int{}
		for _, m := range re.FindAllSubmatch(src.Bytes(), -1) {
			names[string(m[2])]++
		}
		keys := make([]string, 0, len(names))
		for k := range names {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b, _ := json.Marshal(names)
		var back map[string]int
		json.Unmarshal(b, &back)
	}
	pprof.StopCPUProfile()
	f.Close()
}
`

// traceInputs makes (once) traceRuns CPU profiles of traceProgram.
func traceInputs(ctx context.Context, cache string) ([]string, error) {
	var files []string
	for i := range traceRuns {
		files = append(files, filepath.Join(cache, fmt.Sprintf("cpu-%d.pprof", i+1)))
	}
	if allExist(files) {
		return files, nil
	}
	dir := filepath.Join(cache, "prog")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module histbenchprog\n\ngo 1.22\n"), 0o644); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(traceProgram), 0o644); err != nil {
		return nil, err
	}
	if _, err := goCmd(ctx, dir, "build", "-o", "prog", "."); err != nil {
		return nil, err
	}
	for _, f := range files {
		cmd := exec.CommandContext(ctx, filepath.Join(dir, "prog"), "-cpuprofile", f, "-d", traceSeconds)
		if out, err := cmd.CombinedOutput(); err != nil {
			return nil, fmt.Errorf("the trace program: %w\n%s", err, out)
		}
	}
	return files, nil
}

func allExist(files []string) bool {
	for _, f := range files {
		if _, err := os.Stat(f); err != nil {
			return false
		}
	}
	return true
}

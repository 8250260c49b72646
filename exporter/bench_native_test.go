package exporter_test

// Two more paths of BenchmarkExport:
//
//	(n)    native  the database's own command-line client loading the same
//	               rows from a CSV file, as a user would without profdb:
//	               psql's \copy, mariadb's LOAD DATA LOCAL INFILE, sqlite3's
//	               .import. The table is created first, without its
//	               indexes; the rows load in one transaction; the two
//	               indexes are built after the load. The CSV file is written
//	               before the clock starts.
//	(copy)         profdb copy of the same rows from another database (the
//	               source is filled by resultset.Export before the clock
//	               starts): SQLite to PostgreSQL, PostgreSQL to MySQL, MySQL
//	               to SQLite.

import (
	"bufio"
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/profdb/profdb/ddl"
	"github.com/profdb/profdb/dialects"
	"github.com/profdb/profdb/exporter"
	"github.com/profdb/profdb/internal/dbtest"
	"github.com/profdb/profdb/internal/launchtest"
	"github.com/profdb/profdb/profilers"
	"github.com/profdb/profdb/profilers/functiontrace"
	"github.com/profdb/profdb/resultset"
	"github.com/profdb/profdb/store"
)

// copySource is the database each target's copy path reads from.
var copySource = map[string]string{"postgres": "sqlite", "mysql": "postgres", "sqlite": "mysql"}

// nativeClients are the command-line clients of the native path.
var nativeClients = map[string]string{"postgres": "psql", "mysql": "mariadb", "sqlite": "sqlite3"}

// callTraceTable is the documented CALL_TRACE table.
func callTraceTable() ddl.Table {
	def := profilers.MustLookup(functiontrace.Name)
	t, _ := def.Table(functiontrace.CallTrace)
	return t
}

// writeBenchCSV writes the benchmark's n CALL_TRACE rows as CSV, the
// columns in the table's order (INST_ID 1), as sqlite3's .import needs.
func writeBenchCSV(path string, n int) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	table := callTraceTable()
	pos := make([]int, len(table.Columns)) // index into callTraceRow's row; -1 for INST_ID
	for i, c := range table.Columns {
		pos[i] = -1
		for j, name := range callTraceColumns {
			if name == c.Name {
				pos[i] = j
			}
		}
	}
	row := make([]any, len(callTraceColumns))
	var b []byte
	for i := range int64(n) {
		callTraceRow(i, row)
		b = b[:0]
		for k, j := range pos {
			if k > 0 {
				b = append(b, ',')
			}
			if j < 0 {
				b = append(b, '1')
			} else {
				b = strconv.AppendInt(b, row[j].(int64), 10)
			}
		}
		b = append(b, '\n')
		w.Write(b)
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// nativeScript returns the client, its arguments and the script (given on
// standard input) that load csv into a fresh namespace dsn.
func nativeScript(dialect, dsn, csv string) (string, []string, string, error) {
	d, err := dialects.ForDSN(dsn)
	if err != nil {
		return "", nil, "", err
	}
	table := callTraceTable()
	name := d.StoredName(table.Name)
	var cols []string
	for _, c := range table.Columns {
		cols = append(cols, d.Quote(d.StoredName(c.Name)))
	}
	// The table without its indexes, and the indexes.
	var create string
	var indexes []string
	switch dialect {
	case "mysql":
		var defs []string
		for _, c := range table.Columns {
			def := d.Quote(c.Name) + " " + d.ColumnType(c.Type)
			if c.NotNull {
				def += " NOT NULL"
			}
			defs = append(defs, def)
		}
		create = "CREATE TABLE " + d.Quote(name) + " (" + strings.Join(defs, ", ") + ") ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;"
		for _, ix := range table.Indexes() {
			var ic []string
			for _, c := range ix.Columns {
				ic = append(ic, d.Quote(c))
			}
			indexes = append(indexes, "CREATE INDEX "+d.Quote(ix.Name)+" ON "+d.Quote(name)+" ("+strings.Join(ic, ", ")+");")
		}
	default:
		stmts := d.CreateTableIn("", table)
		create = stmts[0] + ";"
		for _, s := range stmts[1:] {
			indexes = append(indexes, s+";")
		}
	}
	u, err := url.Parse(dsn)
	if err != nil {
		return "", nil, "", err
	}
	switch dialect {
	case "postgres":
		q := u.Query()
		schema := q.Get("search_path")
		q.Del("search_path")
		u.RawQuery = q.Encode()
		u.Scheme = "postgresql"
		script := fmt.Sprintf("SET search_path TO %s;\n%s\n\\copy %s (%s) FROM '%s' WITH (FORMAT csv)\n%s\n",
			d.Quote(schema), create, d.Quote(name), strings.Join(cols, ", "), csv, strings.Join(indexes, "\n"))
		return "psql", []string{"-X", "-q", "-v", "ON_ERROR_STOP=1", "--single-transaction", "-d", u.String()}, script, nil
	case "mysql":
		args := []string{"--local-infile=1", "-h", u.Hostname(), "-u", u.User.Username()}
		if p := u.Port(); p != "" {
			args = append(args, "-P", p)
		}
		if pw, ok := u.User.Password(); ok {
			args = append(args, "-p"+pw)
		}
		args = append(args, strings.TrimPrefix(u.Path, "/"))
		// DDL commits on MySQL: the table, then the rows in one
		// transaction, then the indexes.
		script := fmt.Sprintf("%s\nSTART TRANSACTION;\nLOAD DATA LOCAL INFILE '%s' INTO TABLE %s FIELDS TERMINATED BY ',' LINES TERMINATED BY '\\n' (%s);\nCOMMIT;\n%s\n",
			create, csv, d.Quote(name), strings.Join(cols, ", "), strings.Join(indexes, "\n"))
		return "mariadb", args, script, nil
	case "sqlite":
		file := strings.TrimPrefix(strings.TrimPrefix(dsn, "sqlite:"), "//")
		file, _, _ = strings.Cut(file, "?")
		script := fmt.Sprintf("BEGIN;\n%s\n.import --csv %s %s\n%s\nCOMMIT;\n", create, csv, name, strings.Join(indexes, "\n"))
		return "sqlite3", []string{"-bail", file}, script, nil
	}
	return "", nil, "", fmt.Errorf("no native client for %s", dialect)
}

// benchNative runs (n): the native client loads csv into a fresh
// namespace. ok is false, with a note, when the client is not installed.
func benchNative(b *testing.B, dialect, csv string, n int) (benchResult, bool) {
	b.Helper()
	client := nativeClients[dialect]
	if _, err := exec.LookPath(client); err != nil {
		return benchResult{note: client + " is not installed (apt-get install postgresql-client mariadb-client sqlite3)"}, false
	}
	s := scope(b)
	defer s.end()
	dsn := dbtest.Fresh(s, dialect)
	name, args, script, err := nativeScript(dialect, dsn, csv)
	if err != nil {
		b.Fatal(err)
	}
	settle(s, dsn)
	cmd := exec.Command(name, args...)
	cmd.Stdin = strings.NewReader(script)
	start := time.Now()
	out, err := cmd.CombinedOutput()
	elapsed := time.Since(start)
	if err != nil {
		b.Fatalf("%s: %v\n%s", name, err, out)
	}
	checkCount(s, dsn, n)
	notes := map[string]string{"postgres": `psql \copy (CSV)`, "mysql": "mariadb LOAD DATA (CSV)", "sqlite": "sqlite3 .import (CSV)"}
	return benchResult{rows: int64(n), elapsed: elapsed, note: notes[dialect] + ", indexes after"}, true
}

// copySourceDSN fills a fresh namespace of dialect with the benchmark's
// result set of n rows (resultset.Export, untimed) and returns its DSN. It
// is dropped when b ends.
func copySourceDSN(b *testing.B, dialect string, n int) string {
	b.Helper()
	dsn := dbtest.Fresh(b, dialect)
	ctx := context.Background()
	db, err := exporter.Open(ctx, dsn, store.Options{}, exporter.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	if _, err := resultset.Export(ctx, db, benchSet(n)); err != nil {
		b.Fatalf("fill the copy source on %s: %v", dialect, err)
	}
	return dsn
}

// benchCopy runs (copy): profdb copy from src into a fresh namespace of
// dialect.
func benchCopy(b *testing.B, bin, dialect, src, from string, n int) benchResult {
	b.Helper()
	s := scope(b)
	defer s.end()
	dsn := dbtest.Fresh(s, dialect)
	settle(s, dsn)
	r := launchtest.Measure(b, nil, bin, "copy", "--quiet", "--from", src, "--to", dsn)
	if r.Err != "" {
		b.Fatalf("profdb copy: %s\n%s%s", r.Err, r.Stdout, r.Stderr)
	}
	checkCount(s, dsn, n)
	return benchResult{rows: int64(n) + 1, elapsed: r.Elapsed, maxRSS: r.MaxRSS, note: "profdb copy from " + from}
}

// benchCSV is the CSV file of the native path, written once.
func benchCSV(b *testing.B, dir string, n int) string {
	path := filepath.Join(dir, fmt.Sprintf("calls-%d.csv", n))
	if _, err := os.Stat(path); err == nil {
		return path
	}
	if err := writeBenchCSV(path, n); err != nil {
		b.Fatal(err)
	}
	return path
}

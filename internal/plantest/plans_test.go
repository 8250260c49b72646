package plantest_test

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/profdb/profdb/compare"
	"github.com/profdb/profdb/dialects"
	_ "github.com/profdb/profdb/dialects/mysql"
	_ "github.com/profdb/profdb/dialects/postgres"
	_ "github.com/profdb/profdb/dialects/sqlite"
	"github.com/profdb/profdb/exporter"
	"github.com/profdb/profdb/gate"
	"github.com/profdb/profdb/input"
	_ "github.com/profdb/profdb/input/interchange"
	"github.com/profdb/profdb/internal/dbtest"
	"github.com/profdb/profdb/internal/exampletest"
	"github.com/profdb/profdb/internal/plantest"
	"github.com/profdb/profdb/merge"
	"github.com/profdb/profdb/profilers"
	"github.com/profdb/profdb/profilers/functiontrace"
	"github.com/profdb/profdb/profilers/lightcoverage"
	"github.com/profdb/profdb/readback"
	"github.com/profdb/profdb/report"
	"github.com/profdb/profdb/store"
)

// copies is how many times the test database holds the examples over: the
// result sets read are a few among many, so that reading every row of a
// table would cost the planner more than its index.
const copies = 64

// TestOneSetStatementsUseTheirIndex runs, on a database holding many result
// sets, what every command that works on one or a few of them runs (export,
// show, compare, check, report, verify and copy of some INST_IDs, merge,
// delete and its dry run), records every statement, and holds each one that
// names an INST_ID to these (docs/performance.md, "Indexes: what each one
// serves"):
//
//   - its text joins no table on another table's INST_ID column, nor reads
//     an INST_ID IN list in a join (plantest.Shape): each table of a join
//     is bound to the INST_ID parameter, so that its lookups use both
//     columns of the index (MariaDB read every line of a result set once
//     per routine otherwise);
//   - its plan reads no profdb table in full, and each through an index
//     whose first column is INST_ID (or the primary key), bounded by it;
//   - on MySQL, no lookup inside a join binds INST_ID alone to another
//     table's column.
//
// PostgreSQL plans with sequential scans disabled: the test asks whether
// an index can drive each read, not whether the planner's statistics
// favour it (with a few hundred rows a table they do not).
func TestOneSetStatementsUseTheirIndex(t *testing.T) {
	for _, dn := range dbtest.Dialects("sqlserver") {
		t.Run(dn, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			dsn := dbtest.Fresh(t, dn)
			sqldb, d, rec := plantest.Open(t, dsn, plantest.Options{})
			db := store.New(sqldb, d, store.Options{})
			// Batched INSERT: PostgreSQL's COPY needs the driver's own
			// connection, which the recording hides.
			x := exporter.New(db, exporter.Options{Bulk: exporter.BulkOff})

			// Two of each example, then many more result sets.
			a := exportExamples(ctx, t, x)
			b := exportExamples(ctx, t, x)
			exported := rec.Take()
			replicate(ctx, t, sqldb, d, copies)
			rec.Take()

			var ids []int64
			for _, name := range exampletest.Names {
				ids = append(ids, a[name], b[name])
			}
			runCommands(ctx, t, db, x, a, b, ids)
			stmts := append(exported, rec.Take()...)

			conn := explainConn(ctx, t, sqldb, d)
			defer conn.Close()
			known, err := plantest.ResultSetTables(ctx, conn, d)
			if err != nil {
				t.Fatal(err)
			}
			checked := 0
			seen := map[string]bool{}
			for _, st := range stmts {
				if seen[st.Query] || !oneSet(st.Query, known) {
					continue
				}
				seen[st.Query] = true
				checked++
				for _, bad := range plantest.Shape(st.Query) {
					t.Errorf("%s\n  joins by INST_ID alone: %s", oneLine(st.Query), bad)
				}
				plan, err := plantest.Explain(ctx, conn, d.Name(), st.Query, st.Args)
				if err != nil {
					t.Error(err)
					continue
				}
				for _, sc := range plan.Scans {
					if !known[strings.ToUpper(sc.Table)] {
						continue // a derived table
					}
					switch {
					case sc.Full:
						t.Errorf("%s\n  reads all of %s: %s", oneLine(st.Query), sc.Table, sc)
					case !sc.ByInstID():
						t.Errorf("%s\n  reads %s not by INST_ID: %s", oneLine(st.Query), sc.Table, sc)
					case len(sc.Columns) == 1 && slices.ContainsFunc(sc.Refs, func(r string) bool { return r != "const" }):
						t.Errorf("%s\n  looks %s up by INST_ID alone inside a join: %s", oneLine(st.Query), sc.Table, sc)
					}
				}
			}
			// Each command ran statements of its own; far fewer would
			// mean that the recording missed them.
			t.Logf("%d statements checked", checked)
			if checked < 60 {
				t.Errorf("%d statements checked, want the 60 and more the commands run", checked)
			}
		})
	}
}

// exportExamples exports every example through x; it returns each one's
// INST_ID by name.
func exportExamples(ctx context.Context, t *testing.T, x *exporter.Exporter) map[string]int64 {
	t.Helper()
	ids := map[string]int64{}
	for _, name := range exampletest.Names {
		f, err := os.Open(filepath.Join("..", "..", "examples", name+".json"))
		if err != nil {
			t.Fatal(err)
		}
		res, err := input.Read(ctx, "", f, name, x, input.Options{})
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		ids[name] = res[0].InstID
	}
	return ids
}

// replicate copies every result set of every table over and over, with new
// INST_IDs (and RELATIONS IDs), by INSERT … SELECT, until the database
// holds n times as many, and brings the planner's statistics up to date.
func replicate(ctx context.Context, t *testing.T, q *sql.DB, d dialects.Dialect, n int) {
	t.Helper()
	tables, err := d.Tables(ctx, q, "")
	if err != nil {
		t.Fatal(err)
	}
	instCol, idCol := d.Quote(d.StoredName("INST_ID")), d.Quote(d.StoredName("ID"))
	largest := func(col, table string) int64 {
		var v int64
		if err := q.QueryRowContext(ctx, "SELECT MAX("+col+") FROM "+dialects.Qualify(d, "", d.StoredName(table))).Scan(&v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	first := largest(instCol, profilers.InstancesTable)
	for held := first; held < first*int64(n); held *= 2 {
		rels := largest(idCol, profilers.RelationsTable)
		for _, tb := range tables {
			cols, err := d.Columns(ctx, q, "", tb)
			if err != nil {
				t.Fatal(err)
			}
			var names, exprs []string
			for _, c := range cols {
				if strings.EqualFold(c.Name, dialects.RowKeyColumn) {
					continue
				}
				name := d.Quote(c.Name)
				names = append(names, name)
				switch {
				case strings.EqualFold(c.Name, "INST_ID"):
					exprs = append(exprs, name+" + "+strconv.FormatInt(held, 10))
				case strings.EqualFold(c.Name, "ID") && strings.EqualFold(tb, profilers.RelationsTable):
					exprs = append(exprs, name+" + "+strconv.FormatInt(rels, 10))
				default:
					exprs = append(exprs, name)
				}
			}
			stmt := fmt.Sprintf("INSERT INTO %s (%s) SELECT %s FROM %s", dialects.Qualify(d, "", tb),
				strings.Join(names, ", "), strings.Join(exprs, ", "), dialects.Qualify(d, "", tb))
			if _, err := q.ExecContext(ctx, stmt); err != nil {
				t.Fatalf("%s: %v", stmt, err)
			}
		}
	}
	for _, tb := range tables {
		var stmt string
		switch d.Name() {
		case "postgres":
			stmt = "ANALYZE " + dialects.Qualify(d, "", tb)
		case "mysql":
			stmt = "ANALYZE TABLE " + dialects.Qualify(d, "", tb)
		default:
			continue
		}
		rows, err := q.QueryContext(ctx, stmt) // MySQL answers with rows
		if err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
		rows.Close()
	}
}

// runCommands runs, through db, what the commands working on one or a few
// result sets run: a and b are two copies of the examples, ids all of them.
func runCommands(ctx context.Context, t *testing.T, db *store.DB, x *exporter.Exporter, a, b map[string]int64, ids []int64) {
	t.Helper()
	read(ctx, t, db, a, b)
	for _, id := range ids {
		if f, err := db.Verify(ctx, id); err != nil || len(f) > 0 {
			t.Fatalf("verify %d: %v %v", id, f, err)
		}
		rs, err := db.Read(ctx, id)
		if err != nil {
			t.Fatalf("read %d: %v", id, err)
		}
		for _, tr := range rs.Tables {
			for _, err := range tr.Rows {
				if err != nil {
					t.Fatalf("read %d: %s: %v", id, tr.Name, err)
				}
			}
		}
	}
	picked, _, err := db.Named(ctx, store.Selection{IDs: ids[:3], Ranges: []store.Range{{From: ids[0], To: ids[0] + 2}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.ListOf(ctx, picked); err != nil {
		t.Fatal(err)
	}
	var merged []int64
	for _, name := range exampletest.Names {
		res, err := merge.Merge(ctx, db, []int64{a[name], b[name]}, merge.Sum, "merged", x)
		if err != nil {
			t.Fatalf("merge %s: %v", name, err)
		}
		merged = append(merged, res.InstID)
	}
	if _, err := db.ListOf(ctx, merged); err != nil {
		t.Fatal(err)
	}
	if _, err := db.DeleteAll(ctx, merged); err != nil {
		t.Fatal(err)
	}
}

// read runs what show, compare, check, report and trend read, in one
// snapshot.
func read(ctx context.Context, t *testing.T, db *store.DB, a, b map[string]int64) {
	t.Helper()
	r, err := readback.Begin(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for _, name := range exampletest.Names {
		if _, err := r.Summarize(ctx, a[name], readback.Options{Top: 5}); err != nil {
			t.Fatalf("show %s: %v", name, err)
		}
		if _, err := compare.Compare(ctx, r, a[name], b[name], compare.Options{}); err != nil {
			t.Fatalf("compare %s: %v", name, err)
		}
		// trend reads each run's headline figures.
		in, err := r.Instance(ctx, a[name])
		if err != nil {
			t.Fatal(err)
		}
		if _, err := r.Figures(ctx, in); err != nil {
			t.Fatalf("figures of %s: %v", name, err)
		}
	}
	drop, grow := 1.0, 5.0
	cov, trace := lightcoverage.Name, functiontrace.Name // the examples are named after their profilers
	if _, err := gate.Check(ctx, r, b[cov], gate.Options{Baseline: a[cov], MaxDrop: &drop, MinCoverage: &drop}); err != nil {
		t.Fatalf("check coverage: %v", err)
	}
	if _, err := gate.Check(ctx, r, b[trace], gate.Options{Baseline: a[trace], MaxTimeIncrease: &grow}); err != nil {
		t.Fatalf("check time: %v", err)
	}
	var some []int64
	for _, name := range exampletest.Names {
		some = append(some, a[name])
	}
	if err := report.Write(ctx, r, io.Discard, report.Options{Inst: some}); err != nil {
		t.Fatalf("report: %v", err)
	}
	if err := report.Write(ctx, r, io.Discard, report.Options{Compare: []int64{a[cov], b[cov]}}); err != nil {
		t.Fatalf("report --compare: %v", err)
	}
}

// explainConn is a connection to explain statements on: on PostgreSQL one
// that plans no sequential scan where an index can serve.
func explainConn(ctx context.Context, t *testing.T, q *sql.DB, d dialects.Dialect) *sql.Conn {
	t.Helper()
	conn, err := q.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if d.Name() == "postgres" {
		if _, err := conn.ExecContext(ctx, "SET enable_seqscan = off"); err != nil {
			t.Fatal(err)
		}
	}
	return conn
}

// oneSet reports whether a statement reads or deletes rows of profdb's
// tables by INST_ID: a SELECT, DELETE or UPDATE naming one of them and
// comparing an INST_ID.
func oneSet(query string, known map[string]bool) bool {
	q := strings.ToUpper(strings.TrimSpace(query))
	if !strings.HasPrefix(q, "SELECT") && !strings.HasPrefix(q, "DELETE") && !strings.HasPrefix(q, "UPDATE") {
		return false
	}
	names := false
	for _, tb := range plantest.Aliases(query) {
		names = names || known[strings.ToUpper(tb)]
	}
	cond := strings.NewReplacer(`"`, "", "`", "", "[", "", "]", "").Replace(q)
	return names && (strings.Contains(cond, "INST_ID =") || strings.Contains(cond, "INST_ID IN"))
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}

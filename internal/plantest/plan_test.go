package plantest

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// myLeftJoin is the statement of the MariaDB plans of a nested loop: the
// lines of each routine of set 5, through L_P on (INST_ID, PARENT_ID) or,
// without it, L_ID on (INST_ID, ID).
const myLeftJoin = "SELECT r.NAME, COUNT(l.ID) FROM `R` r LEFT JOIN `L` l ON l.INST_ID = 5 AND l.PARENT_ID = r.ID WHERE r.INST_ID = 5 GROUP BY r.NAME"

// TestReadPlan reads plans the servers gave (testdata: PostgreSQL 15,
// MariaDB 10.11, SQLite 3 of modernc.org/sqlite) into their scans, JIT and
// workers. A nested loop's inner scan bounded by INST_ID alone is read per
// row; one bounded by the outer side's key too is not, nor, on MariaDB, one
// through a hash join's buffer or one after a table of one row. A table
// the plan names by its alias is named by the table the statement gives
// it.
func TestReadPlan(t *testing.T) {
	for _, c := range []struct {
		file, dialect, query string
		scans                []Scan
		jit                  bool
		workers              int
	}{
		{file: "pg-seqscan-parallel-jit.json", dialect: "postgres", query: "SELECT count(*) FROM ct WHERE a > 5",
			scans: []Scan{{Table: "ct", Method: "Seq Scan", Full: true, Rows: 416260}}, jit: true, workers: 2},
		{file: "pg-bitmap-antijoin.json", dialect: "postgres",
			query: "SELECT c.id FROM ct c WHERE c.inst_id = 1 AND NOT EXISTS (SELECT 1 FROM ct p WHERE p.inst_id = c.inst_id AND p.id = c.parent_id)",
			scans: []Scan{
				{Table: "ct", Alias: "c", Method: "Bitmap Heap Scan", Index: "ct_id", Columns: []string{"inst_id"}, Cond: "(inst_id = 1)", Rows: 1000025},
				{Table: "ct", Alias: "p", Method: "Index Only Scan", Index: "ct_id", Columns: []string{"inst_id"}, Cond: "(inst_id = 1)", Rows: 1000025},
			}, jit: true},
		{file: "pg-max.json", dialect: "postgres", query: "SELECT MAX(inst_id) FROM ct",
			scans: []Scan{{Table: "ct", Method: "Index Only Scan", Index: "ct_p", Cond: "(inst_id IS NOT NULL)", Rows: 1000025}}}, // bounds nothing, stopped by a Limit
		{file: "pg-index.json", dialect: "postgres", query: "SELECT * FROM ct WHERE inst_id = 1 AND id BETWEEN 5 AND 10",
			scans: []Scan{{Table: "ct", Method: "Index Scan", Index: "ct_id", Columns: []string{"inst_id", "id"}, Cond: "((inst_id = 1) AND (id >= 5) AND (id <= 10))", Rows: 1}}},
		{file: "pg-limit-filter.json", dialect: "postgres", query: "SELECT id FROM ct WHERE a = 5 ORDER BY inst_id LIMIT 1",
			scans: []Scan{{Table: "ct", Method: "Index Scan", Index: "ct_p", Full: true, Rows: 25}}}, // the filter reads on past the first entry
		{file: "pg-nestloop-per-row.json", dialect: "postgres",
			query: `SELECT rd."col_module_name" AS name, COUNT(l."id") AS total FROM "light_coverage_profiler_routines_data" rd LEFT JOIN "light_coverage_profiler_lines" l ON l."inst_id" = $1 AND l."parent_id" = rd."id" WHERE rd."inst_id" = $2 GROUP BY 1`,
			scans: []Scan{
				{Table: "light_coverage_profiler_routines_data", Alias: "rd", Method: "Index Scan", Index: "ix_light_coverage_profiler_routines_data_id", Columns: []string{"inst_id"}, Cond: "(inst_id = '764'::bigint)", Rows: 1},
				{Table: "light_coverage_profiler_lines", Alias: "l", Method: "Index Scan", Index: "ix_light_coverage_profiler_lines_parent", Columns: []string{"inst_id"}, Cond: "(inst_id = '764'::bigint)", Rows: 1, PerRow: true},
			}},
		{file: "pg-nestloop-param.json", dialect: "postgres",
			query: "SELECT r.name, COUNT(*) FROM pl_r r JOIN pl_l l ON l.inst_id = 5 AND l.parent_id = r.id WHERE r.inst_id = 5 AND r.id < 3 GROUP BY r.name",
			scans: []Scan{
				{Table: "pl_r", Alias: "r", Method: "Index Scan", Index: "pl_r_id", Columns: []string{"inst_id", "id"}, Cond: "((inst_id = 5) AND (id < 3))", Rows: 3},
				{Table: "pl_l", Alias: "l", Method: "Index Only Scan", Index: "pl_l_p", Columns: []string{"inst_id", "parent_id"}, Cond: "((inst_id = 5) AND (parent_id = r.id))", Rows: 10},
			}},
		{file: "my-ref-join.json", dialect: "mysql",
			query: "SELECT c.ID FROM `C` c JOIN `P` p ON p.INST_ID = c.INST_ID AND p.ID = c.PARENT_ID WHERE c.INST_ID = 3",
			scans: []Scan{
				{Table: "P", Alias: "p", Method: "ref", Index: "P_ID", Columns: []string{"INST_ID"}, Refs: []string{"const"}, Rows: 43},
				{Table: "C", Alias: "c", Method: "ref", Index: "C_P", Columns: []string{"INST_ID", "PARENT_ID"}, Refs: []string{"const", "plans_exp4.p.ID"}, Rows: 1},
			}},
		{file: "my-nestloop-per-row.json", dialect: "mysql", query: myLeftJoin,
			scans: []Scan{
				{Table: "R", Alias: "r", Method: "ref", Index: "R_ID", Columns: []string{"INST_ID"}, Refs: []string{"const"}, Rows: 30},
				{Table: "L", Alias: "l", Method: "ref", Index: "L_ID", Columns: []string{"INST_ID"}, Refs: []string{"const"}, Rows: 300, PerRow: true},
			}},
		{file: "my-nestloop-param.json", dialect: "mysql", query: myLeftJoin,
			scans: []Scan{
				{Table: "R", Alias: "r", Method: "ref", Index: "R_ID", Columns: []string{"INST_ID"}, Refs: []string{"const"}, Rows: 30},
				{Table: "L", Alias: "l", Method: "ref", Index: "L_P", Columns: []string{"INST_ID", "PARENT_ID"}, Refs: []string{"const", "myperrow_scratch.r.ID"}, Rows: 4},
			}},
		{file: "my-nestloop-hash.json", dialect: "mysql", query: myLeftJoin, // join_cache_level=4: a hash join reads l once
			scans: []Scan{
				{Table: "R", Alias: "r", Method: "ref", Index: "R_ID", Columns: []string{"INST_ID"}, Refs: []string{"const"}, Rows: 30},
				{Table: "L", Alias: "l", Method: "hash_range", Index: "#hash#L_ID:L_ID", Columns: []string{"INST_ID"}, Refs: []string{"const"}, Rows: 300},
			}},
		{file: "my-nestloop-bkah.json", dialect: "mysql", query: myLeftJoin, // join_cache_level=8: batched lookups of one key, hashed
			scans: []Scan{
				{Table: "R", Alias: "r", Method: "ref", Index: "R_ID", Columns: []string{"INST_ID"}, Refs: []string{"const"}, Rows: 30},
				{Table: "L", Alias: "l", Method: "ref", Index: "L_ID", Columns: []string{"INST_ID"}, Refs: []string{"const"}, Rows: 300},
			}},
		{file: "my-const-first.json", dialect: "mysql", query: "SELECT i.CAPTION, l.ID FROM `I` i JOIN `L` l ON l.INST_ID = 5 WHERE i.INST_ID = 5",
			scans: []Scan{ // i is one row, read before the join
				{Table: "I", Alias: "i", Method: "const", Index: "PRIMARY", Columns: []string{"INST_ID"}, Refs: []string{"const"}, Rows: 1},
				{Table: "L", Alias: "l", Method: "ref", Index: "L_ID", Columns: []string{"INST_ID"}, Refs: []string{"const"}, Rows: 300},
			}},
		{file: "my-full.json", dialect: "mysql", query: "SELECT COUNT(*) FROM `C` WHERE PARENT_ID = 5",
			scans: []Scan{{Table: "C", Method: "index", Index: "C_P", Full: true, Rows: 2000}}},
		{file: "my-notexists.json", dialect: "mysql",
			query: "SELECT c.ID FROM `C` AS c WHERE c.INST_ID = 2 AND NOT EXISTS (SELECT 1 FROM `P` p WHERE p.INST_ID = c.INST_ID AND p.ID = c.PARENT_ID) ORDER BY 1",
			scans: []Scan{
				{Table: "C", Alias: "c", Method: "ref", Index: "C_ID", Columns: []string{"INST_ID"}, Refs: []string{"const"}, Rows: 286},
				{Table: "P", Alias: "p", Method: "index", Index: "P_ID", Full: true, Rows: 300},
			}},
		{file: "sqlite-join.txt", dialect: "sqlite",
			query: `SELECT rd."NAME", COUNT(l."ID") FROM "R" rd LEFT JOIN "L" l ON l."INST_ID" = ? AND l."PARENT_ID" = rd."ID" WHERE rd."INST_ID" = ? GROUP BY rd."NAME"`,
			scans: []Scan{
				{Table: "R", Alias: "rd", Method: "SEARCH", Index: "IX_R_ID", Columns: []string{"INST_ID"}, Cond: "INST_ID=?"},
				{Table: "L", Alias: "l", Method: "SEARCH", Index: "IX_L_PARENT", Columns: []string{"INST_ID", "PARENT_ID"}, Cond: "INST_ID=? AND PARENT_ID=?"},
			}},
		{file: "sqlite-range-notexists.txt", dialect: "sqlite",
			query: `SELECT c."ID" FROM "L" c WHERE c."INST_ID" = ? AND c."ID" > ? AND c."ID" < ? AND NOT EXISTS (SELECT 1 FROM "R" p WHERE p."INST_ID" = c."INST_ID" AND p."ID" = c."PARENT_ID")`,
			scans: []Scan{
				{Table: "L", Alias: "c", Method: "SEARCH", Index: "IX_L_ID", Columns: []string{"INST_ID", "ID"}, Cond: "INST_ID=? AND ID>? AND ID<?"},
				{Table: "R", Alias: "p", Method: "SEARCH", Index: "IX_R_ID", Columns: []string{"INST_ID", "ID"}, Cond: "INST_ID=? AND ID=?"},
			}},
		{file: "sqlite-rowid.txt", dialect: "sqlite", query: `SELECT "CAPTION" FROM "INSTANCES" WHERE "INST_ID" = ?`,
			scans: []Scan{{Table: "INSTANCES", Method: "SEARCH", Index: "PRIMARY KEY", Columns: []string{"rowid"}, Cond: "rowid=?"}}},
		{file: "sqlite-scan.txt", dialect: "sqlite", query: `SELECT COUNT(*) FROM "L" WHERE "HITS" > 5`,
			scans: []Scan{{Table: "L", Method: "SCAN", Full: true}}},
		{file: "sqlite-covering.txt", dialect: "sqlite", query: `SELECT DISTINCT "INST_ID" FROM "L"`,
			scans: []Scan{{Table: "L", Method: "SCAN", Index: "IX_L_PARENT", Full: true}}},
		{file: "sqlite-join-scan.txt", dialect: "sqlite", query: `SELECT r."NAME" FROM "R" r JOIN "L" l ON l."HITS" = r."ID" WHERE r."INST_ID" = ?`,
			scans: []Scan{
				{Table: "R", Alias: "r", Method: "SEARCH", Index: "IX_R_ID", Columns: []string{"INST_ID"}, Cond: "INST_ID=?"},
				{Table: "L", Alias: "l", Method: "SCAN", Full: true},
			}},
		{file: "sqlite-automatic.txt", dialect: "sqlite", query: `SELECT r."NAME", l."HITS" FROM "R" r JOIN "L" l ON l."PARENT_ID" = r."ID"`,
			scans: []Scan{ // an index SQLite builds for the statement reads the whole table first
				{Table: "R", Alias: "r", Method: "SCAN", Full: true},
				{Table: "L", Alias: "l", Method: "SEARCH", Index: "AUTOMATIC COVERING INDEX", Cond: "PARENT_ID=?", Full: true},
			}},
	} {
		t.Run(c.file, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join("testdata", c.file))
			if err != nil {
				t.Fatal(err)
			}
			p, err := ReadPlan(c.dialect, c.query, string(b))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(p.Scans, c.scans) {
				t.Errorf("scans\n%+v\nwant\n%+v", p.Scans, c.scans)
			}
			if p.JIT != c.jit || p.Workers != c.workers {
				t.Errorf("JIT %v, %d workers; want %v, %d", p.JIT, p.Workers, c.jit, c.workers)
			}
		})
	}
}

// TestReadPlanRefuses a plan that is not JSON, and a dialect without one.
func TestReadPlanRefuses(t *testing.T) {
	for _, c := range []struct{ dialect, plan string }{
		{"postgres", "Seq Scan on ct"},
		{"mysql", "{"},
		{"sqlserver", "[]"},
	} {
		if _, err := ReadPlan(c.dialect, "SELECT 1", c.plan); err == nil {
			t.Errorf("ReadPlan(%s, %q) read it", c.dialect, c.plan)
		}
	}
}

// TestByInstID: what counts as a read by INST_ID in both plan tests.
func TestByInstID(t *testing.T) {
	for _, c := range []struct {
		scan Scan
		want bool
	}{
		{Scan{Index: "lines_inst", Columns: []string{"inst_id", "parent_id"}}, true},
		{Scan{Index: "IX_LINES", Columns: []string{"INST_ID"}}, true},
		{Scan{Index: "relations_pkey"}, true}, // a probe: MAX(ID)
		{Scan{Index: "PRIMARY KEY", Columns: []string{"rowid"}}, true},
		{Scan{Index: "lines_parent", Columns: []string{"parent_id", "inst_id"}}, false},
		{Scan{Method: "Seq Scan", Full: true}, false},
		{Scan{Index: "lines_inst", Full: true}, false},
	} {
		if got := c.scan.ByInstID(); got != c.want {
			t.Errorf("%+v: ByInstID = %v, want %v", c.scan, got, c.want)
		}
	}
}

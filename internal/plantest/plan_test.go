package plantest

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// TestReadPlan reads plans the servers gave (testdata: PostgreSQL 15,
// MariaDB 10.11) into their scans, JIT and workers. A nested loop's inner
// scan bounded by INST_ID alone is read per row; one bounded by the outer
// side's key too is not.
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
				{Table: "ct", Method: "Bitmap Heap Scan", Index: "ct_id", Columns: []string{"inst_id"}, Rows: 1000025},
				{Table: "ct", Method: "Index Only Scan", Index: "ct_id", Columns: []string{"inst_id"}, Rows: 1000025},
			}, jit: true},
		{file: "pg-max.json", dialect: "postgres", query: "SELECT MAX(inst_id) FROM ct",
			scans: []Scan{{Table: "ct", Method: "Index Only Scan", Index: "ct_p", Rows: 1000025}}}, // (inst_id IS NOT NULL) bounds nothing
		{file: "pg-index.json", dialect: "postgres", query: "SELECT * FROM ct WHERE inst_id = 1 AND id BETWEEN 5 AND 10",
			scans: []Scan{{Table: "ct", Method: "Index Scan", Index: "ct_id", Columns: []string{"inst_id", "id"}, Rows: 1}}},
		{file: "pg-nestloop-per-row.json", dialect: "postgres",
			query: `SELECT rd."col_module_name" AS name, COUNT(l."id") AS total FROM "light_coverage_profiler_routines_data" rd LEFT JOIN "light_coverage_profiler_lines" l ON l."inst_id" = $1 AND l."parent_id" = rd."id" WHERE rd."inst_id" = $2 GROUP BY 1`,
			scans: []Scan{
				{Table: "light_coverage_profiler_routines_data", Method: "Index Scan", Index: "ix_light_coverage_profiler_routines_data_id", Columns: []string{"inst_id"}, Rows: 1},
				{Table: "light_coverage_profiler_lines", Method: "Index Scan", Index: "ix_light_coverage_profiler_lines_parent", Columns: []string{"inst_id"}, Rows: 1, PerRow: true},
			}},
		{file: "pg-nestloop-param.json", dialect: "postgres",
			query: "SELECT r.name, COUNT(*) FROM pl_r r JOIN pl_l l ON l.inst_id = 5 AND l.parent_id = r.id WHERE r.inst_id = 5 AND r.id < 3 GROUP BY r.name",
			scans: []Scan{
				{Table: "pl_r", Method: "Index Scan", Index: "pl_r_id", Columns: []string{"inst_id", "id"}, Rows: 3},
				{Table: "pl_l", Method: "Index Only Scan", Index: "pl_l_p", Columns: []string{"inst_id", "parent_id"}, Rows: 10},
			}},
		{file: "my-ref-join.json", dialect: "mysql",
			query: "SELECT c.ID FROM `C` c JOIN `P` p ON p.INST_ID = c.INST_ID AND p.ID = c.PARENT_ID WHERE c.INST_ID = 3",
			scans: []Scan{
				{Table: "P", Alias: "p", Method: "ref", Index: "P_ID", Columns: []string{"INST_ID"}, Rows: 43},
				{Table: "C", Alias: "c", Method: "ref", Index: "C_P", Columns: []string{"INST_ID", "PARENT_ID"}, Rows: 1},
			}},
		{file: "my-full.json", dialect: "mysql", query: "SELECT COUNT(*) FROM `C` WHERE PARENT_ID = 5",
			scans: []Scan{{Table: "C", Method: "index", Index: "C_P", Full: true, Rows: 2000}}},
		{file: "my-notexists.json", dialect: "mysql",
			query: "SELECT c.ID FROM `C` AS c WHERE c.INST_ID = 2 AND NOT EXISTS (SELECT 1 FROM `P` p WHERE p.INST_ID = c.INST_ID AND p.ID = c.PARENT_ID) ORDER BY 1",
			scans: []Scan{
				{Table: "C", Alias: "c", Method: "ref", Index: "C_ID", Columns: []string{"INST_ID"}, Rows: 286},
				{Table: "P", Alias: "p", Method: "index", Index: "P_ID", Full: true, Rows: 300},
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
		{"sqlite", "[]"},
	} {
		if _, err := ReadPlan(c.dialect, "SELECT 1", c.plan); err == nil {
			t.Errorf("ReadPlan(%s, %q) read it", c.dialect, c.plan)
		}
	}
}

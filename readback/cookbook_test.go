package readback_test

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/profdb/profdb/internal/dbtest"
	"github.com/profdb/profdb/internal/exampletest"
	"github.com/profdb/profdb/readback"
)

// cookbook returns the queries of docs/cookbook.md by name.
func cookbook(t *testing.T) map[string]string {
	t.Helper()
	b, err := os.ReadFile("../docs/cookbook.md")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, m := range regexp.MustCompile("(?s)```sql\n-- query: ([a-z-]+)\n(.*?)```").FindAllStringSubmatch(string(b), -1) {
		out[m[1]] = m[2]
	}
	return out
}

// rows runs a query and returns its rows as text.
func rows(t *testing.T, db *sql.DB, q string) [][]string {
	t.Helper()
	rs, err := db.QueryContext(context.Background(), q)
	if err != nil {
		t.Fatalf("%v\n%s", err, q)
	}
	defer rs.Close()
	cols, _ := rs.Columns()
	var out [][]string
	for rs.Next() {
		vals := make([]sql.NullString, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rs.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		row := make([]string, len(cols))
		for i, v := range vals {
			row[i] = v.String
		}
		out = append(out, row)
	}
	if err := rs.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func float(t *testing.T, s string) float64 {
	t.Helper()
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil {
		t.Fatalf("%q is not a number", s)
	}
	return f
}

func TestCookbookQueries(t *testing.T) {
	queries := cookbook(t)
	want := []string{"instances", "per-file-coverage", "per-file-stored", "uncovered-lines", "slowest-routines", "live-per-class", "objects-per-class"}
	for _, n := range want {
		if queries[n] == "" {
			t.Fatalf("docs/cookbook.md has no query %s", n)
		}
	}
	if len(queries) != len(want) {
		t.Fatalf("docs/cookbook.md has %d queries, the test checks %d: check the new ones", len(queries), len(want))
	}
	lc := loadExample(t, "light-coverage")
	ft := loadExample(t, "function-trace")
	rs := loadExample(t, "resource")
	for _, dn := range dialectNames {
		t.Run(dn, func(t *testing.T) {
			dsn := dbtest.Fresh(t, dn)
			ids, err := exampletest.Export(context.Background(), "..", dsn, "light-coverage", "function-trace", "resource")
			if err != nil {
				t.Fatal(err)
			}
			if ids["light-coverage"] != 1 || ids["function-trace"] != 2 || ids["resource"] != 3 {
				t.Fatalf("INST_IDs %v, the cookbook assumes 1, 2, 3", ids)
			}
			db := dbtest.Open(t, dsn)

			if r := rows(t, db, queries["instances"]); len(r) != 3 || r[1][2] != "Time" {
				t.Errorf("instances: %v", r)
			}
			cov := lc.FileCoverage()
			for _, q := range []string{"per-file-coverage", "per-file-stored"} {
				r := rows(t, db, queries[q])
				if len(r) != len(cov) {
					t.Fatalf("%s: %d files, want %d", q, len(r), len(cov))
				}
				for i, row := range r {
					c := cov[row[0]]
					pct := float(t, row[len(row)-1])
					if math.Abs(pct-readback.Ratio{Covered: c[0], Total: c[1]}.Percent()) > 1e-5 { // MySQL divides to 4 more decimal places than the dividend has
						t.Errorf("%s: %s %v%%, want %d of %d", q, row[0], pct, c[0], c[1])
					}
					if q == "per-file-coverage" && (row[1] != fmt.Sprint(c[1]) || row[2] != fmt.Sprint(c[0])) {
						t.Errorf("%s: %v, want %d of %d", q, row, c[0], c[1])
					}
					if i > 0 && pct < float(t, r[i-1][len(row)-1]) {
						t.Errorf("%s: not ordered by %%: %v", q, r)
					}
				}
			}
			var uncovered []string
			for _, row := range rows(t, db, queries["uncovered-lines"]) {
				uncovered = append(uncovered, row[0]+":"+row[1])
			}
			sort.Strings(uncovered)
			if w := lc.UncoveredLines(); strings.Join(uncovered, ",") != strings.Join(w, ",") {
				t.Errorf("uncovered lines %v, want %v", uncovered, w)
			}
			own := ft.OwnTimes()
			r := rows(t, db, queries["slowest-routines"])
			if len(r) != len(own) {
				t.Fatalf("slowest routines: %d, want %d", len(r), len(own))
			}
			for i, row := range r {
				if row[3] != fmt.Sprint(own[row[0]]) {
					t.Errorf("slowest routines: %s own %s, want %d", row[0], row[3], own[row[0]])
				}
				if ms := float(t, row[5]); math.Abs(ms-float64(own[row[0]])*1000/2400000000) > 1e-5 { // MySQL divides to 4 more decimal places than the dividend has
					t.Errorf("slowest routines: %s own %v ms", row[0], ms)
				}
				if i > 0 && float(t, row[3]) > float(t, r[i-1][3]) {
					t.Errorf("slowest routines not slowest first: %v", r)
				}
			}
			live := rs.Column("RESOURCE_PROFILER_CLASSES_DATA", "COL_CLASS_NAME", "COL_LIVE_COUNT")
			r = rows(t, db, queries["live-per-class"])
			if len(r) != len(live) {
				t.Fatalf("live per class: %v", r)
			}
			for _, row := range r {
				if float(t, row[2]) != float(t, live[row[0]]) {
					t.Errorf("live per class: %v, want %s", row, live[row[0]])
				}
			}
			objects := rs.ObjectsPerClass()
			r = rows(t, db, queries["objects-per-class"])
			if len(r) != len(objects) {
				t.Fatalf("objects per class: %v, want %v", r, objects)
			}
			for _, row := range r {
				if row[1] != fmt.Sprint(objects[row[0]]) {
					t.Errorf("objects per class: %v, want %d", row, objects[row[0]])
				}
			}
		})
	}
}

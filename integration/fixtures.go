package integration

import (
	"database/sql"
	"fmt"
	"testing"

	"github.com/profdb/profdb/ddl"
	"github.com/profdb/profdb/dialects/dialecttest"
	"github.com/profdb/profdb/internal/resultsettest"
	"github.com/profdb/profdb/resultset"
	"github.com/profdb/profdb/store"

	// The profiler plugins the suite exports.
	_ "github.com/profdb/profdb/profilers/functiontrace"
	"github.com/profdb/profdb/profilers/lightcoverage"
	_ "github.com/profdb/profdb/profilers/referencecount"
	_ "github.com/profdb/profdb/profilers/resource"
)

// Fixture is a result set whose rows are kept, so that it can be exported
// any number of times and compared with what a database returns
// (resultsettest.Fixture).
type Fixture = resultsettest.Fixture

// FixtureTable is one table of a Fixture (resultsettest.Table).
type FixtureTable = resultsettest.Table

// CoverageLine is one row the Light Coverage query returns.
type CoverageLine struct {
	ID         int64
	File       string
	Mark       ddl.Dec
	SourceLine int64
	Covered    float64
}

// CoverageSet is a small Light Coverage result set for the consumer query
// (dialecttest.ConsumerQuery): files source files, each with lines lines.
// ROUTINES_DATA holds one routine per file with the same ID, so that LINES'
// PARENT_ID names both a routine (the documented parent) and a file (the
// plugin's join). It uses only the columns the query reads and a few more,
// all of them in the range of narrow DBA-made columns (INT, VARCHAR(255),
// 32-bit FLOAT, DECIMAL(20,8)). It also returns the rows the query should
// return, in its order (by COL_FILE_NAME, then ID).
func CoverageSet(caption string, files, lines int) (*Fixture, []CoverageLine) {
	f := &Fixture{Header: resultset.Header{Profiler: lightcoverage.Name, Caption: caption}}
	sf := FixtureTable{Name: lightcoverage.SourceFilesData, Columns: []string{"ID", "PARENT_ID", "REC_ID", "COL_FILE_NAME", "COL____COVERED", "COL_HIT_COUNT"}}
	rd := FixtureTable{Name: lightcoverage.RoutinesData, Columns: []string{"ID", "PARENT_ID", "REC_ID", "COL_SOURCE_FILE", "COL_MARK"}}
	ln := FixtureTable{Name: lightcoverage.Lines, Columns: []string{"ID", "PARENT_ID", "REC_ID", "COL_MARK", "COL_SOURCE_LINE"}}
	var want []CoverageLine
	id := int64(0)
	for i := 0; i < files; i++ {
		name := fmt.Sprintf(`C:\src\fïle_%02d.cpp`, i)
		covered := float64(i%4) * 0.25 // exact in 32 bits
		sf.Rows = append(sf.Rows, []any{int64(i), int64(-1), int64(i), name, covered, ddl.Dec(fmt.Sprintf("%d.5", i))})
		rd.Rows = append(rd.Rows, []any{int64(i), int64(-1), int64(i), name, ddl.Dec("1")})
		for j := 0; j < lines; j++ {
			mark := ddl.Dec(fmt.Sprint(j % 3))
			ln.Rows = append(ln.Rows, []any{id, int64(i), int64(j), mark, int64(10 + j)})
			want = append(want, CoverageLine{ID: id, File: name, Mark: mark, SourceLine: int64(10 + j), Covered: covered})
			id++
		}
	}
	f.Tables = []FixtureTable{sf, rd, ln}
	return f, want
}

// RunCoverageQuery runs dialecttest.ConsumerQuery on dsn and returns its rows,
// sorted by file name and ID (the query orders by file name only).
func RunCoverageQuery(t testing.TB, dsn string) []CoverageLine {
	t.Helper()
	return QueryCoverage(t, Open(t, dsn), dialecttest.ConsumerQuery)
}

// QueryCoverage runs a coverage query, whose columns are those of
// dialecttest.ConsumerQuery and which orders by file name, and returns its rows
// sorted by file name and ID.
func QueryCoverage(t testing.TB, db *sql.DB, query string, args ...any) []CoverageLine {
	t.Helper()
	rows, err := db.QueryContext(Ctx(t), query, args...)
	if err != nil {
		t.Fatalf("the coverage query fails: %v\n%s", err, query)
	}
	defer rows.Close()
	var out []CoverageLine
	for rows.Next() {
		var id, line int64
		var file string
		var mark, covered any
		if err := rows.Scan(&id, &file, &mark, &line, &covered); err != nil {
			t.Fatal(err)
		}
		m, err := store.Canonical(ddl.Decimal, mark)
		if err != nil {
			t.Fatal(err)
		}
		c, err := store.Canonical(ddl.Float, covered)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, CoverageLine{ID: id, File: file, Mark: m.(ddl.Dec), SourceLine: line, Covered: c.(float64)})
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	for i := 1; i < len(out); i++ {
		if out[i].File < out[i-1].File {
			t.Errorf("the query's rows are not ordered by COL_FILE_NAME: %q after %q", out[i].File, out[i-1].File)
		}
	}
	sortLines(out)
	return out
}

func sortLines(l []CoverageLine) {
	for i := 1; i < len(l); i++ {
		for j := i; j > 0 && (l[j].File < l[j-1].File || l[j].File == l[j-1].File && l[j].ID < l[j-1].ID); j-- {
			l[j], l[j-1] = l[j-1], l[j]
		}
	}
}

func indexOf(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}

package integration

import (
	"reflect"
	"strings"
	"testing"

	"github.com/profdb/profdb/dialects/dialecttest"
	"github.com/profdb/profdb/exporter"
	"github.com/profdb/profdb/store"
)

// sonarSQLServerQuery is the SonarQube Delphi plugin's coverage query as it
// runs on SQL Server: dialecttest.ConsumerQuery with its configurable
// "database.schema." prefix before each table, here DB.dbo.
func sonarSQLServerQuery(db string) string {
	return strings.NewReplacer(
		"FROM LIGHT_COVERAGE_PROFILER_LINES", "FROM "+db+".dbo.LIGHT_COVERAGE_PROFILER_LINES",
		"JOIN LIGHT_COVERAGE_PROFILER_SOURCE_FILES_DATA", "JOIN "+db+".dbo.LIGHT_COVERAGE_PROFILER_SOURCE_FILES_DATA",
	).Replace(dialecttest.ConsumerQuery)
}

// CorrectedCoverageQuery is the coverage query of docs/sqlserver.md that
// holds with any number of result sets: one result set (@p1, its INST_ID),
// every join on INST_ID, and LINES joined to its documented parent
// ROUTINES_DATA, whose source file names the SOURCE_FILES_DATA row.
const CorrectedCoverageQuery = `SELECT l.ID, f.COL_FILE_NAME, l.COL_MARK, l.COL_SOURCE_LINE, f.COL____COVERED
FROM LIGHT_COVERAGE_PROFILER_LINES l
INNER JOIN LIGHT_COVERAGE_PROFILER_ROUTINES_DATA r ON r.INST_ID = l.INST_ID AND r.ID = l.PARENT_ID
INNER JOIN LIGHT_COVERAGE_PROFILER_SOURCE_FILES_DATA f ON f.INST_ID = r.INST_ID AND f.COL_FILE_NAME = r.COL_SOURCE_FILE
WHERE l.INST_ID = @p1
ORDER BY f.COL_FILE_NAME, l.ID`

// TestSonarQubeQueryOnSQLServer runs the SonarQube Delphi plugin's query,
// three-part names and all, against tables profdb made on SQL Server: with
// one result set it returns the exported lines; with two it returns every
// line once per file of either set, which is why docs/sqlserver.md gives
// CorrectedCoverageQuery, checked here to return each set's own lines.
func TestSonarQubeQueryOnSQLServer(t *testing.T) {
	ns := Lookup(t, "sqlserver").Fresh(t)
	db := OpenExporter(t, ns.DSN, store.Options{}, exporter.Options{})
	first, want := CoverageSet("first run", 3, 4)
	Export(t, db, first)
	raw := Open(t, ns.DSN)
	if got := QueryCoverage(t, raw, sonarSQLServerQuery(ns.Name)); !reflect.DeepEqual(got, want) {
		t.Fatalf("the plugin's query on one result set returns\n%v\nwant\n%v", got, want)
	}

	second, want2 := CoverageSet("second run", 3, 4)
	Export(t, db, second)
	if got := QueryCoverage(t, raw, sonarSQLServerQuery(ns.Name)); len(got) != 4*len(want) {
		t.Errorf("the plugin's query on two result sets: %d rows, want %d (each line joined to the files of both sets)", len(got), 4*len(want))
	}
	for inst, w := range map[int64][]CoverageLine{1: want, 2: want2} {
		if got := QueryCoverage(t, raw, CorrectedCoverageQuery, inst); !reflect.DeepEqual(got, w) {
			t.Errorf("the corrected query for INST_ID %d returns\n%v\nwant\n%v", inst, got, w)
		}
	}
}

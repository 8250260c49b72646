package sqlscript_test

import (
	"strings"
	"testing"

	"github.com/profdb/profdb/dialects"
	"github.com/profdb/profdb/exporter/sqlscript"
	"github.com/profdb/profdb/internal/dbtest"
	"github.com/profdb/profdb/profilers"
	"github.com/profdb/profdb/profilers/functiontrace"
	"github.com/profdb/profdb/profilers/lightcoverage"
	"github.com/profdb/profdb/resultset"
)

// TestScriptCreatesTablesAsDDL: the tables part of a script (profdb
// export --sql-out) is, statement for statement, the script of profdb ddl
// for the same profilers, schema and primary key, without its comments and
// preamble.
func TestScriptCreatesTablesAsDDL(t *testing.T) {
	// In registry order, as profdb ddl --profiler takes them.
	var defs []profilers.Definition
	for _, def := range profilers.All() {
		if def.Name == lightcoverage.Name || def.Name == functiontrace.Name {
			defs = append(defs, def)
		}
	}
	tables, err := profilers.Tables(defs...)
	if err != nil {
		t.Fatal(err)
	}
	for _, dialect := range dbtest.Dialects() {
		d, err := dialects.Lookup(dialect)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range []sqlscript.DDLOptions{{}, {Schema: "aq"}, {PrimaryKey: true}, {Schema: "aq", PrimaryKey: true}} {
			if _, ok := d.(dialects.RowKeyer); o.PrimaryKey && !ok {
				if _, err := sqlscript.DDL(d, defs, o); err == nil {
					t.Errorf("%s: DDL with PrimaryKey: no error", dialect)
				}
				continue
			}
			text, err := sqlscript.DDL(d, defs, o)
			if err != nil {
				t.Fatal(err)
			}
			// The DDL script: comments, a blank line before the preamble,
			// if any, and before the statements of each table.
			blocks := strings.Split(strings.TrimSuffix(text, "\n"), "\n\n")
			if len(blocks) < len(tables)+1 {
				t.Fatalf("%s %+v: %d blocks for %d tables:\n%s", dialect, o, len(blocks), len(tables), text)
			}
			want := strings.Join(blocks[len(blocks)-len(tables):], "\n") + "\n"
			if !strings.Contains(want, "PROFDB_RESULT_SETS") && !strings.Contains(want, "profdb_result_sets") {
				t.Fatalf("%s: the tables of the DDL script miss PROFDB_RESULT_SETS:\n%s", dialect, want)
			}
			s := script(t, dialect, sqlscript.Options{Schema: o.Schema, PrimaryKey: o.PrimaryKey}, tinySets()...)
			_, part, ok := strings.Cut(s, "-- tables (each statement does nothing when its object exists)\n")
			if !ok {
				t.Fatalf("%s: script has no tables part:\n%s", dialect, s)
			}
			part, _, _ = strings.Cut(part, "\n\n")
			if part+"\n" != want {
				t.Errorf("%s %+v: the script creates\n%s\nprofdb ddl creates\n%s", dialect, o, part, want)
			}
		}
	}
}

// tinySets returns a light coverage and a function trace result set of a
// row each.
func tinySets() []*resultset.ResultSet {
	return []*resultset.ResultSet{
		{Header: resultset.Header{Profiler: lightcoverage.Name, Caption: "cov"},
			Tables: []resultset.TableRows{{Name: lightcoverage.RoutinesData, Columns: []string{"ID", "PARENT_ID", "REC_ID"},
				Rows: rowsOf([][]any{{int64(0), int64(-1), int64(0)}})}}},
		{Header: resultset.Header{Profiler: functiontrace.Name, Caption: "ft"},
			Tables: []resultset.TableRows{{Name: functiontrace.Threads, Columns: []string{"ID", "PARENT_ID"},
				Rows: rowsOf([][]any{{int64(0), int64(-1)}})}}},
	}
}

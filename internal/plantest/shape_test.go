package plantest_test

import (
	"testing"

	"github.com/profdb/profdb/internal/plantest"
)

func TestShape(t *testing.T) {
	for _, c := range []struct {
		query string
		bad   int
	}{
		// Each table bound to the parameter: nothing to say.
		{`SELECT 1 FROM "L" l JOIN "R" rd ON rd."INST_ID" = ? AND rd."ID" = l."PARENT_ID" WHERE l."INST_ID" = ?`, 0},
		{`SELECT 1 FROM "l" l WHERE l."INST_ID" IN (?, ?)`, 0},
		// A join on the other table's INST_ID column, any quoting or case.
		{`SELECT 1 FROM "L" l JOIN "R" rd ON rd."INST_ID" = l."INST_ID" AND rd."ID" = l."PARENT_ID" WHERE l."INST_ID" = ?`, 1},
		{"SELECT 1 FROM `L` l LEFT JOIN `R` rd ON l.`INST_ID` = rd.`INST_ID` WHERE rd.`INST_ID` = ?", 1},
		{`SELECT 1 FROM l JOIN r ON r.inst_id = l.inst_id WHERE l.inst_id = $1`, 1},
		// Two result sets by an IN list in a join.
		{`SELECT 1 FROM "L" l JOIN "R" rd ON rd."ID" = l."PARENT_ID" WHERE l."INST_ID" IN (?, ?)`, 1},
	} {
		if got := plantest.Shape(c.query); len(got) != c.bad {
			t.Errorf("Shape(%s) = %q, want %d findings", c.query, got, c.bad)
		}
	}
}

func TestAliases(t *testing.T) {
	got := plantest.Aliases(`SELECT l."ID" FROM "main"."LINES" l LEFT JOIN "ROUTINES" AS rd ON rd."ID" = l."PARENT_ID" JOIN [META] m ON 1 = 1 WHERE "LINES"."X" = 1`)
	for alias, table := range map[string]string{"l": "LINES", "rd": "ROUTINES", "m": "META", "lines": "LINES"} {
		if got[alias] != table {
			t.Errorf("Aliases[%s] = %q, want %s (all: %v)", alias, got[alias], table, got)
		}
	}
	if _, ok := got["on"]; ok {
		t.Errorf("a keyword taken for an alias: %v", got)
	}
}

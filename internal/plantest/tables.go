package plantest

import (
	"context"
	"fmt"
	"strings"

	"github.com/profdb/profdb/dialects"
)

// ResultSetTables returns the stored names, upper-cased, of the tables in
// the default schema of q that have an INST_ID column: the profiler tables,
// INSTANCES, RELATIONS and profdb's own tables of result sets. A scan of
// any other table (the catalogue, a derived table) is not the plan tests'
// concern.
func ResultSetTables(ctx context.Context, q dialects.DBTX, d dialects.Dialect) (map[string]bool, error) {
	tables, err := d.Tables(ctx, q, "")
	if err != nil {
		return nil, fmt.Errorf("plantest: tables: %w", err)
	}
	out := map[string]bool{}
	for _, tb := range tables {
		cols, err := d.Columns(ctx, q, "", tb)
		if err != nil {
			return nil, fmt.Errorf("plantest: columns of %s: %w", tb, err)
		}
		for _, c := range cols {
			if strings.EqualFold(c.Name, "INST_ID") {
				out[strings.ToUpper(tb)] = true
			}
		}
	}
	return out, nil
}

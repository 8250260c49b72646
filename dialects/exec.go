package dialects

import (
	"context"
	"database/sql"
	"fmt"
)

// ExecAll runs statements in order. A statement that answers with a single
// value of 0 failed to get what it asked for (MySQL's GET_LOCK answers 0 on
// a timeout): that is an error too.
func ExecAll(ctx context.Context, q DBTX, stmts []string) error {
	for _, st := range stmts {
		rows, err := q.QueryContext(ctx, st)
		if err != nil {
			return err
		}
		refused := false
		cols, _ := rows.Columns()
		for rows.Next() {
			if len(cols) == 1 {
				var v sql.NullInt64
				if rows.Scan(&v) == nil && v.Valid && v.Int64 == 0 {
					refused = true
				}
			}
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return err
		}
		if refused {
			return fmt.Errorf("%s: refused (timed out waiting for another exporter?)", st)
		}
	}
	return nil
}

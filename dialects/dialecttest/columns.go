package dialecttest

import (
	"database/sql"
	"errors"
	"strings"
	"testing"

	"github.com/profdb/profdb/dialects"
)

// CheckColumnsMissingTable checks the contract of Dialect.Columns in db's
// default schema: a table that does not exist is an error that wraps
// dialects.ErrNoTable and names the table, never an empty list, while one
// that exists (RoundTripTable, created here) is described in full.
func CheckColumnsMissingTable(t *testing.T, d dialects.Dialect, db *sql.DB) {
	t.Helper()
	ctx := Context(t)
	CreateRoundTripTable(ctx, t, d, db, "")
	table := d.StoredName(RoundTripTable().Name)
	cols, err := d.Columns(ctx, db, "", table)
	if err != nil || len(cols) != len(RoundTripTable().Columns) {
		t.Fatalf("Columns of the existing table %s: %d columns, %v; want %d columns", table, len(cols), err, len(RoundTripTable().Columns))
	}
	missing := d.StoredName("NO_SUCH_TABLE")
	cols, err = d.Columns(ctx, db, "", missing)
	if !errors.Is(err, dialects.ErrNoTable) || !strings.Contains(err.Error(), missing) {
		t.Errorf("Columns of the missing table %s: %d columns, %v; want an error that wraps dialects.ErrNoTable and names the table", missing, len(cols), err)
	}
}

package sqlserver

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"
	"time"

	mssql "github.com/microsoft/go-mssqldb"

	"github.com/profdb/profdb/ddl"
	"github.com/profdb/profdb/dialects"
)

var _ dialects.BulkLoader = Dialect{}

// finishGrace is how long a bulk copy whose context was cancelled may take
// to end its BULK LOAD message before it is interrupted.
const finishGrace = 10 * time.Second

// bulkOptions are the options of profdb's bulk copies. They make a bulk
// copy behave like the batched INSERT it replaces:
//
//   - KeepNulls: a NULL stays NULL instead of taking the column's default,
//     as with an INSERT that names the column.
//   - CheckConstraints: CHECK and FOREIGN KEY constraints are checked, as
//     for an INSERT; without it SQL Server skips them and marks them as not
//     trusted, and the login would need ALTER permission on the table.
//   - FireTriggers: INSERT triggers run, as for an INSERT; without it the
//     login would need ALTER permission where there are triggers.
//
// With these options a bulk copy needs no more than the INSERT and SELECT
// permissions the INSERT path needs. Tablock is off: exporters are already
// serialized by the allocation lock (Lock), and a table lock would also
// block readers of other result sets for the whole export, which the row
// locks of INSERT do not (until SQL Server escalates them).
var bulkOptions = mssql.BulkOptions{KeepNulls: true, CheckConstraints: true, FireTriggers: true}

// BulkLoad writes rows into the table t with go-mssqldb's bulk copy
// (mssql.CopyIn, the TDS BULK LOAD of bcp and SqlBulkCopy) inside tx, and
// returns the number of rows SQL Server reports. It implements
// dialects.BulkLoader. When tx.Conn is set, the copy runs on go-mssqldb's
// own connection (its Bulk, through sql.Conn.Raw), skipping database/sql's
// conversion of every value; without it, through its CopyIn statement.
// Both send the same BULK LOAD message.
//
// It first inspects the table's columns (Columns) and converts each value
// into the Go type that bulk copy encodes exactly for that column's type:
// an integer column takes int64, a float or real column float64, and a
// decimal, numeric, money or Unicode text column a string (a decimal as its
// exact text; go-mssqldb would drop the scale of an integer sent to a
// DECIMAL(p,s) column and send an integer for NVARCHAR as single-byte
// text). NULL stays NULL (KEEP_NULLS). The copy runs WITH (CHECK_CONSTRAINTS,
// FIRE_TRIGGERS, KEEP_NULLS), like the INSERT it replaces, and without
// TABLOCK.
//
// It returns an error wrapping dialects.ErrSkip (and saying why), having
// sent nothing but the inspection and before asking rows for the first row,
// when the table has a target column that bulk copy cannot fill
// faithfully:
//
//   - a non-Unicode text column (varchar, char, text) for a String value:
//     go-mssqldb sends the UTF-8 bytes unconverted, which SQL Server would
//     store as characters of the column's code page;
//   - a column of a type outside the four logical types (bit, datetime2,
//     ...), which profdb only ever fills with NULL;
//   - on Babelfish (IsBabelfish), a decimal or numeric column of precision
//     28 or less, such as profdb's DECIMAL(28,8): Babelfish 4.2 stores the
//     5-, 9- and 13-byte decimals of a bulk copy as wrong values without an
//     error (or fails on some); only 17-byte ones (precision 29 to 38)
//     arrive intact.
//
// Batched INSERT handles both. Any other failure is an error.
func (d Dialect) BulkLoad(ctx context.Context, tx dialects.Tx, t dialects.Target, rows dialects.Rows) (int64, error) {
	if len(t.Columns) == 0 || len(t.Types) != len(t.Columns) {
		return 0, fmt.Errorf("sqlserver: bulk load into %s: %d columns with %d types", t.Table, len(t.Columns), len(t.Types))
	}
	infos, err := d.Columns(ctx, tx, t.Schema, t.Table)
	if err != nil {
		return 0, fmt.Errorf("sqlserver: bulk load into %s: %w", t.Table, err)
	}
	byName := make(map[string]dialects.ColumnInfo, len(infos))
	for _, c := range infos {
		byName[c.Name] = c
	}
	conv := make([]bulkColumn, len(t.Columns))
	for i, name := range t.Columns {
		c, ok := byName[name]
		if !ok {
			// Bulk copy matches column names exactly.
			return 0, fmt.Errorf("sqlserver: bulk load into %s: no column %s", t.Table, name)
		}
		bc, why := bulkColumnFor(c, t.Types[i])
		if why != "" {
			return 0, fmt.Errorf("column %s is %s, %s: %w", name, c.DBType, why, dialects.ErrSkip)
		}
		conv[i] = bc
	}
	if col, ok := shortDecimal(t.Columns, byName); ok {
		bf, err := IsBabelfish(ctx, tx)
		if err != nil {
			return 0, fmt.Errorf("sqlserver: bulk load into %s: %w", t.Table, err)
		}
		if bf {
			return 0, fmt.Errorf("column %s is %s, which Babelfish's bulk copy stores wrongly (docs/sqlserver.md): %w", col.Name, col.DBType, dialects.ErrSkip)
		}
	}

	// The copy runs under a context of its own. go-mssqldb keeps the one
	// given to Prepare for the whole copy, and database/sql refuses to run
	// the final Exec under a cancelled one: a copy cut short by ctx would
	// leave a half-sent BULK LOAD message on the connection, on which the
	// ROLLBACK that follows could not run. Cancelling ctx stops the rows;
	// the message is still ended, and the copy's context is cancelled
	// finishGrace later (go-mssqldb then sends an attention) so that a
	// server that does not answer cannot hold the export.
	bctx, bcancel := context.WithCancel(context.WithoutCancel(ctx))
	defer bcancel()
	stop := context.AfterFunc(ctx, func() { time.AfterFunc(finishGrace, bcancel) })
	defer stop()

	n, ran, err := dialects.OnDriverConn(tx, func(dc any) func() (int64, error) {
		c, ok := dc.(*mssql.Conn)
		if !ok {
			return nil
		}
		return func() (int64, error) {
			b := c.CreateBulkContext(bctx, dialects.Qualify(d, t.Schema, t.Table), t.Columns)
			b.Options = bulkOptions
			return d.bulkCopy(ctx, t, conv, rows, b.AddRow, b.Done)
		}
	})
	if ran {
		return n, err
	}
	if err != nil {
		return 0, fmt.Errorf("sqlserver: bulk load into %s: %w", t.Table, err)
	}

	stmt, err := tx.PrepareContext(bctx, mssql.CopyIn(dialects.Qualify(d, t.Schema, t.Table), bulkOptions, t.Columns...))
	if err != nil {
		return 0, fmt.Errorf("sqlserver: bulk load into %s: %w", t.Table, err)
	}
	defer stmt.Close()
	add := func(vals []any) error {
		_, err := stmt.ExecContext(bctx, vals...)
		return err
	}
	finish := func() (int64, error) {
		res, err := stmt.ExecContext(bctx)
		if err != nil {
			return 0, err
		}
		return res.RowsAffected()
	}
	return d.bulkCopy(ctx, t, conv, rows, add, finish)
}

// bulkCopy sends rows, converted by conv, through add, and ends the copy
// with finish: go-mssqldb's Bulk on the driver's connection, or its CopyIn
// statement through database/sql.
func (d Dialect) bulkCopy(ctx context.Context, t dialects.Target, conv []bulkColumn, rows dialects.Rows, add func([]any) error, finish func() (int64, error)) (int64, error) {
	// After a failure finish still sends the end of the BULK LOAD message,
	// so that the connection stays usable for the ROLLBACK that follows;
	// the rows sent stay inside the transaction.
	fail := func(err error) (int64, error) {
		finish()
		return 0, fmt.Errorf("sqlserver: bulk load into %s: %w", t.Table, err)
	}
	vals := make([]any, len(t.Columns))
	var sent int64
	for {
		row, ok, err := dialects.NextRow(rows, len(conv), sent+1, "sqlserver: bulk load into", t.Table)
		if err != nil {
			finish()
			return 0, err
		}
		if !ok {
			break
		}
		if err := ctx.Err(); err != nil {
			return fail(err)
		}
		for i, v := range row {
			cv, err := conv[i].convert(v)
			if err != nil {
				return fail(fmt.Errorf("row %d, column %s: %w", sent+1, t.Columns[i], err))
			}
			vals[i] = cv
		}
		if err := add(vals); err != nil {
			return fail(fmt.Errorf("row %d: %w", sent+1, err))
		}
		sent++
	}
	n, err := finish()
	if err != nil {
		return n, fmt.Errorf("sqlserver: bulk load into %s: %w", t.Table, err)
	}
	if err := ctx.Err(); err != nil {
		return n, fmt.Errorf("sqlserver: bulk load into %s: %w", t.Table, err)
	}
	return n, nil
}

// bulkColumn converts canonical values for one column of a bulk copy.
type bulkColumn struct {
	name    string
	dbType  string
	kind    ddl.Type // the column's own logical type
	notNull bool
}

// nonUnicode are the character types whose bytes bulk copy sends as they
// are.
var nonUnicode = map[string]bool{"varchar": true, "char": true, "text": true}

// bulkColumnFor returns the converter for column c filled with values of
// logical type t, or why bulk copy cannot fill it faithfully.
func bulkColumnFor(c dialects.ColumnInfo, t ddl.Type) (bulkColumn, string) {
	base, _, _ := strings.Cut(c.DBType, "(")
	switch {
	case c.Type == 0:
		return bulkColumn{}, "which profdb does not bulk-load"
	case c.Type == ddl.String && nonUnicode[base] && t == ddl.String:
		return bulkColumn{}, "whose text bulk copy would send as unconverted UTF-8"
	}
	return bulkColumn{name: c.Name, dbType: c.DBType, kind: c.Type, notNull: !c.Nullable}, ""
}

// convert turns a canonical value (int64, ddl.Dec, float64, string or
// nil) into what go-mssqldb's bulk copy encodes exactly for the column.
// The exporter has checked that the value fits the column; a value that
// does not convert is an error, never a silently different value.
func (b bulkColumn) convert(v any) (any, error) {
	if v == nil {
		if b.notNull {
			// Bulk copy cannot even encode NULL for a NOT NULL column
			// (SQL Server describes it with a fixed-length type).
			return nil, fmt.Errorf("NULL in NOT NULL column %s (%s)", b.name, b.dbType)
		}
		return nil, nil
	}
	bad := func() (any, error) {
		return nil, fmt.Errorf("cannot send %T %v to column %s (%s)", v, v, b.name, b.dbType)
	}
	switch b.kind {
	case ddl.Integer:
		switch x := v.(type) {
		case int64:
			return v, nil
		case ddl.Dec:
			i, err := strconv.ParseInt(string(x), 10, 64)
			if err != nil {
				return bad()
			}
			return i, nil
		case float64:
			if x != float64(int64(x)) {
				return bad()
			}
			return int64(x), nil
		}
	case ddl.Float:
		switch x := v.(type) {
		case float64:
			return v, nil
		case int64:
			return float64(x), nil
		case ddl.Dec:
			f, err := strconv.ParseFloat(string(x), 64)
			if err != nil {
				return bad()
			}
			return f, nil
		}
	case ddl.Decimal:
		// Text: go-mssqldb parses it exactly at the column's scale.
		switch x := v.(type) {
		case ddl.Dec:
			return string(x), nil
		case int64:
			return strconv.FormatInt(x, 10), nil
		case float64:
			return strconv.FormatFloat(x, 'f', -1, 64), nil
		case string:
			return x, nil
		}
	case ddl.String:
		// A Go string goes out as UTF-16 for NVARCHAR, NCHAR and NTEXT.
		switch x := v.(type) {
		case string:
			return v, nil
		case ddl.Dec:
			return string(x), nil
		case int64:
			return strconv.FormatInt(x, 10), nil
		case float64:
			return strconv.FormatFloat(x, 'g', -1, 64), nil
		}
	}
	return bad()
}

// shortDecimal returns the first of cols that is a decimal or numeric
// column of precision 28 or less, whose values TDS carries in fewer than 17
// bytes.
func shortDecimal(cols []string, byName map[string]dialects.ColumnInfo) (dialects.ColumnInfo, bool) {
	for _, name := range cols {
		c := byName[name]
		base, _, _ := strings.Cut(strings.ToLower(c.DBType), "(")
		if (base == "decimal" || base == "numeric") && c.Precision <= 28 {
			return c, true
		}
	}
	return dialects.ColumnInfo{}, false
}

// IsBabelfish reports whether the server is Babelfish for PostgreSQL, which
// answers SERVERPROPERTY('Babelfish') with 1; SQL Server answers NULL, as
// for any property it does not know.
func IsBabelfish(ctx context.Context, q dialects.DBTX) (bool, error) {
	var v sql.NullInt64
	if err := q.QueryRowContext(ctx, "SELECT CAST(SERVERPROPERTY('Babelfish') AS int)").Scan(&v); err != nil {
		return false, fmt.Errorf("ask the server whether it is Babelfish: %w", err)
	}
	return v.Valid && v.Int64 == 1, nil
}

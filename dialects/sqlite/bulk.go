package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"strconv"

	"github.com/profdb/profdb/ddl"
	"github.com/profdb/profdb/dialects"
)

var _ dialects.BulkLoader = Dialect{}

// BulkRows is how many rows one statement of BulkLoad carries, at most (and
// at most MaxParams values). SQLite has no bulk protocol: the fastest path
// is a prepared multi-row INSERT, reused. Statements of a few hundred rows
// were the fastest, with and without indexes; a single row per statement
// was about three times slower, and larger statements, up to all of
// MaxParams, no faster (docs/performance.md, "SQLite: indexes, page cache
// and statement size").
const BulkRows = 256

// BulkBytes bounds the text bound to one multi-row statement: SQLite copies
// every bound string, so a batch of long strings goes row by row instead.
const BulkBytes = 4 << 20

// LongRowCacheKiB is the page cache, in KiB, of a load from its first
// batch of long strings (BulkBytes) to its end, instead of CacheKiB. The
// driver holds a long text twice while its row is written (the copy it
// binds, and the record SQLite builds), and the text's overflow pages
// then fill the page cache, whose pages take twice their size in the
// driver's allocator: with CacheKiB, 13 strings of 15 MiB took 132 MiB,
// with this 98 MiB. Rows written row by row gain nothing from a larger
// cache.
const LongRowCacheKiB = 512

var _ dialects.LongRowTuner = Dialect{}

// LongRowSQL implements dialects.LongRowTuner: the page cache goes to
// LongRowCacheKiB, and back to CacheKiB.
func (Dialect) LongRowSQL() (enter, leave string) {
	return "PRAGMA cache_size = -" + strconv.Itoa(LongRowCacheKiB), "PRAGMA cache_size = -" + strconv.Itoa(CacheKiB)
}

// BulkLoad writes rows into t inside tx with a prepared multi-row INSERT of
// BulkRows rows, reused, and a prepared single-row INSERT for the rows that
// do not fill one (the last few, and batches of long strings; see
// BulkBytes). Values are bound as for the batched INSERT path (Bind), so
// both paths store exactly the same thing. It implements
// dialects.BulkLoader and never returns dialects.ErrSkip.
//
// When tx.Conn is set, the statements run on the driver's own connection
// (sql.Conn.Raw), their arguments in one reused []driver.NamedValue,
// skipping database/sql's conversion of every value; without it, through
// database/sql.
//
// Nothing of SQLite's durability is changed: the rows are written in the
// caller's transaction, with the journal mode and synchronous setting of
// the connection (SQLite's defaults; see DriverDSN). From its first batch
// of long strings on, a load runs with a smaller page cache
// (LongRowCacheKiB), and sets CacheKiB again when it ends.
func (d Dialect) BulkLoad(ctx context.Context, tx dialects.Tx, t dialects.Target, rows dialects.Rows) (int64, error) {
	cols := len(t.Columns)
	if cols == 0 || len(t.Types) != cols {
		return 0, fmt.Errorf("sqlite: bulk load into %s: %d columns with %d types", t.Table, cols, len(t.Types))
	}
	n, ran, err := dialects.OnDriverConn(tx, func(dc any) func() (int64, error) {
		c, ok := dc.(driver.ConnPrepareContext)
		if !ok {
			return nil
		}
		return func() (int64, error) {
			return d.load(ctx, t, rows, func(query string) (execer, error) {
				s, err := c.PrepareContext(ctx, query)
				if err != nil {
					return nil, err
				}
				se, ok := s.(driver.StmtExecContext)
				if !ok {
					s.Close()
					return nil, fmt.Errorf("the driver's statement %T has no ExecContext", s)
				}
				return &driverStmt{s: se, c: s}, nil
			})
		}
	})
	if ran {
		return n, err
	}
	if err != nil {
		return 0, fmt.Errorf("sqlite: bulk load into %s: %w", t.Table, err)
	}
	return d.load(ctx, t, rows, func(query string) (execer, error) {
		s, err := tx.PrepareContext(ctx, query)
		if err != nil {
			return nil, err
		}
		return sqlStmt{s}, nil
	})
}

// execer is a prepared INSERT as load uses it.
type execer interface {
	exec(ctx context.Context, args []any) (int64, error) // rows affected
	close()
}

// sqlStmt is an execer through database/sql.
type sqlStmt struct{ s *sql.Stmt }

func (s sqlStmt) exec(ctx context.Context, args []any) (int64, error) {
	res, err := s.s.ExecContext(ctx, args...)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

func (s sqlStmt) close() { s.s.Close() }

// driverStmt is an execer on the driver's own statement; its arguments
// go in one reused slice.
type driverStmt struct {
	s    driver.StmtExecContext
	c    driver.Stmt
	args []driver.NamedValue
}

func (s *driverStmt) exec(ctx context.Context, args []any) (int64, error) {
	s.args = s.args[:0]
	for i, v := range args {
		// What database/sql's default conversion would make of a
		// canonical value: a Decimal left as ddl.Dec (a named
		// string type) goes as its text.
		if x, ok := v.(ddl.Dec); ok {
			v = string(x)
		}
		s.args = append(s.args, driver.NamedValue{Ordinal: i + 1, Value: v})
	}
	res, err := s.s.ExecContext(ctx, s.args)
	clear(s.args) // holds no string until the next statement
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

func (s *driverStmt) close() { s.c.Close() }

// load is BulkLoad with statements made by prepare.
func (d Dialect) load(ctx context.Context, t dialects.Target, rows dialects.Rows, prepare func(query string) (execer, error)) (n int64, err error) {
	cols := len(t.Columns)
	per := min(BulkRows, dialects.RowsPerInsert(d.Facts().Limits, cols))
	table := dialects.Qualify(d, t.Schema, t.Table)
	var multi, single execer
	defer func() {
		for _, s := range []execer{multi, single} {
			if s != nil {
				s.close()
			}
		}
	}()
	exec := func(stmt *execer, rowsIn int, args []any) error {
		if *stmt == nil {
			s, err := prepare(dialects.InsertSQL(d, table, t.Columns, rowsIn))
			if err != nil {
				return fmt.Errorf("sqlite: bulk load into %s: prepare: %w", t.Table, err)
			}
			*stmt = s
		}
		got, err := (*stmt).exec(ctx, args)
		if err != nil {
			return fmt.Errorf("sqlite: bulk load into %s, rows %d-%d: %w", t.Table, n+1, n+int64(rowsIn), err)
		}
		if got != int64(rowsIn) {
			return fmt.Errorf("sqlite: bulk load into %s, rows %d-%d: %d rows written", t.Table, n+1, n+int64(rowsIn), got)
		}
		n += got
		return nil
	}
	// flushSingly writes the buffered rows one statement each.
	flushSingly := func(buf []any) error {
		for len(buf) > 0 {
			if err := exec(&single, 1, buf[:cols]); err != nil {
				return err
			}
			buf = buf[cols:]
		}
		return nil
	}
	// pragma runs the statement of LongRowSQL that sets the page cache:
	// LongRowCacheKiB from the first batch of long strings to the end of
	// the load, then CacheKiB again.
	pragma := func(query string) error {
		s, err := prepare(query)
		if err != nil {
			return err
		}
		defer s.close()
		_, err = s.exec(ctx, nil)
		return err
	}
	enter, leave := d.LongRowSQL()
	smallCache := false
	defer func() {
		if smallCache {
			if cerr := pragma(leave); cerr != nil && err == nil {
				err = fmt.Errorf("sqlite: bulk load into %s: the page cache back to %d KiB: %w", t.Table, CacheKiB, cerr)
			}
		}
	}()
	buf := make([]any, 0, per*cols)
	bytes := 0
	for {
		row, ok, err := dialects.NextRow(rows, cols, n+int64(len(buf)/cols)+1, "sqlite: bulk load into", t.Table)
		if !ok {
			if err != nil {
				return n, err
			}
			break
		}
		for i, v := range row {
			switch x := v.(type) {
			case string:
				bytes += len(x)
			case ddl.Dec:
				v = d.Bind(t.Types[i], x)
			}
			buf = append(buf, v)
		}
		switch {
		case len(buf) == cap(buf):
			err = exec(&multi, per, buf)
		case bytes >= BulkBytes:
			if !smallCache {
				if err := pragma(enter); err != nil {
					return n, fmt.Errorf("sqlite: bulk load into %s: a smaller page cache for long rows: %w", t.Table, err)
				}
				smallCache = true
			}
			err = flushSingly(buf)
		default:
			continue
		}
		if err != nil {
			return n, err
		}
		clear(buf)
		buf, bytes = buf[:0], 0
	}
	return n, flushSingly(buf)
}

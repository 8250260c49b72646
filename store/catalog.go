package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/profdb/profdb/ddl"
	"github.com/profdb/profdb/dialects"
	"github.com/profdb/profdb/profilers"
)

// Catalog is what a database holds, as read through one querier: its
// tables and, looked up on first use and kept, their columns, each found
// case-insensitively by its documented name. Everything that reads result
// sets (List, Verify, Read, package readback) and an export's checks build
// their queries through it. It is not safe for concurrent use.
type Catalog struct {
	db     *DB
	q      dialects.DBTX
	tables map[string]string            // upper-case name → real name
	cols   map[string]map[string]string // upper-case table → upper-case column → real name
	fresh  map[string]bool              // upper-case tables whose columns this catalogue read itself
}

// Catalog lists the tables of the database (in Options.Schema) through q,
// for example a Snapshot's querier.
func (db *DB) Catalog(ctx context.Context, q dialects.DBTX) (*Catalog, error) {
	names, err := db.d.Tables(ctx, q, db.opts.Schema)
	if err != nil {
		return nil, fmt.Errorf("list tables: %w", err)
	}
	c := db.KnownCatalog(q, nil, nil)
	for _, n := range names {
		c.tables[strings.ToUpper(n)] = n
	}
	return c, nil
}

// KnownCatalog returns the catalogue of tables whose names the caller knows
// already, as an export knows the tables it created or inspected: tables
// maps each documented name to the real name, columns each such table's
// documented columns to their real names (both keyed in any case). The
// columns of a table that columns leaves out are inspected through q on
// first use. The maps are copied.
func (db *DB) KnownCatalog(q dialects.DBTX, tables map[string]string, columns map[string]map[string]string) *Catalog {
	c := &Catalog{db: db, q: q, tables: make(map[string]string, len(tables)), cols: make(map[string]map[string]string, len(columns))}
	for k, v := range tables {
		c.tables[strings.ToUpper(k)] = v
	}
	for k, m := range columns {
		up := make(map[string]string, len(m))
		for col, real := range m {
			up[strings.ToUpper(col)] = real
		}
		c.cols[strings.ToUpper(k)] = up
	}
	return c
}

// Has reports whether the database has the documented table.
func (c *Catalog) Has(table string) bool { _, ok := c.tables[strings.ToUpper(table)]; return ok }

// Table returns the quoted, schema-qualified real name of a documented
// table, or an error saying it is missing.
func (c *Catalog) Table(table string) (string, error) {
	if !c.Has(table) {
		return "", &MissingTableError{Table: table}
	}
	return c.qualified(table), nil
}

// Column returns the quoted real name of a documented column of a
// documented table, or an error naming what is missing.
func (c *Catalog) Column(ctx context.Context, table, column string) (string, error) {
	if !c.Has(table) {
		return "", &MissingTableError{Table: table}
	}
	return c.col(ctx, table, column)
}

// qualified is the quoted, schema-qualified real name of a table it has.
func (c *Catalog) qualified(table string) string {
	return dialects.Qualify(c.db.d, c.db.opts.Schema, c.tables[strings.ToUpper(table)])
}

// col returns the quoted real name of a documented column.
func (c *Catalog) col(ctx context.Context, table, column string) (string, error) {
	real, err := c.realCol(ctx, table, column)
	if err != nil {
		return "", err
	}
	return c.db.d.Quote(real), nil
}

// realCol returns the real name of a documented column, unquoted.
func (c *Catalog) realCol(ctx context.Context, table, column string) (string, error) {
	key := strings.ToUpper(table)
	m, ok := c.cols[key]
	if !ok {
		if m = c.db.kept.get(c.tables[key]); m != nil {
			c.cols[key] = m
		}
	}
	real, found := m[strings.ToUpper(column)]
	if !found && (m == nil || c.db.kept.has(c.tables[key]) && !c.fresh[key]) {
		// Read now: the table's columns were not read yet, or were kept
		// from an earlier catalogue and a column may have been added
		// since (ColumnAdder).
		infos, err := c.db.d.Columns(ctx, c.q, c.db.opts.Schema, c.tables[key])
		if err != nil {
			return "", fmt.Errorf("inspect table %s: %w", table, err)
		}
		m = map[string]string{}
		for _, ci := range infos {
			m[strings.ToUpper(ci.Name)] = ci.Name
		}
		c.setCols(key, m)
		real, found = m[strings.ToUpper(column)]
	}
	if !found {
		return "", fmt.Errorf("table %s has no column %s: %w", c.tables[key], column, errNoColumn)
	}
	return real, nil
}

// setCols records the columns of the documented table key (upper case),
// read through the catalogue's querier just now, and keeps them in the DB
// when it keeps columns.
func (c *Catalog) setCols(key string, m map[string]string) {
	c.cols[key] = m
	if c.fresh == nil {
		c.fresh = map[string]bool{}
	}
	c.fresh[key] = true
	c.db.kept.put(c.tables[key], m)
}

// keptColumns are the columns of tables by real name that a DB keeps
// from catalogue to catalogue (DB.KeepColumns); safe for concurrent use.
// A nil *keptColumns keeps nothing.
type keptColumns struct {
	mu sync.Mutex
	m  map[string]map[string]string
}

func (k *keptColumns) get(table string) map[string]string {
	if k == nil {
		return nil
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.m[table]
}

func (k *keptColumns) has(table string) bool { return k.get(table) != nil }

func (k *keptColumns) put(table string, m map[string]string) {
	if k == nil {
		return
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	k.m[table] = m
}

// KeepColumns has the catalogues of db read after it keep the columns of
// each table they read, for the catalogues after them, which read only
// the list of tables then: for a program that begins many snapshots one
// after the other (profdb serve: one a request), where reading the
// columns of each table a request touches again costs more than the
// request's own statements (information_schema on a server with many
// schemas). A column asked for that the kept columns lack has its table's
// columns read again (profdb adds its own new columns to older tables);
// a column dropped or renamed while the program runs is not seen. Call it
// before the DB is used from several goroutines.
func (db *DB) KeepColumns() {
	if db.kept == nil {
		db.kept = &keptColumns{m: map[string]map[string]string{}}
	}
}

// hasCols tells whether table has every one of the documented columns.
func (c *Catalog) hasCols(ctx context.Context, table string, columns ...string) (bool, error) {
	for _, col := range columns {
		if _, err := c.col(ctx, table, col); err != nil {
			if errors.Is(err, errNoColumn) {
				return false, nil
			}
			return false, err
		}
	}
	return true, nil
}

// errNoColumn is returned by col for a column the table does not have.
var errNoColumn = errors.New("no such column")

// mustCols returns quoted real names of the documented columns.
func (c *Catalog) mustCols(ctx context.Context, table string, columns ...string) ([]string, error) {
	out := make([]string, len(columns))
	for i, col := range columns {
		q, err := c.col(ctx, table, col)
		if err != nil {
			return nil, err
		}
		out[i] = q
	}
	return out, nil
}

// maxInList is the most INST_IDs a query names in an IN list (whereInsts);
// for more, it reads every result set's rows and the caller keeps those it
// asked for: a selection that large is a good part of the database.
const maxInList = 500

// whereInsts is the WHERE clause (with a leading space) that limits a
// table's rows to the result sets ids names, by its INST_ID column col
// (quoted), so that the INST_ID index finds them, and its arguments: ""
// (every row) when ids is empty or longer than maxInList.
func (c *Catalog) whereInsts(col string, ids []int64) (string, []any) {
	if len(ids) == 0 || len(ids) > maxInList {
		return "", nil
	}
	if len(ids) == 1 {
		return " WHERE " + col + " = " + c.db.d.Placeholder(1), []any{ids[0]}
	}
	ps := make([]string, len(ids))
	args := make([]any, len(ids))
	for i, id := range ids {
		ps[i] = c.db.d.Placeholder(i + 1)
		args[i] = id
	}
	return " WHERE " + col + " IN (" + strings.Join(ps, ", ") + ")", args
}

// relations reads RELATIONS: for each INST_ID, child table → parent table
// ("" for NULL), of every result set or, when ids names some, of those (and
// perhaps others: see whereInsts).
func (c *Catalog) relations(ctx context.Context, ids []int64) (map[int64]map[string]string, error) {
	out := map[int64]map[string]string{}
	if !c.Has(profilers.RelationsTable) {
		return out, nil
	}
	cols, err := c.mustCols(ctx, profilers.RelationsTable, ddl.InstID, "COL_CHILD_TABLE", "COL_PARENT_TABLE")
	if err != nil {
		return nil, err
	}
	where, args := c.whereInsts(cols[0], ids)
	q := fmt.Sprintf("SELECT %s, %s, %s FROM %s%s", cols[0], cols[1], cols[2], c.qualified(profilers.RelationsTable), where)
	rows, err := c.q.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("read RELATIONS: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var child, parent sql.NullString
		if err := rows.Scan(&id, &child, &parent); err != nil {
			return nil, fmt.Errorf("read RELATIONS: %w", err)
		}
		if out[id] == nil {
			out[id] = map[string]string{}
		}
		out[id][strings.ToUpper(child.String)] = strings.ToUpper(parent.String)
	}
	return out, rows.Err()
}

// profilerOf finds the registered profiler whose tables RELATIONS lists.
func profilerOf(rel map[string]string) (profilers.Definition, bool) {
	for child := range rel {
		if d, ok := profilers.ForTable(child); ok {
			return d, true
		}
	}
	return profilers.Definition{}, false
}

// countByInst counts the rows of table per INST_ID: of every result set
// (one GROUP BY over the whole table) when insts is nil, else of the
// result sets insts names (one count each, along the INST_ID index).
func (c *Catalog) countByInst(ctx context.Context, table string, insts []int64) (map[int64]int64, error) {
	if insts == nil {
		return c.countAll(ctx, table)
	}
	inst, err := c.col(ctx, table, ddl.InstID)
	if err != nil {
		return nil, err
	}
	q := fmt.Sprintf("SELECT COUNT(*) FROM %s WHERE %s = %s", c.qualified(table), inst, c.db.d.Placeholder(1))
	m := make(map[int64]int64, len(insts))
	for _, id := range insts {
		var n int64
		if err := c.q.QueryRowContext(ctx, q, id).Scan(&n); err != nil {
			return nil, fmt.Errorf("count rows of %s: %w", table, err)
		}
		m[id] = n
	}
	return m, nil
}

// countAll counts the rows of table per INST_ID.
func (c *Catalog) countAll(ctx context.Context, table string) (map[int64]int64, error) {
	inst, err := c.col(ctx, table, ddl.InstID)
	if err != nil {
		return nil, err
	}
	rows, err := c.q.QueryContext(ctx, fmt.Sprintf("SELECT %s, COUNT(*) FROM %s GROUP BY %s", inst, c.qualified(table), inst))
	if err != nil {
		return nil, fmt.Errorf("count rows of %s: %w", table, err)
	}
	defer rows.Close()
	m := map[int64]int64{}
	for rows.Next() {
		var id, n int64
		if err := rows.Scan(&id, &n); err != nil {
			return nil, fmt.Errorf("count rows of %s: %w", table, err)
		}
		m[id] = n
	}
	return m, rows.Err()
}

package exporter

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/dustin/go-humanize/english"

	"github.com/profdb/profdb/ddl"
	"github.com/profdb/profdb/dialects"
	"github.com/profdb/profdb/profilers"
	"github.com/profdb/profdb/resultset"
)

// catalog is the set of existing tables, by upper-case name, with their
// real names; columns are inspected on demand.
type catalog struct {
	db     *DB
	q      dialects.DBTX
	tables map[string]string
	cols   map[string]map[string]string
}

func (db *DB) catalog(ctx context.Context, q dialects.DBTX) (*catalog, error) {
	names, err := db.d.Tables(ctx, q, db.opts.Schema)
	if err != nil {
		return nil, fmt.Errorf("list tables: %w", err)
	}
	c := &catalog{db: db, q: q, tables: map[string]string{}, cols: map[string]map[string]string{}}
	for _, n := range names {
		c.tables[strings.ToUpper(n)] = n
	}
	return c, nil
}

func (c *catalog) has(table string) bool { _, ok := c.tables[strings.ToUpper(table)]; return ok }

func (c *catalog) qualified(table string) string {
	return c.db.d.Qualify(c.db.opts.Schema, c.tables[strings.ToUpper(table)])
}

// col returns the quoted real name of a documented column.
func (c *catalog) col(ctx context.Context, table, column string) (string, error) {
	key := strings.ToUpper(table)
	m, ok := c.cols[key]
	if !ok {
		infos, err := c.db.d.Columns(ctx, c.q, c.db.opts.Schema, c.tables[key])
		if err != nil {
			return "", fmt.Errorf("inspect table %s: %w", table, err)
		}
		m = map[string]string{}
		for _, ci := range infos {
			m[strings.ToUpper(ci.Name)] = ci.Name
		}
		c.cols[key] = m
	}
	real, ok := m[strings.ToUpper(column)]
	if !ok {
		return "", fmt.Errorf("table %s has no column %s: %w", c.tables[key], column, errNoColumn)
	}
	return c.db.d.Quote(real), nil
}

// hasCols tells whether table has every one of the documented columns.
func (c *catalog) hasCols(ctx context.Context, table string, columns ...string) (bool, error) {
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
func (c *catalog) mustCols(ctx context.Context, table string, columns ...string) ([]string, error) {
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

// Listing describes one result set in INSTANCES.
type Listing struct {
	InstID   int64            `json:"inst_id"`
	Profiler string           `json:"profiler"` // "" when RELATIONS names no registered profiler
	Caption  string           `json:"caption"`
	Rows     int64            `json:"rows"`
	Tables   map[string]int64 `json:"tables"`
	// What PROFDB_RESULT_SETS records, when the database has that table
	// and a row for the result set ("" otherwise): when it was exported
	// (UTC, TimeFormat), on which host, from what input, by which profdb.
	ExportedAt string `json:"exported_at,omitempty"`
	Host       string `json:"host,omitempty"`
	Input      string `json:"input,omitempty"`
	Version    string `json:"profdb_version,omitempty"`
}

// relations reads RELATIONS: for each INST_ID, child table → parent table
// ("" for NULL).
func (c *catalog) relations(ctx context.Context, inst *int64) (map[int64]map[string]string, error) {
	out := map[int64]map[string]string{}
	if !c.has(profilers.RelationsTable) {
		return out, nil
	}
	cols, err := c.mustCols(ctx, profilers.RelationsTable, ddl.InstID, "COL_CHILD_TABLE", "COL_PARENT_TABLE")
	if err != nil {
		return nil, err
	}
	q := fmt.Sprintf("SELECT %s, %s, %s FROM %s", cols[0], cols[1], cols[2], c.qualified(profilers.RelationsTable))
	var args []any
	if inst != nil {
		q += " WHERE " + cols[0] + " = " + c.db.d.Placeholder(1)
		args = append(args, *inst)
	}
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

// List returns the result sets in INSTANCES, by INST_ID, with each one's
// profiler (found from its RELATIONS rows), caption and row counts, read
// in one consistent snapshot.
func (db *DB) List(ctx context.Context) ([]Listing, error) {
	var out []Listing
	err := db.inSnapshot(ctx, func(s *snapshot) error {
		c, err := db.catalog(ctx, s.q)
		if err != nil {
			return err
		}
		out, err = c.list(ctx)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("list: %w", err)
	}
	return out, nil
}

func (c *catalog) list(ctx context.Context) ([]Listing, error) {
	if !c.has(profilers.InstancesTable) {
		return nil, nil
	}
	cols, err := c.mustCols(ctx, profilers.InstancesTable, ddl.InstID, "CAPTION")
	if err != nil {
		return nil, err
	}
	rows, err := c.q.QueryContext(ctx, fmt.Sprintf("SELECT %s, %s FROM %s ORDER BY %s",
		cols[0], cols[1], c.qualified(profilers.InstancesTable), cols[0]))
	if err != nil {
		return nil, fmt.Errorf("read INSTANCES: %w", err)
	}
	var out []Listing
	for rows.Next() {
		var l Listing
		var caption sql.NullString
		if err := rows.Scan(&l.InstID, &caption); err != nil {
			rows.Close()
			return nil, fmt.Errorf("read INSTANCES: %w", err)
		}
		l.Caption = caption.String
		l.Tables = map[string]int64{}
		out = append(out, l)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read INSTANCES: %w", err)
	}
	if err := c.recorded(ctx, out); err != nil {
		return nil, err
	}
	rels, err := c.relations(ctx, nil)
	if err != nil {
		return nil, err
	}
	counts := map[string]map[int64]int64{}
	for i := range out {
		def, ok := profilerOf(rels[out[i].InstID])
		if !ok {
			continue
		}
		out[i].Profiler = def.Name
		for _, t := range def.Tables {
			if !c.has(t.Name) {
				continue
			}
			m, ok := counts[t.Name]
			if !ok {
				if m, err = c.countByInst(ctx, t.Name); err != nil {
					return nil, err
				}
				counts[t.Name] = m
			}
			out[i].Tables[t.Name] = m[out[i].InstID]
			out[i].Rows += m[out[i].InstID]
		}
	}
	return out, nil
}

// recorded fills in what PROFDB_RESULT_SETS records of the listed result
// sets, when the database has that table.
func (c *catalog) recorded(ctx context.Context, out []Listing) error {
	if !c.has(profilers.ResultSetsTable) || len(out) == 0 {
		return nil
	}
	cols, err := c.mustCols(ctx, profilers.ResultSetsTable, ddl.InstID, profilers.ColExportedAt, profilers.ColHost,
		profilers.ColInput, profilers.ColVersion, profilers.ColDeletedAt)
	if err != nil {
		return err
	}
	at := make(map[int64]int, len(out))
	for i, l := range out {
		at[l.InstID] = i
	}
	rows, err := c.q.QueryContext(ctx, fmt.Sprintf("SELECT %s, %s, %s, %s, %s FROM %s WHERE %s IS NULL",
		cols[0], cols[1], cols[2], cols[3], cols[4], c.qualified(profilers.ResultSetsTable), cols[5]))
	if err != nil {
		return fmt.Errorf("read %s: %w", profilers.ResultSetsTable, err)
	}
	defer rows.Close()
	for rows.Next() {
		var inst int64
		var when, host, input, version sql.NullString
		if err := rows.Scan(&inst, &when, &host, &input, &version); err != nil {
			return fmt.Errorf("read %s: %w", profilers.ResultSetsTable, err)
		}
		if i, ok := at[inst]; ok {
			out[i].ExportedAt, out[i].Host, out[i].Input, out[i].Version = when.String, host.String, input.String, version.String
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read %s: %w", profilers.ResultSetsTable, err)
	}
	return nil
}

func (c *catalog) countByInst(ctx context.Context, table string) (map[int64]int64, error) {
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

// Finding is one problem Verify found.
type Finding struct {
	InstID  int64  `json:"inst_id"`
	Table   string `json:"table,omitempty"`
	Message string `json:"message"`
	// IDs are the ID column values of the rows at fault, ascending, the
	// first MaxFindingIDs of them; none when the finding is not about rows.
	IDs []int64 `json:"ids,omitempty"`
}

// MaxFindingIDs is how many row IDs a Finding lists at most.
const MaxFindingIDs = 20

// String formats the finding as verify prints it: "INST_ID n: TABLE: message".
func (f Finding) String() string {
	if f.Table != "" {
		return fmt.Sprintf("INST_ID %d: %s: %s", f.InstID, f.Table, f.Message)
	}
	return fmt.Sprintf("INST_ID %d: %s", f.InstID, f.Message)
}

// Verify checks result sets against the registered graph: their RELATIONS
// rows match it, no two rows of a table share an ID, every child row's
// PARENT_ID names an existing parent row of the same INST_ID, top-level rows
// hold -1 there (the checks export runs before it commits, see
// checkResultSet), and no table holds rows of an INST_ID that INSTANCES does
// not list. inst 0 checks every result set. Everything is read in one
// consistent snapshot, so result sets being exported or deleted meanwhile
// are either whole or absent.
func (db *DB) Verify(ctx context.Context, inst int64) ([]Finding, error) {
	var out []Finding
	err := db.inSnapshot(ctx, func(s *snapshot) error {
		c, err := db.catalog(ctx, s.q)
		if err != nil {
			return err
		}
		out, err = c.verify(ctx, inst)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("verify: %w", err)
	}
	return out, nil
}

func (c *catalog) verify(ctx context.Context, inst int64) ([]Finding, error) {
	if !c.has(profilers.InstancesTable) {
		if inst != 0 {
			return nil, fmt.Errorf("no result set %d: the database has no INSTANCES table", inst)
		}
		return nil, nil
	}
	list, err := c.list(ctx)
	if err != nil {
		return nil, err
	}
	known := map[int64]bool{}
	for _, l := range list {
		known[l.InstID] = true
	}
	if inst != 0 && !known[inst] {
		return nil, fmt.Errorf("no result set %d in INSTANCES", inst)
	}
	var instPtr *int64
	if inst != 0 {
		instPtr = &inst
	}
	rels, err := c.relations(ctx, instPtr)
	if err != nil {
		return nil, err
	}
	var out []Finding
	for _, l := range list {
		if inst != 0 && l.InstID != inst {
			continue
		}
		fs, err := c.checkResultSet(ctx, l.InstID, rels[l.InstID], nil)
		if err != nil {
			return nil, err
		}
		out = append(out, fs...)
	}
	if inst == 0 {
		ids := make([]int64, 0, len(rels))
		for id := range rels {
			if !known[id] {
				ids = append(ids, id)
			}
		}
		sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
		for _, id := range ids {
			out = append(out, Finding{InstID: id, Table: profilers.RelationsTable, Message: "rows of a result set that INSTANCES does not list"})
		}
		for _, def := range profilers.All() {
			for _, t := range def.Tables {
				if !c.has(t.Name) {
					continue
				}
				m, err := c.countByInst(ctx, t.Name)
				if err != nil {
					return nil, err
				}
				for id, n := range m {
					if !known[id] {
						out = append(out, Finding{InstID: id, Table: t.Name, Message: english.Plural(int(n), "row", "") + " of a result set that INSTANCES does not list"})
					}
				}
			}
		}
	}
	return out, nil
}

// idList names the rows at fault: "ID 3", "IDs 3, 5" or "IDs 3, 5, … and
// 12 more".
func idList(ids []int64, n int64) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = strconv.FormatInt(id, 10)
	}
	word := "IDs "
	if n == 1 {
		word = "ID "
	}
	out := word + strings.Join(s, ", ")
	if more := n - int64(len(ids)); more > 0 {
		out += fmt.Sprintf(" and %d more", more)
	}
	return out
}

func orNull(s string) string {
	if s == "" {
		return "NULL"
	}
	return s
}

// Delete removes one result set from every table, in one transaction, and
// returns the number of rows removed from the profiler's tables: the rows
// List counts, without those of INSTANCES and RELATIONS.
func (db *DB) Delete(ctx context.Context, inst int64) (int64, error) {
	d, err := db.DeleteAll(ctx, []int64{inst})
	if err != nil {
		return 0, err
	}
	return d[0].Rows, nil
}

// Deleted is a result set DeleteAll removed.
type Deleted struct {
	InstID int64 `json:"inst_id"`
	// Rows counts the rows removed from the profiler's tables, as List
	// counts them (INSTANCES and RELATIONS rows are not counted).
	Rows int64 `json:"rows"`
}

// DeleteAll removes the result sets insts from every table, all in one
// transaction: when one of them is not in INSTANCES, none is removed.
func (db *DB) DeleteAll(ctx context.Context, insts []int64) ([]Deleted, error) {
	if db.opts.ReadOnly {
		return nil, fmt.Errorf("delete: %w", errReadOnly)
	}
	out, err := db.deleteAll(ctx, insts)
	if err != nil {
		return nil, db.readOnlyError(ctx, err)
	}
	return out, nil
}

func (db *DB) deleteAll(ctx context.Context, insts []int64) ([]Deleted, error) {
	tx, err := db.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("delete: %w", err)
	}
	defer tx.Rollback()
	c, err := db.catalog(ctx, tx)
	if err != nil {
		return nil, fmt.Errorf("delete: %w", err)
	}
	if !c.has(profilers.InstancesTable) {
		return nil, fmt.Errorf("delete: no result set %d: the database has no INSTANCES table", insts[0])
	}
	tables := []string{}
	for _, def := range profilers.All() {
		for _, t := range def.Tables {
			if c.has(t.Name) {
				tables = append(tables, t.Name)
			}
		}
	}
	tables = append(tables, profilers.RelationsTable, profilers.InstancesTable)
	out := make([]Deleted, 0, len(insts))
	for _, inst := range insts {
		d := Deleted{InstID: inst}
		for _, t := range tables {
			if !c.has(t) {
				continue
			}
			col, err := c.col(ctx, t, ddl.InstID)
			if err != nil {
				return nil, fmt.Errorf("delete: %w", err)
			}
			res, err := tx.ExecContext(ctx, fmt.Sprintf("DELETE FROM %s WHERE %s = %s", c.qualified(t), col, db.d.Placeholder(1)), inst)
			if err != nil {
				return nil, fmt.Errorf("delete: table %s: %w", t, err)
			}
			n, _ := res.RowsAffected()
			switch t {
			case profilers.InstancesTable:
				if n == 0 {
					return nil, fmt.Errorf("delete: no result set %d in INSTANCES", inst)
				}
			case profilers.RelationsTable:
			default:
				d.Rows += n
			}
		}
		out = append(out, d)
	}
	if c.has(profilers.ResultSetsTable) {
		// The rows stay, marked, so that their INST_IDs are never given
		// out again.
		cols, err := c.mustCols(ctx, profilers.ResultSetsTable, ddl.InstID, profilers.ColDeletedAt)
		if err != nil {
			return nil, fmt.Errorf("delete: %w", err)
		}
		stmt := fmt.Sprintf("UPDATE %s SET %s = %s WHERE %s = %s", c.qualified(profilers.ResultSetsTable),
			cols[1], db.d.Placeholder(1), cols[0], db.d.Placeholder(2))
		when := db.bind(ddl.String, db.now().UTC().Format(TimeFormat))
		for _, d := range out {
			if _, err := tx.ExecContext(ctx, stmt, when, d.InstID); err != nil {
				return nil, fmt.Errorf("delete: table %s: %w", profilers.ResultSetsTable, err)
			}
		}
	}
	if db.opts.Phase != nil {
		db.opts.Phase(PhaseCommit)
	}
	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("delete: commit: %w", err)
	}
	return out, nil
}

// Read returns a stored result set. Its tables stream their rows from the
// database, ordered by ID and REC_ID, with values in canonical form. The
// whole result set is read in one consistent snapshot, held from Read until
// every table's rows have been read, an iterator stops early, or ctx ends:
// a caller that does not read every table must cancel ctx. The iterators
// must be consumed before db is closed.
func (db *DB) Read(ctx context.Context, inst int64) (*ResultSet, error) {
	return db.read(ctx, inst, true)
}

// ReadUnordered is Read without the order: each table's rows come in the
// order the database returns them most cheaply, usually the order they
// were written. It spares the database the sort that ORDER BY costs on a
// large table (MySQL sorts the whole table before it returns the first
// row, and so does PostgreSQL on a table it has no statistics of yet), so
// that the rows stream from the first. Where ID order is free
// (dialects.IndexOrdered: SQLite) the rows come by ID all the same. profdb
// copy reads through it: the target stores the same rows whatever their
// order.
func (db *DB) ReadUnordered(ctx context.Context, inst int64) (*ResultSet, error) {
	return db.read(ctx, inst, false)
}

func (db *DB) read(ctx context.Context, inst int64, ordered bool) (*ResultSet, error) {
	var rs *ResultSet
	err := db.inSnapshot(ctx, func(s *snapshot) error {
		c, err := db.catalog(ctx, s.q)
		if err != nil {
			return err
		}
		if rs, err = c.read(ctx, inst, ordered); err != nil {
			return err
		}
		s.keep = true
		s.own(ctx, rs)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read: %w", err)
	}
	return rs, nil
}

func (c *catalog) read(ctx context.Context, inst int64, ordered bool) (*ResultSet, error) {
	db := c.db
	if !c.has(profilers.InstancesTable) {
		return nil, fmt.Errorf("no result set %d: the database has no INSTANCES table", inst)
	}
	icols, err := c.mustCols(ctx, profilers.InstancesTable, "CAPTION", "COUNTER_NAME", "COUNTER_DESCRIPTION", "COUNTER_FREQUENCY", ddl.InstID)
	if err != nil {
		return nil, err
	}
	var caption, cname, cdesc sql.NullString
	var freq any
	err = c.q.QueryRowContext(ctx, fmt.Sprintf("SELECT %s, %s, %s, %s FROM %s WHERE %s = %s",
		icols[0], icols[1], icols[2], icols[3], c.qualified(profilers.InstancesTable), icols[4], db.d.Placeholder(1)), inst).
		Scan(&caption, &cname, &cdesc, &freq)
	if err == sql.ErrNoRows {
		return nil, fmt.Errorf("no result set %d in INSTANCES", inst)
	}
	if err != nil {
		return nil, fmt.Errorf("INSTANCES: %w", err)
	}
	rels, err := c.relations(ctx, &inst)
	if err != nil {
		return nil, err
	}
	def, ok := profilerOf(rels[inst])
	if !ok {
		return nil, fmt.Errorf("result set %d: RELATIONS names no registered profiler", inst)
	}
	rs := &ResultSet{Header: Header{Profiler: def.Name, Caption: caption.String}}
	if cname.Valid || cdesc.Valid || freq != nil {
		f, err := Canonical(ddl.Decimal, freq)
		if err != nil {
			return nil, fmt.Errorf("INSTANCES.COUNTER_FREQUENCY: %w", err)
		}
		rs.Counter = &Counter{Name: cname.String, Description: cdesc.String, Frequency: f}
	}
	for _, t := range def.Tables {
		if !c.has(t.Name) {
			continue
		}
		var names, quoted []string
		var types []ddl.Type
		for _, col := range t.Columns {
			if col.Name == ddl.InstID {
				continue
			}
			q, err := c.col(ctx, t.Name, col.Name)
			if err != nil {
				continue // a column the table does not have stays NULL
			}
			names, quoted, types = append(names, col.Name), append(quoted, q), append(types, col.Type)
		}
		inCol, err := c.col(ctx, t.Name, ddl.InstID)
		if err != nil {
			return nil, err
		}
		query := fmt.Sprintf("SELECT %s FROM %s WHERE %s = %s", strings.Join(quoted, ", "), c.qualified(t.Name), inCol, db.d.Placeholder(1))
		keys := []string{ddl.ID, ddl.RecID}
		if !ordered {
			keys = nil
			if io, ok := db.d.(dialects.IndexOrdered); ok && io.ReadsIndexOrdered() {
				keys = []string{ddl.ID}
			}
		}
		order := []string{}
		for _, k := range keys {
			if q, err := c.col(ctx, t.Name, k); err == nil {
				order = append(order, q)
			}
		}
		if len(order) > 0 {
			query += " ORDER BY " + strings.Join(order, ", ")
		}
		rs.Tables = append(rs.Tables, TableRows{Name: t.Name, Columns: names, Rows: rowsIter(ctx, c.q, t.Name, query, types, inst)})
	}
	return rs, nil
}

// own hands the snapshot to the tables of rs: it ends when every table's
// rows have been read, when an iterator stops early or fails, or when ctx
// ends, whichever comes first.
func (s *snapshot) own(ctx context.Context, rs *ResultSet) {
	if len(rs.Tables) == 0 {
		s.close()
		return
	}
	stop := context.AfterFunc(ctx, s.close)
	var mu sync.Mutex
	left := len(rs.Tables)
	for i := range rs.Tables {
		rows := rs.Tables[i].Rows
		rs.Tables[i].Rows = func(yield func([]any, error) bool) {
			whole := true
			rows(func(row []any, err error) bool {
				if !yield(row, err) || err != nil {
					whole = false
					return false
				}
				return true
			})
			mu.Lock()
			left--
			last := left == 0
			mu.Unlock()
			if !whole || last {
				stop()
				s.close()
			}
		}
	}
}

// readAhead is how many rows rowsIter reads ahead of its consumer, in
// batches of readBatch.
const (
	readBatch = 256
	readAhead = 4
)

// rowsIter yields the rows of query as canonical values. A goroutine reads
// and converts them readBatch rows at a time, up to readAhead batches ahead,
// so that reading the source overlaps with what the consumer does with the
// rows (writing them elsewhere, for profdb copy). Every row is a slice of
// its own, which the consumer may keep; the rows of a batch share one
// allocation.
func rowsIter(ctx context.Context, q dialects.DBTX, table, query string, types []ddl.Type, inst int64) func(func([]any, error) bool) {
	return func(yield func([]any, error) bool) {
		rows, err := q.QueryContext(ctx, query, inst)
		if err != nil {
			yield(nil, fmt.Errorf("read %s: %w", table, err))
			return
		}
		type batch struct {
			rows [][]any
			err  error
		}
		ch := make(chan batch, readAhead)
		stop := make(chan struct{})
		done := make(chan struct{})
		go func() {
			defer close(done)
			defer close(ch)
			defer rows.Close()
			send := func(b batch) bool {
				select {
				case ch <- b:
					return true
				case <-stop:
					return false
				}
			}
			width := len(types)
			raw := make([]any, width)
			ptrs := make([]any, width)
			for i := range raw {
				ptrs[i] = &raw[i]
			}
			rowNo := 0
			cur := make([][]any, 0, readBatch)
			var slab []any
			for rows.Next() {
				rowNo++
				if err := rows.Scan(ptrs...); err != nil {
					send(batch{rows: cur, err: fmt.Errorf("read %s, row %d: %w", table, rowNo, err)})
					return
				}
				if len(slab) < width {
					slab = make([]any, width*readBatch)
				}
				out := slab[:width:width]
				slab = slab[width:]
				for i, v := range raw {
					cv, err := Canonical(types[i], v)
					if err != nil {
						send(batch{rows: cur, err: fmt.Errorf("read %s, row %d: %w", table, rowNo, err)})
						return
					}
					out[i] = cv
				}
				cur = append(cur, out)
				if len(cur) == readBatch {
					if !send(batch{rows: cur}) {
						return
					}
					cur = make([][]any, 0, readBatch)
				}
			}
			if err := rows.Err(); err != nil {
				send(batch{rows: cur, err: fmt.Errorf("read %s: %w", table, err)})
				return
			}
			send(batch{rows: cur})
		}()
		// The reader ends (and closes rows) before the iterator returns.
		defer func() {
			close(stop)
			<-done
		}()
		for b := range ch {
			for _, row := range b.rows {
				if !yield(row, nil) {
					return
				}
			}
			if b.err != nil {
				yield(nil, b.err)
				return
			}
		}
	}
}

// Canonical turns a value scanned from a database into the canonical form
// of logical type t (see resultset.Convert): drivers return numbers as int64,
// float64, or text in []byte, and decimals with trailing zeros.
func Canonical(t ddl.Type, v any) (any, error) {
	if b, ok := v.([]byte); ok {
		v = string(b)
	}
	if v == nil {
		return nil, nil
	}
	switch t {
	case ddl.String:
		switch x := v.(type) {
		case string:
			return v, nil
		case int64:
			return strconv.FormatInt(x, 10), nil
		case float64:
			return strconv.FormatFloat(x, 'g', -1, 64), nil
		}
	case ddl.Integer:
		switch x := v.(type) {
		case int64:
			return v, nil
		case int32:
			return int64(x), nil
		case float64:
			return resultset.Convert(ddl.Integer, x)
		case string:
			return resultset.Convert(ddl.Integer, json.Number(x))
		}
	case ddl.Decimal:
		switch x := v.(type) {
		case int64:
			return dialects.Dec(strconv.FormatInt(x, 10)), nil
		case float64:
			return resultset.ParseDecimal(strconv.FormatFloat(x, 'f', -1, 64))
		case string:
			return resultset.ParseDecimal(x)
		}
	case ddl.Float:
		switch x := v.(type) {
		case float64:
			return v, nil
		case float32:
			return float64(x), nil
		case int64:
			return float64(x), nil
		case string:
			return strconv.ParseFloat(x, 64)
		}
	}
	return nil, fmt.Errorf("cannot read %T as %s", v, t)
}

// Catalog is what a database holds, as read through one querier: its
// tables and, looked up on first use and kept, their columns, each found
// case-insensitively by its documented name. Readers of result sets
// (package readback) build their queries through it.
type Catalog struct{ c *catalog }

// Catalog lists the tables of the database (in Options.Schema) through q,
// for example a Snapshot's querier.
func (db *DB) Catalog(ctx context.Context, q dialects.DBTX) (*Catalog, error) {
	c, err := db.catalog(ctx, q)
	if err != nil {
		return nil, err
	}
	return &Catalog{c}, nil
}

// Has reports whether the database has the documented table.
func (c *Catalog) Has(table string) bool { return c.c.has(table) }

// Table returns the quoted, schema-qualified real name of a documented
// table, or an error saying it is missing.
func (c *Catalog) Table(table string) (string, error) {
	if !c.c.has(table) {
		return "", fmt.Errorf("table %s is missing", table)
	}
	return c.c.qualified(table), nil
}

// Column returns the quoted real name of a documented column of a
// documented table, or an error naming what is missing.
func (c *Catalog) Column(ctx context.Context, table, column string) (string, error) {
	if !c.c.has(table) {
		return "", fmt.Errorf("table %s is missing", table)
	}
	return c.c.col(ctx, table, column)
}

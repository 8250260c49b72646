package exporter

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/profdb/profdb/ddl"
	"github.com/profdb/profdb/dialects"
	"github.com/profdb/profdb/profilers"
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
		return "", fmt.Errorf("table %s has no column %s", c.tables[key], column)
	}
	return c.db.d.Quote(real), nil
}

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
// profiler (found from its RELATIONS rows), caption and row counts.
func (db *DB) List(ctx context.Context) ([]Listing, error) {
	c, err := db.catalog(ctx, db.db)
	if err != nil {
		return nil, fmt.Errorf("list: %w", err)
	}
	if !c.has(profilers.InstancesTable) {
		return nil, nil
	}
	cols, err := c.mustCols(ctx, profilers.InstancesTable, ddl.InstID, "CAPTION")
	if err != nil {
		return nil, fmt.Errorf("list: %w", err)
	}
	rows, err := db.db.QueryContext(ctx, fmt.Sprintf("SELECT %s, %s FROM %s ORDER BY %s",
		cols[0], cols[1], c.qualified(profilers.InstancesTable), cols[0]))
	if err != nil {
		return nil, fmt.Errorf("list: read INSTANCES: %w", err)
	}
	var out []Listing
	for rows.Next() {
		var l Listing
		var caption sql.NullString
		if err := rows.Scan(&l.InstID, &caption); err != nil {
			rows.Close()
			return nil, fmt.Errorf("list: read INSTANCES: %w", err)
		}
		l.Caption = caption.String
		l.Tables = map[string]int64{}
		out = append(out, l)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list: read INSTANCES: %w", err)
	}
	rels, err := c.relations(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("list: %w", err)
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
					return nil, fmt.Errorf("list: %w", err)
				}
				counts[t.Name] = m
			}
			out[i].Tables[t.Name] = m[out[i].InstID]
			out[i].Rows += m[out[i].InstID]
		}
	}
	return out, nil
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
}

// String formats the finding as verify prints it: "INST_ID n: TABLE: message".
func (f Finding) String() string {
	if f.Table != "" {
		return fmt.Sprintf("INST_ID %d: %s: %s", f.InstID, f.Table, f.Message)
	}
	return fmt.Sprintf("INST_ID %d: %s", f.InstID, f.Message)
}

// Verify checks result sets against the registered graph: their RELATIONS
// rows match it, every child row's PARENT_ID names an existing parent row of
// the same INST_ID, top-level rows hold -1 there, and no table holds rows of
// an INST_ID that INSTANCES does not list. inst 0 checks every result set.
func (db *DB) Verify(ctx context.Context, inst int64) ([]Finding, error) {
	c, err := db.catalog(ctx, db.db)
	if err != nil {
		return nil, fmt.Errorf("verify: %w", err)
	}
	if !c.has(profilers.InstancesTable) {
		if inst != 0 {
			return nil, fmt.Errorf("verify: no result set %d: the database has no INSTANCES table", inst)
		}
		return nil, nil
	}
	list, err := db.List(ctx)
	if err != nil {
		return nil, fmt.Errorf("verify: %w", err)
	}
	known := map[int64]bool{}
	for _, l := range list {
		known[l.InstID] = true
	}
	if inst != 0 && !known[inst] {
		return nil, fmt.Errorf("verify: no result set %d in INSTANCES", inst)
	}
	var instPtr *int64
	if inst != 0 {
		instPtr = &inst
	}
	rels, err := c.relations(ctx, instPtr)
	if err != nil {
		return nil, fmt.Errorf("verify: %w", err)
	}
	var out []Finding
	for _, l := range list {
		if inst != 0 && l.InstID != inst {
			continue
		}
		fs, err := db.verifyOne(ctx, c, l.InstID, rels[l.InstID])
		if err != nil {
			return nil, fmt.Errorf("verify: %w", err)
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
					return nil, fmt.Errorf("verify: %w", err)
				}
				for id, n := range m {
					if !known[id] {
						out = append(out, Finding{InstID: id, Table: t.Name, Message: fmt.Sprintf("%d rows of a result set that INSTANCES does not list", n)})
					}
				}
			}
		}
	}
	return out, nil
}

func (db *DB) verifyOne(ctx context.Context, c *catalog, inst int64, rel map[string]string) ([]Finding, error) {
	if len(rel) == 0 {
		return []Finding{{InstID: inst, Table: profilers.RelationsTable, Message: "no RELATIONS rows: the result set's profiler is unknown"}}, nil
	}
	def, ok := profilerOf(rel)
	if !ok {
		return []Finding{{InstID: inst, Table: profilers.RelationsTable, Message: "RELATIONS names no table of a registered profiler"}}, nil
	}
	var out []Finding
	for _, t := range def.Tables {
		parent, listed := rel[t.Name]
		switch {
		case !listed:
			out = append(out, Finding{InstID: inst, Table: profilers.RelationsTable, Message: fmt.Sprintf("no row for table %s (profiler %s)", t.Name, def.Name)})
		case parent != t.Parent:
			out = append(out, Finding{InstID: inst, Table: profilers.RelationsTable,
				Message: fmt.Sprintf("table %s has parent %s; profiler %s says %s", t.Name, orNull(parent), def.Name, orNull(t.Parent))})
		}
	}
	for child := range rel {
		if _, ok := def.Table(child); !ok {
			out = append(out, Finding{InstID: inst, Table: profilers.RelationsTable, Message: fmt.Sprintf("row for table %s, which profiler %s does not have", child, def.Name)})
		}
	}
	for _, t := range def.Tables {
		if !c.has(t.Name) {
			continue
		}
		cols, err := c.mustCols(ctx, t.Name, ddl.InstID, ddl.ParentID)
		if err != nil {
			return nil, err
		}
		ph := db.d.Placeholder(1)
		var q string
		if t.Parent == "" {
			q = fmt.Sprintf("SELECT COUNT(*) FROM %s WHERE %s = %s AND %s <> -1", c.qualified(t.Name), cols[0], ph, cols[1])
		} else {
			if !c.has(t.Parent) {
				continue
			}
			pcols, err := c.mustCols(ctx, t.Parent, ddl.InstID, ddl.ID)
			if err != nil {
				return nil, err
			}
			q = fmt.Sprintf("SELECT COUNT(*) FROM %s c WHERE c.%s = %s AND NOT EXISTS (SELECT 1 FROM %s p WHERE p.%s = c.%s AND p.%s = c.%s)",
				c.qualified(t.Name), cols[0], ph, c.qualified(t.Parent), pcols[0], cols[0], pcols[1], cols[1])
		}
		var n int64
		if err := db.db.QueryRowContext(ctx, q, inst).Scan(&n); err != nil {
			return nil, fmt.Errorf("check %s: %w", t.Name, err)
		}
		if n > 0 {
			msg := fmt.Sprintf("%d rows whose PARENT_ID is not -1 (the table is top-level)", n)
			if t.Parent != "" {
				msg = fmt.Sprintf("%d rows whose PARENT_ID names no row of %s", n, t.Parent)
			}
			out = append(out, Finding{InstID: inst, Table: t.Name, Message: msg})
		}
	}
	return out, nil
}

func orNull(s string) string {
	if s == "" {
		return "NULL"
	}
	return s
}

// Delete removes one result set from every table, in one transaction, and
// returns the number of rows removed.
func (db *DB) Delete(ctx context.Context, inst int64) (int64, error) {
	tx, err := db.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, fmt.Errorf("delete: %w", err)
	}
	defer tx.Rollback()
	c, err := db.catalog(ctx, tx)
	if err != nil {
		return 0, fmt.Errorf("delete: %w", err)
	}
	if !c.has(profilers.InstancesTable) {
		return 0, fmt.Errorf("delete: no result set %d: the database has no INSTANCES table", inst)
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
	var total int64
	for _, t := range tables {
		if !c.has(t) {
			continue
		}
		col, err := c.col(ctx, t, ddl.InstID)
		if err != nil {
			return 0, fmt.Errorf("delete: %w", err)
		}
		res, err := tx.ExecContext(ctx, fmt.Sprintf("DELETE FROM %s WHERE %s = %s", c.qualified(t), col, db.d.Placeholder(1)), inst)
		if err != nil {
			return 0, fmt.Errorf("delete: table %s: %w", t, err)
		}
		n, _ := res.RowsAffected()
		if t == profilers.InstancesTable && n == 0 {
			return 0, fmt.Errorf("delete: no result set %d in INSTANCES", inst)
		}
		total += n
	}
	if err := tx.Commit(); err != nil {
		return 0, fmt.Errorf("delete: commit: %w", err)
	}
	return total, nil
}

// Read returns a stored result set. Its tables stream their rows from the
// database, ordered by ID and REC_ID, with values in canonical form; the
// iterators use db and must be consumed before db is closed.
func (db *DB) Read(ctx context.Context, inst int64) (*ResultSet, error) {
	c, err := db.catalog(ctx, db.db)
	if err != nil {
		return nil, fmt.Errorf("read: %w", err)
	}
	if !c.has(profilers.InstancesTable) {
		return nil, fmt.Errorf("read: no result set %d: the database has no INSTANCES table", inst)
	}
	icols, err := c.mustCols(ctx, profilers.InstancesTable, "CAPTION", "COUNTER_NAME", "COUNTER_DESCRIPTION", "COUNTER_FREQUENCY", ddl.InstID)
	if err != nil {
		return nil, fmt.Errorf("read: %w", err)
	}
	var caption, cname, cdesc sql.NullString
	var freq any
	err = db.db.QueryRowContext(ctx, fmt.Sprintf("SELECT %s, %s, %s, %s FROM %s WHERE %s = %s",
		icols[0], icols[1], icols[2], icols[3], c.qualified(profilers.InstancesTable), icols[4], db.d.Placeholder(1)), inst).
		Scan(&caption, &cname, &cdesc, &freq)
	if err == sql.ErrNoRows {
		return nil, fmt.Errorf("read: no result set %d in INSTANCES", inst)
	}
	if err != nil {
		return nil, fmt.Errorf("read: INSTANCES: %w", err)
	}
	rels, err := c.relations(ctx, &inst)
	if err != nil {
		return nil, fmt.Errorf("read: %w", err)
	}
	def, ok := profilerOf(rels[inst])
	if !ok {
		return nil, fmt.Errorf("read: result set %d: RELATIONS names no registered profiler", inst)
	}
	rs := &ResultSet{Header: Header{Profiler: def.Name, Caption: caption.String}}
	if cname.Valid || cdesc.Valid || freq != nil {
		f, err := Canonical(ddl.Decimal, freq)
		if err != nil {
			return nil, fmt.Errorf("read: INSTANCES.COUNTER_FREQUENCY: %w", err)
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
			return nil, fmt.Errorf("read: %w", err)
		}
		order := []string{}
		for _, k := range []string{ddl.ID, ddl.RecID} {
			if q, err := c.col(ctx, t.Name, k); err == nil {
				order = append(order, q)
			}
		}
		query := fmt.Sprintf("SELECT %s FROM %s WHERE %s = %s", strings.Join(quoted, ", "), c.qualified(t.Name), inCol, db.d.Placeholder(1))
		if len(order) > 0 {
			query += " ORDER BY " + strings.Join(order, ", ")
		}
		rs.Tables = append(rs.Tables, TableRows{Name: t.Name, Columns: names, Rows: db.rowsIter(ctx, t.Name, query, types, inst)})
	}
	return rs, nil
}

func (db *DB) rowsIter(ctx context.Context, table, query string, types []ddl.Type, inst int64) func(func([]any, error) bool) {
	return func(yield func([]any, error) bool) {
		rows, err := db.db.QueryContext(ctx, query, inst)
		if err != nil {
			yield(nil, fmt.Errorf("read %s: %w", table, err))
			return
		}
		defer rows.Close()
		raw := make([]any, len(types))
		ptrs := make([]any, len(types))
		for i := range raw {
			ptrs[i] = &raw[i]
		}
		rowNo := 0
		for rows.Next() {
			rowNo++
			if err := rows.Scan(ptrs...); err != nil {
				yield(nil, fmt.Errorf("read %s, row %d: %w", table, rowNo, err))
				return
			}
			out := make([]any, len(types))
			for i, v := range raw {
				cv, err := Canonical(types[i], v)
				if err != nil {
					yield(nil, fmt.Errorf("read %s, row %d: %w", table, rowNo, err))
					return
				}
				out[i] = cv
			}
			if !yield(out, nil) {
				return
			}
		}
		if err := rows.Err(); err != nil {
			yield(nil, fmt.Errorf("read %s: %w", table, err))
		}
	}
}

// Canonical turns a value scanned from a database into the canonical form
// of logical type t (see Convert): drivers return numbers as int64,
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
			return x, nil
		case int64:
			return strconv.FormatInt(x, 10), nil
		case float64:
			return strconv.FormatFloat(x, 'g', -1, 64), nil
		}
	case ddl.Integer:
		switch x := v.(type) {
		case int64:
			return x, nil
		case int32:
			return int64(x), nil
		case float64:
			return floatToInt64(x)
		case string:
			return numberToInt64(x)
		}
	case ddl.Decimal:
		switch x := v.(type) {
		case int64:
			return dialects.Dec(strconv.FormatInt(x, 10)), nil
		case float64:
			return ParseDecimal(strconv.FormatFloat(x, 'f', -1, 64))
		case string:
			return ParseDecimal(x)
		}
	case ddl.Float:
		switch x := v.(type) {
		case float64:
			return x, nil
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

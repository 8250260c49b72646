package readback

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/jmoiron/sqlx"
	"github.com/jmoiron/sqlx/reflectx"

	"github.com/profdb/profdb/ddl"
	"github.com/profdb/profdb/dialects"
	"github.com/profdb/profdb/exporter"
	"github.com/profdb/profdb/profilers"
)

// Reader reads result sets from one snapshot of a database. It is not safe
// for concurrent use; Close it when done.
type Reader struct {
	snap   *exporter.Snapshot
	q      dialects.DBTX
	mapper *reflectx.Mapper
	d      dialects.Dialect
	cat    *exporter.Catalog // the tables and columns, read in the snapshot
	owned  *exporter.DB      // closed by Close when Open opened it
}

// Open opens the database a DSN names (see exporter.Open) read-only
// (Options.ReadOnly) and begins reading it; Close closes both.
func Open(ctx context.Context, dsn string, o exporter.Options) (*Reader, error) {
	o.ReadOnly = true
	db, err := exporter.Open(ctx, dsn, o)
	if err != nil {
		return nil, err
	}
	r, err := Begin(ctx, db)
	if err != nil {
		db.Close()
		return nil, err
	}
	r.owned = db
	return r, nil
}

// Begin starts reading db in one consistent snapshot (exporter.Snapshot:
// a read-only REPEATABLE READ transaction on PostgreSQL, a consistent
// snapshot on MySQL/MariaDB, a read transaction on SQLite, SNAPSHOT
// isolation on SQL Server where the database allows it) and reads its
// catalogue.
func Begin(ctx context.Context, db *exporter.DB) (*Reader, error) {
	d := db.Dialect()
	snap, err := db.BeginSnapshot(ctx)
	if err != nil {
		return nil, fmt.Errorf("read: begin: %w", err)
	}
	r := &Reader{snap: snap, q: snap.Querier(), mapper: sqlx.NewDb(db.SQL(), d.DriverName()).Mapper, d: d}
	if r.cat, err = db.Catalog(ctx, r.q); err != nil {
		snap.Close()
		return nil, fmt.Errorf("read: %w", err)
	}
	return r, nil
}

// Close ends the snapshot, and closes the database if Open opened it.
func (r *Reader) Close() error {
	r.snap.Close()
	if r.owned != nil {
		if err := r.owned.Close(); err != nil {
			return fmt.Errorf("read: close: %w", err)
		}
	}
	return nil
}

// has reports whether the database has the documented table.
func (r *Reader) has(table string) bool { return r.cat.Has(table) }

// table returns the quoted, schema-qualified real name of a documented table.
func (r *Reader) table(table string) (string, error) { return r.cat.Table(table) }

// col returns the quoted real name of a documented column.
func (r *Reader) col(ctx context.Context, table, column string) (string, error) {
	return r.cat.Column(ctx, table, column)
}

// sqlText builds a query from a template in which {T} names a documented
// table (qualified and quoted, as the database has it), {T.C} a column of
// it, {alias:T} a table with an alias and {alias.T.C} a column through an
// alias, and each {?} a parameter: the INST_ID, bound once per {?}. Every
// table and column must exist. It returns the query and its parameter count.
func (r *Reader) sqlText(ctx context.Context, tmpl string) (string, int, error) {
	var b strings.Builder
	params := 0
	for {
		i := strings.IndexByte(tmpl, '{')
		if i < 0 {
			b.WriteString(tmpl)
			return b.String(), params, nil
		}
		j := strings.IndexByte(tmpl[i:], '}')
		if j < 0 {
			return "", 0, fmt.Errorf("internal: unclosed { in query template")
		}
		b.WriteString(tmpl[:i])
		ref := tmpl[i+1 : i+j]
		tmpl = tmpl[i+j+1:]
		if ref == "?" {
			params++
			b.WriteString(r.d.Placeholder(params))
			continue
		}
		s, err := r.expand(ctx, ref)
		if err != nil {
			return "", 0, err
		}
		b.WriteString(s)
	}
}

func (r *Reader) expand(ctx context.Context, ref string) (string, error) {
	if alias, t, ok := strings.Cut(ref, ":"); ok {
		q, err := r.table(t)
		if err != nil {
			return "", err
		}
		return q + " " + alias, nil
	}
	parts := strings.Split(ref, ".")
	switch len(parts) {
	case 1:
		return r.table(parts[0])
	case 2:
		return r.col(ctx, parts[0], parts[1])
	case 3:
		c, err := r.col(ctx, parts[1], parts[2])
		if err != nil {
			return "", err
		}
		return parts[0] + "." + c, nil
	}
	return "", fmt.Errorf("internal: bad reference {%s} in query template", ref)
}

// query runs a query template with INST_ID inst for its parameters and
// calls each with every row scanned into a new T, until each returns false.
func query[T any](ctx context.Context, r *Reader, inst int64, tmpl string, each func(*T) bool) error {
	errStop := errors.New("stop")
	err := scan(ctx, r, inst, tmpl, func(rows *sqlx.Rows) error {
		v := new(T)
		if err := rows.StructScan(v); err != nil {
			return fmt.Errorf("scan: %w", err)
		}
		if !each(v) {
			return errStop
		}
		return nil
	})
	if err == errStop {
		return nil
	}
	return err
}

// scan runs a query template with INST_ID inst for its parameters and
// calls each with every row, which it scans with rows.Scan: for the queries
// of millions of rows, where struct scanning by reflection costs.
func scan(ctx context.Context, r *Reader, inst int64, tmpl string, each func(*sqlx.Rows) error) error {
	q, n, err := r.sqlText(ctx, tmpl)
	if err != nil {
		return err
	}
	args := make([]any, n)
	for i := range args {
		args[i] = inst
	}
	raw, err := r.q.QueryContext(ctx, q, args...)
	if err != nil {
		return fmt.Errorf("query: %w", err)
	}
	rows := &sqlx.Rows{Rows: raw, Mapper: r.mapper}
	defer rows.Close()
	for rows.Next() {
		if err := each(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

// top runs a query template whose rows come best first and keeps the first
// n (all when n <= 0), counting the rest.
func top[T any](ctx context.Context, r *Reader, inst int64, n int, tmpl string) (List[T], error) {
	var l List[T]
	err := query(ctx, r, inst, tmpl, func(v *T) bool {
		l.Total++
		if n <= 0 || len(l.Items) < n {
			l.Items = append(l.Items, *v)
		}
		return true
	})
	return l, err
}

// List is a capped list: the first entries, best first, and how many
// there were in all.
type List[T any] struct {
	Items []T   `json:"items"`
	Total int64 `json:"total"`
}

// Omitted is the number of entries the list leaves out.
func (l List[T]) Omitted() int64 { return l.Total - int64(len(l.Items)) }

// Instance describes a result set: its INSTANCES row, its profiler and its
// rows per table.
type Instance struct {
	InstID             int64            `json:"inst_id" db:"inst_id"`
	Caption            string           `json:"caption" db:"caption"`
	Profiler           string           `json:"profiler" db:"-"`
	CounterName        string           `json:"counter_name,omitempty" db:"counter_name"`
	CounterDescription string           `json:"counter_description,omitempty" db:"counter_description"`
	CounterFrequency   Dec              `json:"counter_frequency,omitempty" db:"counter_frequency"`
	Rows               int64            `json:"rows" db:"-"`
	Tables             map[string]int64 `json:"tables" db:"-"`
}

type instanceRow struct {
	InstID             int64          `db:"inst_id"`
	Caption            sql.NullString `db:"caption"`
	CounterName        sql.NullString `db:"counter_name"`
	CounterDescription sql.NullString `db:"counter_description"`
	CounterFrequency   Dec            `db:"counter_frequency"`
}

// Instances lists the result sets in INSTANCES by INST_ID; ids limits the
// list to those (an error names one that is not there).
func (r *Reader) Instances(ctx context.Context, ids ...int64) ([]Instance, error) {
	if !r.has(profilers.InstancesTable) {
		return nil, fmt.Errorf("read: the database has no INSTANCES table: no result sets")
	}
	want := map[int64]bool{}
	for _, id := range ids {
		want[id] = true
	}
	var out []Instance
	err := query(ctx, r, 0, `SELECT {INSTANCES.INST_ID} AS inst_id, {INSTANCES.CAPTION} AS caption,
		{INSTANCES.COUNTER_NAME} AS counter_name, {INSTANCES.COUNTER_DESCRIPTION} AS counter_description,
		{INSTANCES.COUNTER_FREQUENCY} AS counter_frequency FROM {INSTANCES} ORDER BY {INSTANCES.INST_ID}`,
		func(row *instanceRow) bool {
			if len(ids) == 0 || want[row.InstID] {
				out = append(out, Instance{InstID: row.InstID, Caption: row.Caption.String, CounterName: row.CounterName.String,
					CounterDescription: row.CounterDescription.String, CounterFrequency: row.CounterFrequency})
				delete(want, row.InstID)
			}
			return true
		})
	if err != nil {
		return nil, fmt.Errorf("read INSTANCES: %w", err)
	}
	for _, id := range ids {
		if want[id] {
			return nil, fmt.Errorf("read: no result set %d in INSTANCES", id)
		}
	}
	for i := range out {
		if err := r.describe(ctx, &out[i]); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Instance returns one result set's description.
func (r *Reader) Instance(ctx context.Context, id int64) (Instance, error) {
	l, err := r.Instances(ctx, id)
	if err != nil {
		return Instance{}, err
	}
	return l[0], nil
}

type relationRow struct {
	Child sql.NullString `db:"child"`
}

// describe finds the result set's profiler from its RELATIONS rows and
// counts its rows per table.
func (r *Reader) describe(ctx context.Context, in *Instance) error {
	if !r.has(profilers.RelationsTable) {
		return fmt.Errorf("read: result set %d: the database has no RELATIONS table, which names its profiler", in.InstID)
	}
	var children []string
	err := query(ctx, r, in.InstID, `SELECT {RELATIONS.COL_CHILD_TABLE} AS child FROM {RELATIONS} WHERE {RELATIONS.INST_ID} = {?}`,
		func(row *relationRow) bool { children = append(children, row.Child.String); return true })
	if err != nil {
		return fmt.Errorf("read RELATIONS of result set %d: %w", in.InstID, err)
	}
	for _, c := range children {
		if def, ok := profilers.ForTable(c); ok {
			in.Profiler = def.Name
			break
		}
	}
	if in.Profiler == "" {
		if len(children) == 0 {
			return fmt.Errorf("read: result set %d has no RELATIONS rows: its profiler is unknown", in.InstID)
		}
		more := ""
		if len(children) > 2 {
			more = fmt.Sprintf(" and %d more", len(children)-2)
			children = children[:2]
		}
		return fmt.Errorf("read: result set %d: RELATIONS names tables of a profiler this build does not know (%s%s); known profilers: %s",
			in.InstID, strings.Join(children, ", "), more, strings.Join(profilers.Names(), ", "))
	}
	def, err := profilers.Lookup(in.Profiler)
	if err != nil {
		return fmt.Errorf("read: %w", err)
	}
	in.Tables = map[string]int64{}
	for _, t := range def.Tables {
		if !r.has(t.Name) {
			continue
		}
		var n struct {
			N int64 `db:"n"`
		}
		err := query(ctx, r, in.InstID, "SELECT COUNT(*) AS n FROM {"+t.Name+"} WHERE {"+t.Name+"."+ddl.InstID+"} = {?}",
			func(row *struct {
				N int64 `db:"n"`
			}) bool {
				n.N = row.N
				return false
			})
		if err != nil {
			return fmt.Errorf("read: count rows of %s: %w", t.Name, err)
		}
		in.Tables[t.Name] = n.N
		in.Rows += n.N
	}
	return nil
}

// need checks that the tables a profiler's figures are read from exist.
func (r *Reader) need(in Instance, tables ...string) error {
	def, err := profilers.Lookup(in.Profiler)
	if err != nil {
		return fmt.Errorf("read: %w", err)
	}
	for _, t := range tables {
		if _, ok := def.Table(t); !ok {
			return fmt.Errorf("internal: profiler %s has no table %s", in.Profiler, t)
		}
		if !r.has(t) {
			return fmt.Errorf("read: result set %d (%s): table %s is missing from the database", in.InstID, in.Profiler, t)
		}
	}
	return nil
}

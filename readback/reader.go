package readback

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/jmoiron/sqlx"
	"github.com/jmoiron/sqlx/reflectx"

	"github.com/profdb/profdb/ddl"
	"github.com/profdb/profdb/dialects"
	"github.com/profdb/profdb/profilers"
	"github.com/profdb/profdb/resultset"
	"github.com/profdb/profdb/store"
)

// Reader reads result sets from one snapshot of a database. It is not safe
// for concurrent use; Close it when done.
type Reader struct {
	snap   *store.Snapshot
	q      dialects.DBTX
	mapper *reflectx.Mapper
	d      dialects.Dialect
	cat    *store.Catalog // the tables and columns, read in the snapshot
	owned  *store.DB      // closed by Close when Open opened it
	cache  *FigureCache   // where FiguresOf keeps figures; nil for none
}

// Open opens the database a DSN names (see store.Open) read-only
// (store.Options.ReadOnly) and begins reading it; Close closes both.
func Open(ctx context.Context, dsn string, o store.Options) (*Reader, error) {
	o.ReadOnly = true
	db, err := store.Open(ctx, dsn, o)
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

// Begin starts reading db in one consistent snapshot (store.Snapshot:
// a read-only REPEATABLE READ transaction on PostgreSQL, a consistent
// snapshot on MySQL/MariaDB, a read transaction on SQLite, SNAPSHOT
// isolation on SQL Server where the database allows it) and reads its
// catalogue.
func Begin(ctx context.Context, db *store.DB) (*Reader, error) {
	d := db.Dialect()
	snap, err := db.BeginSnapshot(ctx)
	if err != nil {
		return nil, fmt.Errorf("read: begin: %w", err)
	}
	r := &Reader{snap: snap, q: snap.Querier(), mapper: sqlx.NewDb(db.SQL(), d.Facts().Driver).Mapper, d: d}
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
// alias, and each {?} or {?N} a parameter: {?} is the first argument (the
// INST_ID), {?N} the N-th, bound once per occurrence. Every table and
// column must exist. It returns the query and, per placeholder in order,
// the index of its argument.
func (r *Reader) sqlText(ctx context.Context, tmpl string) (string, []int, error) {
	var b strings.Builder
	var params []int
	for {
		i := strings.IndexByte(tmpl, '{')
		if i < 0 {
			b.WriteString(tmpl)
			return b.String(), params, nil
		}
		j := strings.IndexByte(tmpl[i:], '}')
		if j < 0 {
			return "", nil, fmt.Errorf("internal: unclosed { in query template")
		}
		b.WriteString(tmpl[:i])
		ref := tmpl[i+1 : i+j]
		tmpl = tmpl[i+j+1:]
		if n, ok := strings.CutPrefix(ref, "?"); ok {
			arg := 0
			if n != "" {
				k, err := strconv.Atoi(n)
				if err != nil || k < 1 {
					return "", nil, fmt.Errorf("internal: bad parameter {%s} in query template", ref)
				}
				arg = k - 1
			}
			params = append(params, arg)
			b.WriteString(r.d.Placeholder(len(params)))
			continue
		}
		s, err := r.expand(ctx, ref)
		if err != nil {
			return "", nil, err
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
	return r.rows(ctx, tmpl, []any{inst}, each)
}

// rows runs a query template with args for its parameters ({?N} is
// args[N-1]) and calls each with every row until it returns an error.
func (r *Reader) rows(ctx context.Context, tmpl string, args []any, each func(*sqlx.Rows) error) error {
	q, params, err := r.sqlText(ctx, tmpl)
	if err != nil {
		return err
	}
	bound := make([]any, len(params))
	for i, p := range params {
		if p >= len(args) {
			return fmt.Errorf("internal: query template parameter {?%d} has no argument", p+1)
		}
		bound[i] = args[p]
	}
	raw, err := r.q.QueryContext(ctx, q, bound...)
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

// Query runs a query over the documented tables, written as a template in
// which {T} names a table (qualified and quoted as the database has it),
// {T.C} a column of it, {alias:T} a table with an alias, {alias.T.C} a
// column through an alias, and {?N} the N-th of args ({?} the first),
// bound once per occurrence; every table and column must exist. The
// template's SQL must be portable across the dialects. Query calls each
// with every row, in the reader's snapshot, until each returns an error,
// which Query returns. It keeps no row: the rows stream.
func (r *Reader) Query(ctx context.Context, tmpl string, args []any, each func(*sql.Rows) error) error {
	return r.rows(ctx, tmpl, args, func(rows *sqlx.Rows) error { return each(rows.Rows) })
}

// Values runs a query template (as Query takes it) and calls each with
// every row, its values in the canonical form of types (store.Canonical),
// one type a selected column; the slice is reused from row to row. merge
// reads its inputs' rows through it.
func (r *Reader) Values(ctx context.Context, tmpl string, args []any, types []ddl.Type, each func(row []any) error) error {
	raw := make([]any, len(types))
	ptrs := make([]any, len(types))
	for i := range raw {
		ptrs[i] = &raw[i]
	}
	row := make([]any, len(types))
	return r.rows(ctx, tmpl, args, func(rows *sqlx.Rows) error {
		if err := rows.Scan(ptrs...); err != nil {
			return fmt.Errorf("scan: %w", err)
		}
		var err error
		for i, v := range raw {
			if row[i], err = store.Canonical(types[i], v); err != nil {
				return fmt.Errorf("scan: %w", err)
			}
		}
		return each(row)
	})
}

// Has reports whether the database has the documented table.
func (r *Reader) Has(table string) bool { return r.cat.Has(table) }

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

// Instance describes a result set: its INSTANCES row, its profiler and its
// rows per table.
type Instance struct {
	InstID             int64            `json:"inst_id"`
	Caption            string           `json:"caption"`
	Profiler           string           `json:"profiler"`
	CounterName        string           `json:"counter_name,omitempty"`
	CounterDescription string           `json:"counter_description,omitempty"`
	CounterFrequency   NullDec          `json:"counter_frequency,omitempty"`
	Rows               int64            `json:"rows"`
	Tables             map[string]int64 `json:"tables"`
	// Counter is the INSTANCES row's counter as a writer takes it, nil
	// when the row names none (merge writes it on).
	Counter *resultset.Counter `json:"-"`
	// Run is the run's identity where profdb recorded one, as list --json
	// gives it: Summarize and package compare read it (Runs); Instances
	// leaves it nil.
	Run *resultset.Run `json:"run,omitempty"`
	// exportedAt is when profdb's ledger says the result set was
	// exported, "" when it has no row there: a FigureCache keeps the
	// figures of a result set the ledger lists only.
	exportedAt string
}

// Instances lists the result sets in INSTANCES by INST_ID (store.Catalog's
// List); ids limits the list to those (an error names one that is not
// there). A result set whose profiler this build does not know is an error
// that names the tables its RELATIONS rows list.
func (r *Reader) Instances(ctx context.Context, ids ...int64) ([]Instance, error) {
	if !r.has(profilers.InstancesTable) {
		return nil, fmt.Errorf("read: %w", r.cat.NoInstances())
	}
	list, err := r.cat.List(ctx, ids...)
	if err != nil {
		return nil, fmt.Errorf("read: %w", err)
	}
	out := make([]Instance, len(list))
	for i, l := range list {
		if err := l.ProfilerErr(); err != nil {
			return nil, fmt.Errorf("read: %w", err)
		}
		out[i] = InstanceOf(l)
	}
	return out, nil
}

// InstanceOf returns the description of the result set a listing of the
// store describes (its rows counted only when the listing counted them).
func InstanceOf(l store.Listing) Instance {
	in := Instance{InstID: l.InstID, Caption: l.Caption, Profiler: l.Profiler, Rows: l.Rows, Tables: l.Tables, Counter: l.Counter, exportedAt: l.ExportedAt}
	if c := l.Counter; c != nil {
		in.CounterName, in.CounterDescription = c.Name, c.Description
		if c.Frequency != nil {
			in.CounterFrequency = NullDec(fmt.Sprint(c.Frequency))
		}
	}
	return in
}

// Instance returns one result set's description.
func (r *Reader) Instance(ctx context.Context, id int64) (Instance, error) {
	l, err := r.Instances(ctx, id)
	if err != nil {
		return Instance{}, err
	}
	return l[0], nil
}

// Need checks that the database has the documented tables of result set
// in's profiler that a figure is read from: an error that names the
// first one missing (errors.Is store.ErrMissingTable) when it has not.
func (r *Reader) Need(in Instance, tables ...string) error { return r.need(in, tables...) }

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
			return fmt.Errorf("read: %w", &store.MissingTableError{Table: t, InstID: in.InstID, Profiler: in.Profiler})
		}
	}
	return nil
}

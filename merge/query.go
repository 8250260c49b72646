package merge

import (
	"context"
	"fmt"
	"strings"

	"github.com/profdb/profdb/ddl"
	"github.com/profdb/profdb/profilers"
)

// column is a column a merge query selects: the name its rows are read by
// (query.at), its expression (a readback query template: {alias.table.column})
// and the type its values are read as.
type column struct {
	name, expr string
	typ        ddl.Type
}

// col is column name of table through alias, named name and read as the
// type its profiler's table gives it.
func col(alias, table, name string) column {
	return column{name: name, expr: "{" + alias + "." + table + "." + name + "}", typ: columnType(table, name)}
}

// columnType is the type of column name of a documented table, as the
// registered profilers define it. A column no profiler has is a bug of
// this package, not of the input: it panics, when the package's queries
// are built.
func columnType(table, name string) ddl.Type {
	for _, p := range profilers.Names() {
		if t, ok := profilers.MustLookup(p).Table(table); ok {
			for _, c := range t.Columns {
				if c.Name == name {
					return c.Type
				}
			}
		}
	}
	panic(fmt.Sprintf("merge: internal: no profiler has a column %s.%s", table, name))
}

// cols are the columns names of table through alias, as col makes them.
func cols(alias, table string, names ...string) []column {
	c := make([]column, len(names))
	for i, n := range names {
		c[i] = col(alias, table, n)
	}
	return c
}

// as renames a column, for a query that selects two columns of one name.
func (c column) as(name string) column { c.name = name; return c }

// query is a merge query of one result set: its columns, in order, and the
// rest of its text (FROM, WHERE, ORDER BY). Rows are read by column name:
// at resolves a name to its position in a row once, before the rows come.
type query struct {
	sql   string
	types []ddl.Type
	names []string
}

// newQuery selects cols, in order, then the rest of the query.
func newQuery(rest string, cols ...column) *query {
	q := &query{types: make([]ddl.Type, len(cols)), names: make([]string, len(cols))}
	exprs := make([]string, len(cols))
	for i, c := range cols {
		exprs[i], q.types[i], q.names[i] = c.expr, c.typ, c.name
	}
	q.sql = "SELECT " + strings.Join(exprs, ", ") + "\n\t\t" + rest
	return q
}

// at is the position of the named column in the query's rows. A name the
// query does not select is a bug of this package, not of the input: it
// panics, on the first merge of that profiler.
func (q *query) at(name string) int {
	if i := q.index(name); i >= 0 {
		return i
	}
	panic(fmt.Sprintf("merge: internal: query selects no column %q", name))
}

// index is the position of the named column in the query's rows, -1 if
// the query does not select it.
func (q *query) index(name string) int {
	for i, n := range q.names {
		if n == name {
			return i
		}
	}
	return -1
}

// tableQuery is the query of one table through alias, for one result set,
// in the order of the columns order: it selects the columns names.
func tableQuery(alias, table string, order []string, names ...string) *query {
	return newQuery(from(alias, table, order...), cols(alias, table, names...)...)
}

// The orders of tableQuery: by ID; by ID and REC_ID; a child table's rows
// by parent and REC_ID.
var (
	byID     = []string{"ID"}
	byIDRec  = []string{"ID", "REC_ID"}
	byParent = []string{"PARENT_ID", "REC_ID"}
)

// scan runs the query for one result set and calls each with every row, its
// values in canonical form of the columns' types.
func (in *inputs) scan(ctx context.Context, inst int64, q *query, each func(row []any) error) error {
	return in.r.Values(ctx, q.sql, []any{inst}, q.types, each)
}

// from is the rest of a query of one table through alias, for one result
// set ({?}), in the order of the columns order.
func from(alias, table string, order ...string) string {
	s := "FROM {" + alias + ":" + table + "} WHERE {" + alias + "." + table + ".INST_ID} = {?} ORDER BY "
	for i, o := range order {
		if i > 0 {
			s += ", "
		}
		s += "{" + alias + "." + table + "." + o + "}"
	}
	return s
}

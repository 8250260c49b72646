package merge

import (
	"context"
	"fmt"
	"strings"

	"github.com/profdb/profdb/ddl"
	"github.com/profdb/profdb/dialects"
	"github.com/profdb/profdb/resultset"
	"github.com/profdb/profdb/store"
)

// inputs is the snapshot the inputs are read in.
type inputs struct {
	db       *store.DB
	snap     *store.Snapshot
	q        dialects.DBTX
	cat      *store.Catalog
	profiler string
	counter  *resultset.Counter
}

// begin opens a snapshot of db, checks that the result sets exist, are of
// one profiler and, for profilers with a counter, of one counter.
func begin(ctx context.Context, db *store.DB, insts []int64) (*inputs, error) {
	snap, err := db.BeginSnapshot(ctx)
	if err != nil {
		return nil, fmt.Errorf("begin: %w", err)
	}
	in := &inputs{db: db, snap: snap, q: snap.Querier()}
	fail := func(err error) (*inputs, error) {
		snap.Close()
		return nil, err
	}
	if in.cat, err = db.Catalog(ctx, in.q); err != nil {
		return fail(err)
	}
	var ids []int64
	seen := map[int64]bool{}
	for _, id := range insts {
		if !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	list, err := in.cat.List(ctx, ids...)
	if err != nil {
		return fail(err)
	}
	byID := map[int64]store.Listing{}
	for _, l := range list {
		if err := l.ProfilerErr(); err != nil {
			return fail(err)
		}
		byID[l.InstID] = l
	}
	first := byID[insts[0]]
	in.profiler, in.counter = first.Profiler, first.Counter
	for _, id := range insts[1:] {
		l := byID[id]
		if l.Profiler != first.Profiler {
			return fail(fmt.Errorf("result set %d is of profiler %s and result set %d of %s: only result sets of one profiler merge",
				first.InstID, first.Profiler, l.InstID, l.Profiler))
		}
		if a, b := counterText(first.Counter), counterText(l.Counter); a != b {
			return fail(fmt.Errorf("result set %d was measured with counter %s and result set %d with %s: only results of one counter merge",
				first.InstID, a, l.InstID, b))
		}
	}
	return in, nil
}

// counterText describes a counter for comparison and messages.
func counterText(c *resultset.Counter) string {
	if c == nil {
		return "none"
	}
	s := fmt.Sprintf("%q (%q", c.Name, c.Description)
	if f, err := c.FrequencyValue(); err == nil && f != nil {
		s += fmt.Sprintf(", frequency %v", f)
	}
	return s + ")"
}

func (in *inputs) close() { in.snap.Close() }

// sqlText builds a query from a template in which {T} names a documented
// table (qualified and quoted, as the database has it), {alias:T} a table
// with an alias, {alias.T.C} a column through an alias and {?} the
// parameter.
func (in *inputs) sqlText(ctx context.Context, tmpl string) (string, error) {
	var b strings.Builder
	for {
		i := strings.IndexByte(tmpl, '{')
		if i < 0 {
			b.WriteString(tmpl)
			return b.String(), nil
		}
		j := strings.IndexByte(tmpl[i:], '}')
		if j < 0 {
			return "", fmt.Errorf("internal: unclosed { in query template")
		}
		b.WriteString(tmpl[:i])
		ref := tmpl[i+1 : i+j]
		tmpl = tmpl[i+j+1:]
		var s string
		var err error
		if ref == "?" {
			s = in.db.Dialect().Placeholder(1)
		} else if alias, t, ok := strings.Cut(ref, ":"); ok {
			s, err = in.cat.Table(t)
			s += " " + alias
		} else if p := strings.Split(ref, "."); len(p) == 3 {
			s, err = in.cat.Column(ctx, p[1], p[2])
			s = p[0] + "." + s
		} else {
			err = fmt.Errorf("internal: bad reference {%s} in query template", ref)
		}
		if err != nil {
			return "", err
		}
		b.WriteString(s)
	}
}

// scan runs a query template for one result set and calls each with every
// row, its values in canonical form of the given types.
func (in *inputs) scan(ctx context.Context, inst int64, tmpl string, types []ddl.Type, each func(row []any) error) error {
	q, err := in.sqlText(ctx, tmpl)
	if err != nil {
		return err
	}
	rows, err := in.q.QueryContext(ctx, q, inst)
	if err != nil {
		return fmt.Errorf("query: %w", err)
	}
	defer rows.Close()
	raw := make([]any, len(types))
	ptrs := make([]any, len(types))
	for i := range raw {
		ptrs[i] = &raw[i]
	}
	row := make([]any, len(types))
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return fmt.Errorf("scan: %w", err)
		}
		for i, v := range raw {
			if row[i], err = store.Canonical(types[i], v); err != nil {
				return fmt.Errorf("scan: %w", err)
			}
		}
		if err := each(row); err != nil {
			return err
		}
	}
	return rows.Err()
}

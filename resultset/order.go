package resultset

import (
	"github.com/profdb/profdb/ddl"
	"github.com/profdb/profdb/profilers"
)

// OrderTables returns the tables of a ResultSet with parents before
// children, in the profiler's graph order; tables the profiler does not
// define keep their place and fail when written.
func OrderTables(profiler string, tables []TableRows) ([]TableRows, error) {
	def, err := profilers.Lookup(profiler)
	if err != nil {
		return nil, errorf("%w", err)
	}
	defs := make([]ddl.Table, len(tables))
	for i, t := range tables {
		dt, ok := def.Table(t.Name)
		if !ok {
			return nil, errorf("profiler %s has no table %s", profiler, t.Name)
		}
		defs[i] = ddl.Table{Name: dt.Name, Parent: dt.Parent}
	}
	ordered, err := ddl.Order(defs)
	if err != nil {
		return nil, errorf("%w", err)
	}
	pos := make(map[string]int, len(tables))
	for i, t := range defs {
		pos[t.Name] = i
	}
	out := make([]TableRows, len(tables))
	for i, t := range ordered {
		out[i] = tables[pos[t.Name]]
	}
	return out, nil
}

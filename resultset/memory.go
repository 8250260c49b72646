package resultset

import (
	"context"
	"strings"
	"sync"

	"github.com/profdb/profdb/ddl"
	"github.com/profdb/profdb/profilers"
)

// Memory is a Target that keeps committed result sets in memory, with
// values in canonical form (see Convert). It checks what a database would:
// known profiler, tables and columns, and values of the documented types.
// It serves tests and dry runs.
type Memory struct {
	mu   sync.Mutex
	Sets []MemorySet // committed result sets, in commit order
}

// MemorySet is one committed result set.
type MemorySet struct {
	Header Header
	InstID int64
	Tables map[string]*MemoryTable // by documented table name
	Order  []string                // table names in the order written
}

// MemoryTable holds the rows of one table.
type MemoryTable struct {
	Columns []string // documented names, as given to Table
	Rows    [][]any
}

// Value returns the value of column col in row i, or nil.
func (t *MemoryTable) Value(i int, col string) any {
	for j, c := range t.Columns {
		if strings.EqualFold(c, col) {
			return t.Rows[i][j]
		}
	}
	return nil
}

var _ Target = (*Memory)(nil)

// Begin implements Target.
func (m *Memory) Begin(ctx context.Context, h Header) (ResultWriter, error) {
	def, err := profilers.Lookup(h.Profiler)
	if err != nil {
		return nil, errorf("%w", err)
	}
	if _, err := h.Counter.FrequencyValue(); err != nil {
		return nil, errorf("INSTANCES, column COUNTER_FREQUENCY: %w", err)
	}
	return &memWriter{m: m, def: def, set: MemorySet{Header: h, Tables: map[string]*MemoryTable{}}}, nil
}

type memWriter struct {
	m    *Memory
	def  profilers.Definition
	set  MemorySet
	done bool
}

func (w *memWriter) SetHeader(h Header) error {
	if h.Profiler != "" && h.Profiler != w.def.Name {
		return errorf("result set of profiler %s cannot become %s", w.def.Name, h.Profiler)
	}
	h.Profiler = w.def.Name
	w.set.Header = h
	return nil
}

func (w *memWriter) Table(name string, columns []string) (TableWriter, error) {
	def, ok := w.def.Table(name)
	if !ok {
		return nil, errorf("profiler %s has no table %s", w.def.Name, name)
	}
	if _, dup := w.set.Tables[def.Name]; dup {
		return nil, errorf("table %s given twice in one result set", def.Name)
	}
	mt := &MemoryTable{}
	var types []ddl.Type
	for _, c := range columns {
		col, ok := def.Column(c)
		if !ok {
			return nil, errorf("table %s has no column %s", def.Name, c)
		}
		if col.Name == ddl.InstID {
			return nil, errorf("table %s: INST_ID is assigned by profdb and must not be given", def.Name)
		}
		mt.Columns = append(mt.Columns, col.Name)
		types = append(types, col.Type)
	}
	w.set.Tables[def.Name] = mt
	w.set.Order = append(w.set.Order, def.Name)
	return &memTable{t: mt, name: def.Name, types: types}, nil
}

func (w *memWriter) Commit() (Result, error) {
	if w.done {
		return Result{}, errorf("result set already ended")
	}
	w.done = true
	w.m.mu.Lock()
	defer w.m.mu.Unlock()
	w.set.InstID = int64(len(w.m.Sets) + 1)
	w.m.Sets = append(w.m.Sets, w.set)
	res := Result{InstID: w.set.InstID, Profiler: w.def.Name, Caption: w.set.Header.Caption, Tables: map[string]int64{}}
	for _, t := range w.def.Tables {
		n := int64(0)
		if mt, ok := w.set.Tables[t.Name]; ok {
			n = int64(len(mt.Rows))
		}
		res.Tables[t.Name] = n
		res.Rows += n
	}
	return res, nil
}

func (w *memWriter) Rollback() error {
	w.done = true
	return nil
}

type memTable struct {
	t     *MemoryTable
	name  string
	types []ddl.Type
}

func (t *memTable) Write(row []any) error {
	rowNo := len(t.t.Rows) + 1
	if len(row) != len(t.types) {
		return errorf("table %s, row %d: %d values for %d columns", t.name, rowNo, len(row), len(t.types))
	}
	out := make([]any, len(row))
	for i, v := range row {
		cv, err := Convert(t.types[i], v)
		if err != nil {
			return errorf("table %s, column %s, row %d: %w", t.name, t.t.Columns[i], rowNo, err)
		}
		out[i] = cv
	}
	t.t.Rows = append(t.t.Rows, out)
	return nil
}

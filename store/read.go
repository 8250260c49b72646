package store

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/profdb/profdb/ddl"
	"github.com/profdb/profdb/dialects"
	"github.com/profdb/profdb/profilers"
	"github.com/profdb/profdb/resultset"
)

// Read returns a stored result set. Its tables stream their rows from the
// database, ordered by ID and REC_ID, with values in canonical form. The
// whole result set is read in one consistent snapshot, held from Read until
// every table's rows have been read, an iterator stops early, or ctx ends:
// a caller that does not read every table must cancel ctx. The iterators
// must be consumed before db is closed.
func (db *DB) Read(ctx context.Context, inst int64) (*resultset.ResultSet, error) {
	return db.read(ctx, inst, true)
}

// ReadUnordered is Read without the order: each table's rows come in the
// order the database returns them most cheaply, usually the order they
// were written. It spares the database the sort that ORDER BY costs on a
// large table (MySQL sorts the whole table before it returns the first
// row, and so does PostgreSQL on a table it has no statistics of yet), so
// that the rows stream from the first. profdb copy reads through it: the
// target stores the same rows whatever their order.
func (db *DB) ReadUnordered(ctx context.Context, inst int64) (*resultset.ResultSet, error) {
	return db.read(ctx, inst, false)
}

func (db *DB) read(ctx context.Context, inst int64, ordered bool) (*resultset.ResultSet, error) {
	var rs *resultset.ResultSet
	err := db.inSnapshot(ctx, fewSets, func(s *snapshot) error {
		c, err := db.Catalog(ctx, s.q)
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

func (c *Catalog) read(ctx context.Context, inst int64, ordered bool) (*resultset.ResultSet, error) {
	db := c.db
	ls, err := c.list(ctx, false, []int64{inst})
	if err != nil {
		return nil, err
	}
	l := ls[0]
	if err := l.ProfilerErr(); err != nil {
		return nil, err
	}
	def, err := profilers.Lookup(l.Profiler)
	if err != nil {
		return nil, err
	}
	rs := &resultset.ResultSet{Header: resultset.Header{Profiler: def.Name, Caption: l.Caption, Counter: l.Counter}}
	for _, t := range def.Tables {
		if !c.Has(t.Name) {
			continue
		}
		r := dialects.InstRead{Schema: db.opts.Schema, Table: c.tables[strings.ToUpper(t.Name)], Inst: inst}
		var names []string
		var types []ddl.Type
		for _, col := range t.Columns {
			if col.Name == ddl.InstID {
				continue
			}
			real, err := c.realCol(ctx, t.Name, col.Name)
			if err != nil {
				continue // a column the table does not have stays NULL
			}
			names, types = append(names, col.Name), append(types, col.Type)
			r.Columns = append(r.Columns, real)
		}
		var err error
		if r.InstCol, err = c.realCol(ctx, t.Name, ddl.InstID); err != nil {
			return nil, err
		}
		if ordered {
			for _, k := range []string{ddl.ID, ddl.RecID} {
				if real, err := c.realCol(ctx, t.Name, k); err == nil {
					r.Order = append(r.Order, real)
				}
			}
		}
		rs.Tables = append(rs.Tables, resultset.TableRows{Name: t.Name, Columns: names, Rows: rowsIter(ctx, c.q, db.d, t.Name, r, types)})
	}
	return rs, nil
}

// own hands the snapshot to the tables of rs: it ends when every table's
// rows have been read, when an iterator stops early or fails, or when ctx
// ends, whichever comes first.
func (s *snapshot) own(ctx context.Context, rs *resultset.ResultSet) {
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

// rowsIter yields the rows of r as canonical values. A goroutine reads
// and converts them readBatch rows at a time, up to readAhead batches ahead,
// so that reading the source overlaps with what the consumer does with the
// rows (writing them elsewhere, for profdb copy). Every row is a slice of
// its own, which the consumer may keep; the rows of a batch share one
// allocation.
func rowsIter(ctx context.Context, q dialects.DBTX, d dialects.Dialect, table string, r dialects.InstRead, types []ddl.Type) func(func([]any, error) bool) {
	return func(yield func([]any, error) bool) {
		rows, err := queryInst(ctx, q, d, r)
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

// queryInst runs the read r, through the dialect's own InstReader when it
// has one.
func queryInst(ctx context.Context, q dialects.DBTX, d dialects.Dialect, r dialects.InstRead) (dialects.InstRows, error) {
	if ir, ok := d.(dialects.InstReader); ok {
		return ir.ReadInst(ctx, q, r)
	}
	quoted := make([]string, len(r.Columns))
	for i, c := range r.Columns {
		quoted[i] = d.Quote(c)
	}
	query := fmt.Sprintf("SELECT %s FROM %s WHERE %s = %s", strings.Join(quoted, ", "), dialects.Qualify(d, r.Schema, r.Table), d.Quote(r.InstCol), d.Placeholder(1))
	if len(r.Order) > 0 {
		order := make([]string, len(r.Order))
		for i, c := range r.Order {
			order[i] = d.Quote(c)
		}
		query += " ORDER BY " + strings.Join(order, ", ")
	}
	return q.QueryContext(ctx, query, r.Inst)
}

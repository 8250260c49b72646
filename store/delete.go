package store

import (
	"context"
	"fmt"

	"github.com/profdb/profdb/ddl"
	"github.com/profdb/profdb/profilers"
)

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

// KeepLast is the retention policy of profdb delete --keep-last: of the
// result sets f chooses (as Select does; its Last is not used), all but
// the newest n, by INST_ID, the order profdb exports them in. It returns
// their INST_IDs, ascending, and how many it keeps: n, or all of them when
// f chooses n or fewer. n must be at least 1 (keeping none would delete
// every result set f chooses: name them to do that).
func (db *DB) KeepLast(ctx context.Context, f Filter, n int) (deleted []int64, kept int, err error) {
	if n < 1 {
		return nil, 0, fmt.Errorf("keep the last %d: keep at least 1 (to delete them all, name them)", n)
	}
	f.Last, f.Counted = 0, false
	list, err := db.Select(ctx, f)
	if err != nil {
		return nil, 0, err
	}
	kept = min(len(list), n)
	for _, l := range list[:len(list)-kept] {
		deleted = append(deleted, l.InstID)
	}
	return deleted, kept, nil
}

// DeleteAll removes the result sets insts from every table, all in one
// transaction: when one of them is not in INSTANCES, none is removed.
func (db *DB) DeleteAll(ctx context.Context, insts []int64) ([]Deleted, error) {
	if err := db.Writable(); err != nil {
		return nil, fmt.Errorf("delete: %w", err)
	}
	out, err := db.deleteAll(ctx, insts)
	if err != nil {
		return nil, db.ExplainReadOnly(ctx, err)
	}
	return out, nil
}

func (db *DB) deleteAll(ctx context.Context, insts []int64) ([]Deleted, error) {
	conn, err := db.db.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("delete: connect to %s: %w", db.display, err)
	}
	defer conn.Close()
	tx, err := db.BeginWrite(ctx, conn)
	if err != nil {
		return nil, fmt.Errorf("delete: %w", err)
	}
	defer tx.Rollback()
	if err := db.planFewSets(ctx, tx); err != nil {
		return nil, fmt.Errorf("delete: %w", err)
	}
	c, err := db.Catalog(ctx, tx)
	if err != nil {
		return nil, fmt.Errorf("delete: %w", err)
	}
	if !c.Has(profilers.InstancesTable) {
		return nil, fmt.Errorf("delete: no result set %d: the database has no INSTANCES table", insts[0])
	}
	tables := []string{}
	for _, def := range profilers.All() {
		for _, t := range def.Tables {
			if c.Has(t.Name) {
				tables = append(tables, t.Name)
			}
		}
	}
	tables = append(tables, profilers.RelationsTable, profilers.InstancesTable)
	out := make([]Deleted, 0, len(insts))
	for _, inst := range insts {
		d := Deleted{InstID: inst}
		for _, t := range tables {
			if !c.Has(t) {
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
	if c.Has(profilers.ResultSetsTable) {
		// The rows stay, marked, so that their INST_IDs are never given
		// out again.
		cols, err := c.mustCols(ctx, profilers.ResultSetsTable, ddl.InstID, profilers.ColDeletedAt)
		if err != nil {
			return nil, fmt.Errorf("delete: %w", err)
		}
		stmt := fmt.Sprintf("UPDATE %s SET %s = %s WHERE %s = %s", c.qualified(profilers.ResultSetsTable),
			cols[1], db.d.Placeholder(1), cols[0], db.d.Placeholder(2))
		when := db.Bind(ddl.String, db.Now().UTC().Format(TimeFormat))
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

package store

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/profdb/profdb/ddl"
	"github.com/profdb/profdb/profilers"
)

// Range is a range of INST_IDs, both ends included.
type Range struct{ From, To int64 }

// Selection names result sets by INST_ID, by range and by export time, as
// profdb delete does with --inst and --older-than. A result set is
// selected when any of them names it. profdb's --inst, in every command
// that takes it, is parsed by selector.ParseList and resolved into a
// Selection by selector.Resolver.Selection.
type Selection struct {
	// IDs are INST_IDs, each of which must be listed.
	IDs []int64
	// Ranges select the listed INST_IDs within them; each must hold at
	// least one.
	Ranges []Range
	// ExportedBefore, when not zero, selects the result sets exported
	// before it, by the export time PROFDB_RESULT_SETS records.
	ExportedBefore time.Time
}

// Pick returns the INST_IDs of list that the selection names, ascending,
// each once, and, when ExportedBefore is set, how many listed result sets
// have no export time recorded (those it cannot select by age). It fails
// when an ID is not listed or a range holds no listed result set.
func (s Selection) Pick(list []Listing) (ids []int64, undated int, err error) {
	listed := map[int64]bool{}
	for _, l := range list {
		listed[l.InstID] = true
	}
	for _, id := range s.IDs {
		if !listed[id] {
			return nil, 0, &NoResultSetError{InstID: id}
		}
		ids = append(ids, id)
	}
	for _, r := range s.Ranges {
		found := false
		for _, l := range list {
			if l.InstID >= r.From && l.InstID <= r.To {
				ids = append(ids, l.InstID)
				found = true
			}
		}
		if !found {
			return nil, 0, fmt.Errorf("no result set in %d-%d", r.From, r.To)
		}
	}
	if !s.ExportedBefore.IsZero() {
		for _, l := range list {
			t, err := time.Parse(TimeFormat, l.ExportedAt)
			switch {
			case err != nil:
				undated++
			case t.Before(s.ExportedBefore):
				ids = append(ids, l.InstID)
			}
		}
	}
	slices.Sort(ids)
	return slices.Compact(ids), undated, nil
}

// Named returns the INST_IDs the selection names among the result sets
// the database holds, as Pick does with the whole list, reading no more
// than it needs, in one snapshot: INSTANCES by INST_ID for the IDs and the
// ranges (its primary key), so that its cost grows with the result sets
// named, not with those held, and no row of a profiler's table is read.
// Only ExportedBefore reads the INSTANCES and PROFDB_RESULT_SETS rows of
// every result set (one small row each), as it must to find them by age.
func (db *DB) Named(ctx context.Context, s Selection) (ids []int64, undated int, err error) {
	var list []Listing
	reach := fewSets
	if !s.ExportedBefore.IsZero() {
		reach = allSets
	}
	err = db.inCatalog(ctx, reach, func(c *Catalog) error {
		var err error
		if !s.ExportedBefore.IsZero() {
			if list, err = c.instances(ctx, nil); err != nil {
				return err
			}
			return c.recorded(ctx, list, nil)
		}
		list, err = c.heldOf(ctx, s)
		return err
	})
	if err != nil {
		return nil, 0, fmt.Errorf("list: %w", err)
	}
	return s.Pick(list)
}

// heldOf lists (uncounted, without their profilers) the result sets of
// INSTANCES that the selection's IDs and Ranges name, looked up by
// INST_ID.
func (c *Catalog) heldOf(ctx context.Context, s Selection) ([]Listing, error) {
	col, err := c.col(ctx, profilers.InstancesTable, ddl.InstID)
	if err != nil {
		return nil, err
	}
	var out []Listing
	read := func(query string, args ...any) error {
		rows, err := c.q.QueryContext(ctx, query, args...)
		if err != nil {
			return fmt.Errorf("read INSTANCES: %w", err)
		}
		defer rows.Close()
		for rows.Next() {
			var l Listing
			if err := rows.Scan(&l.InstID); err != nil {
				return fmt.Errorf("read INSTANCES: %w", err)
			}
			out = append(out, l)
		}
		if err := rows.Err(); err != nil {
			return fmt.Errorf("read INSTANCES: %w", err)
		}
		return nil
	}
	from := fmt.Sprintf("SELECT %s FROM %s", col, c.qualified(profilers.InstancesTable))
	for ids := s.IDs; len(ids) > 0; {
		n := min(len(ids), maxInList)
		where, args := c.whereInsts(col, ids[:n])
		if err := read(from+where, args...); err != nil {
			return nil, err
		}
		ids = ids[n:]
	}
	p1, p2 := c.db.d.Placeholder(1), c.db.d.Placeholder(2)
	for _, r := range s.Ranges {
		if err := read(from+" WHERE "+col+" >= "+p1+" AND "+col+" <= "+p2, r.From, r.To); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// ListOf is List of the result sets ids names only, each of which must be
// there: their rows counted by INST_ID, through the index, so that its
// cost grows with their rows, not with the database.
func (db *DB) ListOf(ctx context.Context, ids []int64) ([]Listing, error) {
	var out []Listing
	err := db.inCatalog(ctx, fewSets, func(c *Catalog) error {
		var err error
		out, err = c.List(ctx, ids...)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("list: %w", err)
	}
	return out, nil
}

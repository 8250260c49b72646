package store

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/dustin/go-humanize/english"
	"github.com/profdb/profdb/profilers"
)

// Finding is one problem Verify found.
type Finding struct {
	InstID  int64  `json:"inst_id"`
	Table   string `json:"table,omitempty"`
	Message string `json:"message"`
	// IDs are the ID column values of the rows at fault, ascending, the
	// first MaxFindingIDs of them; none when the finding is not about rows.
	IDs []int64 `json:"ids,omitempty"`
}

// MaxFindingIDs is how many row IDs a Finding lists at most.
const MaxFindingIDs = 20

// String formats the finding as verify prints it: "INST_ID n: TABLE: message".
func (f Finding) String() string {
	if f.Table != "" {
		return fmt.Sprintf("INST_ID %d: %s: %s", f.InstID, f.Table, f.Message)
	}
	return fmt.Sprintf("INST_ID %d: %s", f.InstID, f.Message)
}

// Verify checks result sets against the registered graph: their RELATIONS
// rows match it, no two rows of a table share an ID, every child row's
// PARENT_ID names an existing parent row of the same INST_ID, top-level rows
// hold -1 there (the checks export runs before it commits, see
// checkResultSet), and no table holds rows of an INST_ID that INSTANCES does
// not list. inst 0 checks every result set. Everything is read in one
// consistent snapshot, so result sets being exported or deleted meanwhile
// are either whole or absent. A database without an INSTANCES table is an
// error wrapping ErrNoResultSets: there is nothing to verify, which is not
// the same as nothing wrong.
func (db *DB) Verify(ctx context.Context, inst int64) ([]Finding, error) {
	var out []Finding
	err := db.inCatalog(ctx, func(c *Catalog) error {
		var err error
		out, err = c.verify(ctx, inst)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("verify: %w", err)
	}
	return out, nil
}

func (c *Catalog) verify(ctx context.Context, inst int64) ([]Finding, error) {
	if !c.Has(profilers.InstancesTable) {
		if inst != 0 {
			return nil, fmt.Errorf("no result set %d: the database has no INSTANCES table", inst)
		}
		return nil, nil
	}
	var ids []int64
	if inst != 0 {
		ids = []int64{inst}
	}
	list, err := c.List(ctx, ids...)
	if err != nil {
		return nil, err
	}
	known := map[int64]bool{}
	for _, l := range list {
		known[l.InstID] = true
	}
	if inst != 0 && !known[inst] {
		return nil, fmt.Errorf("no result set %d in INSTANCES", inst)
	}
	rels, err := c.relations(ctx, ids)
	if err != nil {
		return nil, err
	}
	var out []Finding
	for _, l := range list {
		if inst != 0 && l.InstID != inst {
			continue
		}
		fs, err := c.checkResultSet(ctx, l.InstID, rels[l.InstID], nil)
		if err != nil {
			return nil, err
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
				if !c.Has(t.Name) {
					continue
				}
				m, err := c.countByInst(ctx, t.Name, nil)
				if err != nil {
					return nil, err
				}
				for id, n := range m {
					if !known[id] {
						out = append(out, Finding{InstID: id, Table: t.Name, Message: english.Plural(int(n), "row", "") + " of a result set that INSTANCES does not list"})
					}
				}
			}
		}
	}
	return out, nil
}

// idList names the rows at fault: "ID 3", "IDs 3, 5" or "IDs 3, 5, … and
// 12 more".
func idList(ids []int64, n int64) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = strconv.FormatInt(id, 10)
	}
	word := "IDs "
	if n == 1 {
		word = "ID "
	}
	out := word + strings.Join(s, ", ")
	if more := n - int64(len(ids)); more > 0 {
		out += fmt.Sprintf(" and %d more", more)
	}
	return out
}

func orNull(s string) string {
	if s == "" {
		return "NULL"
	}
	return s
}

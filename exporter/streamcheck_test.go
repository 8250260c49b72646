package exporter

import (
	"math/rand/v2"
	"testing"

	"github.com/profdb/profdb/ddl"
	"github.com/profdb/profdb/store"
)

// TestStreamProofsAreSound streams random parent and child tables through
// idStats and checks each proof against an exact computation: a check the
// stream proves empty finds nothing, and the common shapes (IDs in order,
// dense parents, PARENT_IDs in range) are proven, so the queries are saved.
func TestStreamProofsAreSound(t *testing.T) {
	parentDef := ddl.Table{Name: "P"}
	childDef := ddl.Table{Name: "C", Parent: "P"}
	cols := []string{"ID", "PARENT_ID", "X"}
	rng := rand.New(rand.NewPCG(1, 2))
	value := func(v int64, nullOdds int) any {
		if nullOdds > 0 && rng.IntN(nullOdds) == 0 {
			return nil
		}
		return v
	}
	provenAtLeastOnce := map[string]bool{}
	for range 20000 {
		n := 1 + rng.IntN(6)
		// Parent IDs: in order from a random start, sometimes with a gap, a
		// repeat, a swap or a NULL.
		start := int64(rng.IntN(5))
		var pids []any
		for i := range n {
			pids = append(pids, start+int64(i))
		}
		switch rng.IntN(6) {
		case 0:
			pids[rng.IntN(n)] = start + int64(n) + 3 // a gap (or out of order)
		case 1:
			pids[rng.IntN(n)] = pids[rng.IntN(n)] // a repeat, maybe
		case 2:
			i, j := rng.IntN(n), rng.IntN(n)
			pids[i], pids[j] = pids[j], pids[i]
		case 3:
			pids[rng.IntN(n)] = nil
		}
		parent, idAt, pidAt := newIDStats(parentDef, cols, nil)
		set := map[int64]int{}
		topOK := true
		for _, id := range pids {
			pp := value(-1, 0)
			if rng.IntN(8) == 0 {
				pp = value(int64(rng.IntN(3)), 3)
			}
			row := []any{id, pp, "x"}
			parent.add(true, row[idAt], row[pidAt])
			if v, ok := id.(int64); ok {
				set[v]++
			}
			if v, ok := pp.(int64); ok && v != -1 {
				topOK = false
			}
		}
		dupFree := true
		for _, c := range set {
			if c > 1 {
				dupFree = false
			}
		}
		if parent.increasing && !dupFree {
			t.Fatalf("parent %v: proven free of duplicates, but is not", pids)
		}
		if parent.parentsOK && !topOK {
			t.Fatalf("parent %v: top-level PARENT_IDs proven -1, but are not", pids)
		}
		// A child whose PARENT_IDs mostly name parent rows.
		child, _, _ := newIDStats(childDef, cols, parent)
		danglingFree := true
		for i := range 1 + rng.IntN(6) {
			pp := value(start+int64(rng.IntN(n+1)), 10)
			if rng.IntN(10) == 0 {
				pp = value(start-1, 0)
			}
			child.add(false, value(int64(i), 0), pp)
			if v, ok := pp.(int64); !ok || set[v] == 0 {
				danglingFree = false
			}
		}
		if child.parentsOK && !danglingFree {
			t.Fatalf("parent %v: child PARENT_IDs proven to name parent rows, but do not", pids)
		}
		if parent.increasing {
			provenAtLeastOnce["dup"] = true
		}
		if child.parentsOK {
			provenAtLeastOnce["dangling"] = true
		}
		if parent.parentsOK {
			provenAtLeastOnce["top"] = true
		}
	}
	for _, k := range []string{"dup", "dangling", "top"} {
		if !provenAtLeastOnce[k] {
			t.Errorf("the stream never proved a %s check: no query would ever be saved", k)
		}
	}
}

// TestStreamProofNeedsTheParentFirst: a child written before its parent,
// or without PARENT_ID, proves nothing.
func TestStreamProofNeedsTheParentFirst(t *testing.T) {
	child, _, _ := newIDStats(ddl.Table{Name: "C", Parent: "P"}, []string{"ID", "PARENT_ID"}, nil)
	child.add(false, int64(0), int64(0))
	if child.parentsOK {
		t.Error("a child written before its parent: PARENT_IDs proven")
	}
	parent, _, _ := newIDStats(ddl.Table{Name: "P"}, []string{"ID", "PARENT_ID"}, nil)
	parent.add(true, int64(0), int64(-1))
	child, _, _ = newIDStats(ddl.Table{Name: "C", Parent: "P"}, []string{"ID"}, parent)
	child.add(false, int64(0), nil)
	if child.parentsOK {
		t.Error("a child without PARENT_ID: PARENT_IDs proven")
	}
}

// TestStreamProvesEmptyTables: a table given no rows, or not given, has no
// rows of the result set, so its checks are proven and their queries not
// run; a table with one row out of order is not.
func TestStreamProvesEmptyTables(t *testing.T) {
	s := &session{stats: map[string]*idStats{}}
	empty, _, _ := newIDStats(ddl.Table{Name: "E", Parent: "P"}, []string{"ID", "PARENT_ID"}, nil)
	s.stats["E"] = empty
	rows, _, _ := newIDStats(ddl.Table{Name: "R"}, []string{"ID", "PARENT_ID"}, nil)
	rows.add(true, int64(2), int64(-1))
	rows.add(true, int64(1), int64(-1))
	s.stats["R"] = rows
	for _, k := range []store.CheckKind{store.DuplicateIDs, store.TopLevelParents, store.DanglingParents} {
		for _, table := range []string{"E", "e", "NOT_GIVEN"} {
			if !s.proven(k, table) {
				t.Errorf("check %v of table %s, which has no rows: not proven", k, table)
			}
		}
	}
	if s.proven(store.DuplicateIDs, "R") {
		t.Error("IDs 2 then 1: proven free of duplicates without a query")
	}
}

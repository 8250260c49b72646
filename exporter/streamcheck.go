package exporter

import (
	"strings"

	"github.com/profdb/profdb/ddl"
	"github.com/profdb/profdb/store"
)

// idStats is what a session learns of one table's IDs and PARENT_IDs as
// the rows stream past, in constant memory, so that the checks before the
// commit can skip the queries whose outcome the stream already proves:
//
//   - store.DuplicateIDs, when every ID was given and each was larger than the
//     one before (profdb's builders and most tools number rows in order);
//   - store.TopLevelParents, when every PARENT_ID of a top-level table was -1 or
//     NULL (what the query accepts);
//   - store.DanglingParents, when the parent table was written before the child
//     and its IDs are dense (increasing, max - min + 1 of them), and every
//     PARENT_ID of the child lies between its smallest and largest ID.
//
// A table given no rows, or not given at all, is proven whole. Anything
// else — rows out of order, a gap in the parent's IDs, a child written
// first — leaves the proof unmade, and the check's query runs as
// before; a proof never hides a fault, it only saves a query that would
// find none.
type idStats struct {
	rows       int64
	min, max   int64
	increasing bool // every ID given, each larger than the one before
	parentsOK  bool // every PARENT_ID proven valid as it streamed
	parent     *idStats
}

// dense reports whether the table's IDs are exactly min..max, each once.
func (st *idStats) dense() bool {
	return st != nil && st.increasing && st.rows > 0 && st.max-st.min+1 == st.rows
}

// newIDStats starts the stats of table t, written with the given columns;
// parent is the parent table's, when it was written before (nil if not).
func newIDStats(t ddl.Table, columns []string, parent *idStats) (st *idStats, idAt, pidAt int) {
	st = &idStats{increasing: true, parentsOK: true, parent: parent}
	idAt, pidAt = -1, -1
	for i, c := range columns {
		switch {
		case strings.EqualFold(c, ddl.ID):
			idAt = i
		case strings.EqualFold(c, ddl.ParentID):
			pidAt = i
		}
	}
	if idAt < 0 {
		st.increasing = false
	}
	if pidAt < 0 && t.Parent != "" {
		st.parentsOK = false // every PARENT_ID is NULL, which names no row
	}
	if t.Parent != "" && !parent.dense() {
		st.parentsOK = false
	}
	return st, idAt, pidAt
}

// add records a row's converted ID and PARENT_ID (nil for NULL, or for a
// column not given).
func (st *idStats) add(top bool, id, pid any) {
	if st.increasing {
		v, ok := id.(int64)
		switch {
		case !ok:
			st.increasing = false
		case st.rows > 0 && v <= st.max:
			st.increasing = false
		default:
			if st.rows == 0 {
				st.min = v
			}
			st.max = v
		}
	}
	st.rows++
	if !st.parentsOK {
		return
	}
	p, ok := pid.(int64)
	if top {
		st.parentsOK = pid == nil || ok && p == -1
		return
	}
	st.parentsOK = ok && p >= st.parent.min && p <= st.parent.max
}

// proven reports whether the stream proved that the check of kind k on
// table finds nothing. A table the session wrote no row to has no row of
// the result set (its INST_ID is new: the proofs above rest on that too),
// so no check of it can find anything (on Babelfish the query is slow
// even on an empty table: docs/sqlserver.md).
func (s *session) proven(k store.CheckKind, table string) bool {
	st := s.stats[strings.ToUpper(table)]
	if st == nil || st.rows == 0 {
		return true
	}
	switch k {
	case store.DuplicateIDs:
		return st.increasing
	case store.TopLevelParents, store.DanglingParents:
		return st.parentsOK
	}
	return false
}

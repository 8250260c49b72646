package ddl

import (
	"fmt"
	"hash/fnv"
	"strings"
)

// The column names every profiler table carries.
const (
	InstID   = "INST_ID"
	ID       = "ID"
	ParentID = "PARENT_ID"
	RecID    = "REC_ID"
)

// Column is one column of a table: its documented name and logical type.
type Column struct {
	Name    string `json:"name"`
	Type    Type   `json:"type"`
	NotNull bool   `json:"-"` // only INST_ID is NOT NULL; every other column is nullable
}

// Table is one table of the AQTime layout.
type Table struct {
	// Name is the documented table name, upper case, typos included.
	Name string `json:"name"`
	// Parent is the table that this table's PARENT_ID points into, the row
	// RELATIONS records for it; empty for a top-level table.
	Parent string `json:"parent"`
	// Columns in document order.
	Columns []Column `json:"columns"`
	// Key is the primary-key column of the two shared tables (INST_ID of
	// INSTANCES, ID of RELATIONS); empty for profiler tables, whose ID and
	// REC_ID are not keys.
	Key string `json:"-"`
	// Lookup is the columns of the one index of a keyless table of
	// profdb's own that has no ID (PROFDB_LABELS, PROFDB_MERGE_SOURCES):
	// a few rows per result set, looked up by INST_ID. Clustered databases
	// keep such tables whole on every node, as they do the keyed ones. Nil
	// for the documented tables.
	Lookup []string `json:"-"`
	// NoParentIndex leaves out the (INST_ID, PARENT_ID) index of a child
	// table (see Indexes): no query of profdb finds its rows by their
	// parent or reads them in their parents' order.
	NoParentIndex bool `json:"-"`
	// RecIDIndex adds an index on (INST_ID, REC_ID) (see Indexes): a query
	// finds the table's rows by the REC_ID that rows of another table name
	// them by (a routine's calls, a class's objects).
	RecIDIndex bool `json:"-"`
}

// Column returns the column named name, matched case-insensitively.
func (t *Table) Column(name string) (Column, bool) {
	if i := t.ColumnIndex(name); i >= 0 {
		return t.Columns[i], true
	}
	return Column{}, false
}

// ColumnIndex returns the position of the column named name, matched
// case-insensitively, or -1.
func (t *Table) ColumnIndex(name string) int {
	for i, c := range t.Columns {
		if strings.EqualFold(c.Name, name) {
			return i
		}
	}
	return -1
}

// ColumnNames returns the names of the columns in order.
func (t *Table) ColumnNames() []string {
	names := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		names[i] = c.Name
	}
	return names
}

// Clone returns a deep copy of t.
func (t Table) Clone() Table {
	t.Columns = append([]Column(nil), t.Columns...)
	return t
}

// Index is an index a table carries.
type Index struct {
	Name    string
	Columns []string
	Primary bool // the table's primary key; Name is then unused by most dialects
}

// MaxIndexName is the longest index name Indexes produces: it fits the
// 63-byte limit of PostgreSQL and the 64 of MySQL.
const MaxIndexName = 60

// Indexes returns the indexes a table carries: the primary key of a shared
// table and, when that key is not its INST_ID (RELATIONS), (INST_ID) too,
// which finds a result set's rows; the Lookup index of a keyless table of
// profdb's own; for a profiler table (INST_ID, ID), for a child table also
// (INST_ID, PARENT_ID) unless NoParentIndex is set, and (INST_ID, REC_ID)
// when RecIDIndex is. docs/performance.md ("Indexes: what each one
// serves") names the queries each one serves.
func (t *Table) Indexes() []Index {
	if t.Key != "" {
		ix := []Index{{Name: IndexName("PK", t.Name, ""), Columns: []string{t.Key}, Primary: true}}
		if _, ok := t.Column(InstID); ok && !strings.EqualFold(t.Key, InstID) {
			ix = append(ix, Index{Name: IndexName("IX", t.Name, "INST"), Columns: []string{InstID}})
		}
		return ix
	}
	if t.Lookup != nil {
		return []Index{{Name: IndexName("IX", t.Name, "LOOKUP"), Columns: t.Lookup}}
	}
	ix := []Index{{Name: IndexName("IX", t.Name, "ID"), Columns: []string{InstID, ID}}}
	if t.Parent != "" && !t.NoParentIndex {
		ix = append(ix, Index{Name: IndexName("IX", t.Name, "PARENT"), Columns: []string{InstID, ParentID}})
	}
	if t.RecIDIndex {
		ix = append(ix, Index{Name: IndexName("IX", t.Name, "REC"), Columns: []string{InstID, RecID}})
	}
	return ix
}

// IndexName builds prefix_TABLE_suffix, shortened with a stable hash of the
// table name when it would exceed MaxIndexName.
func IndexName(prefix, table, suffix string) string {
	name := prefix + "_" + table
	if suffix != "" {
		name += "_" + suffix
	}
	if len(name) <= MaxIndexName {
		return name
	}
	h := fnv.New32a()
	h.Write([]byte(table))
	tail := fmt.Sprintf("_%08X", h.Sum32())
	if suffix != "" {
		tail += "_" + suffix
	}
	keep := MaxIndexName - len(prefix) - 1 - len(tail)
	if keep < 1 {
		// Prefix and suffix alone are too long: keep only the hash.
		return (prefix + tail)[:min(len(prefix)+len(tail), MaxIndexName)]
	}
	return prefix + "_" + table[:min(keep, len(table))] + tail
}

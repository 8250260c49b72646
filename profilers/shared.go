package profilers

import "github.com/profdb/profdb/ddl"

// Names of the two tables every profiler shares.
const (
	InstancesTable = "INSTANCES"
	RelationsTable = "RELATIONS"
)

// Col is shorthand for a column definition. INST_ID, the only column the
// layout never leaves empty, is NOT NULL; every other column is nullable.
func Col(name string, t ddl.Type) ddl.Column {
	return ddl.Column{Name: name, Type: t, NotNull: name == ddl.InstID}
}

// NewTable is shorthand for a table definition; parent is "" for a
// top-level table.
func NewTable(name, parent string, cols ...ddl.Column) ddl.Table {
	return ddl.Table{Name: name, Parent: parent, Columns: cols}
}

// Instances returns the INSTANCES table: one row per exported result set,
// keyed by INST_ID. Types per NOTES.md ("Types": the Function Trace document
// is the one that types them).
func Instances() ddl.Table {
	return ddl.Table{
		Name: InstancesTable,
		Key:  ddl.InstID,
		Columns: []ddl.Column{
			Col("CAPTION", ddl.String),
			Col("COUNTER_DESCRIPTION", ddl.String),
			Col("COUNTER_FREQUENCY", ddl.Decimal),
			Col("COUNTER_NAME", ddl.String),
			Col(ddl.InstID, ddl.Integer),
		},
	}
}

// Relations returns the RELATIONS table: for each result set, one row per
// table of its profiler with that table's parent (NULL for a top-level
// table). ID is unique across the whole table (NOTES.md, "Keys and
// identifiers"), so it is the key.
func Relations() ddl.Table {
	return ddl.Table{
		Name: RelationsTable,
		Key:  ddl.ID,
		Columns: []ddl.Column{
			Col("COL_CHILD_TABLE", ddl.String),
			Col("COL_PARENT_TABLE", ddl.String),
			{Name: ddl.ID, Type: ddl.Integer, NotNull: true},
			Col(ddl.InstID, ddl.Integer),
		},
	}
}

// Shared returns INSTANCES and RELATIONS, in that order.
func Shared() []ddl.Table { return []ddl.Table{Instances(), Relations()} }

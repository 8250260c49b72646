package profilers

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/profdb/profdb/ddl"
)

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

// WithoutParentIndex returns child table t without its (INST_ID,
// PARENT_ID) index (ddl.Table.NoParentIndex): for a table no query of
// profdb reads by its rows' parents.
func WithoutParentIndex(t ddl.Table) ddl.Table {
	t.NoParentIndex = true
	return t
}

// WithRecIDIndex returns t with an index on (INST_ID, REC_ID)
// (ddl.Table.RecIDIndex): for a table whose rows queries look up by the
// REC_ID other tables name them by.
func WithRecIDIndex(t ddl.Table) ddl.Table {
	t.RecIDIndex = true
	return t
}

// Instances returns the INSTANCES table: one row per exported result set,
// keyed by INST_ID. Its types are the Function Trace document's, the one
// that types them all (docs/layout.md, "INSTANCES and RELATIONS").
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
// table). ID is unique across the whole table (docs/layout.md, "Keys
// and identifiers"), so it is the key.
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

// ResultSetsTable is profdb's own table: one row per INST_ID ever
// allocated, kept when the result set is deleted, so that an INST_ID is
// never given out twice in a database; it also records what AQTime's
// INSTANCES has no column for.
const ResultSetsTable = "PROFDB_RESULT_SETS"

// Columns of ResultSets besides INST_ID.
const (
	ColExportedAt = "EXPORTED_AT"    // when the result set was written: UTC, RFC 3339 (2006-01-02T15:04:05Z)
	ColHost       = "HOST"           // the host name of the machine that wrote it
	ColInput      = "INPUT"          // what it was read from: a file name, "-", or "INST_ID n of DSN" for a copy
	ColVersion    = "PROFDB_VERSION" // the profdb version that wrote it
	ColDeletedAt  = "DELETED_AT"     // when delete removed it, as EXPORTED_AT; NULL while it exists
	// A run's identity (see resultset.Run), NULL where unknown.
	ColProfiler = "PROFILER"    // the registered profiler's name, as RELATIONS tells it
	ColCommit   = "VCS_COMMIT"  // the commit the run was built from: a full hexadecimal object name
	ColBranch   = "VCS_BRANCH"  // the branch, without refs/heads/
	ColDirty    = "VCS_DIRTY"   // 1 when the working tree had changes not committed, 0 when clean
	ColCI       = "CI_PROVIDER" // the CI system that ran it: github-actions, gitlab-ci, jenkins…; "git" when read from git alone
	ColBuildID  = "BUILD_ID"    // the CI's number or ID of the build (the pipeline, the workflow run)
	ColBuildURL = "BUILD_URL"   // the address of the build's page
)

// IdentityColumns are the columns of ResultSets that hold a run's
// identity, in table order: a PROFDB_RESULT_SETS made by an earlier profdb
// lacks them, and export adds them (ALTER TABLE … ADD) where it may.
var IdentityColumns = []string{ColProfiler, ColCommit, ColBranch, ColDirty, ColCI, ColBuildID, ColBuildURL}

// ResultSets returns profdb's own PROFDB_RESULT_SETS table, keyed by
// INST_ID. It is not part of the AQTime layout: readers of the documented
// tables never need it, and profdb works without it (INST_IDs are then
// the largest in INSTANCES plus one, and may be reused after a delete).
// Times are text so that they compare and sort alike in every dialect.
func ResultSets() ddl.Table {
	return ddl.Table{
		Name: ResultSetsTable,
		Key:  ddl.InstID,
		Columns: []ddl.Column{
			Col(ddl.InstID, ddl.Integer),
			Col(ColExportedAt, ddl.String),
			Col(ColHost, ddl.String),
			Col(ColInput, ddl.String),
			Col(ColVersion, ddl.String),
			Col(ColDeletedAt, ddl.String),
			Col(ColProfiler, ddl.String),
			Col(ColCommit, ddl.String),
			Col(ColBranch, ddl.String),
			Col(ColDirty, ddl.Integer),
			Col(ColCI, ddl.String),
			Col(ColBuildID, ddl.String),
			Col(ColBuildURL, ddl.String),
		},
	}
}

// LabelsTable is profdb's own table of a run's labels (export --label
// KEY=VALUE): one row per label, at most one per key in a result set.
const LabelsTable = "PROFDB_LABELS"

// Columns of Labels besides INST_ID.
const (
	ColLabelKey   = "LABEL_KEY"
	ColLabelValue = "LABEL_VALUE"
)

// Labels returns profdb's own PROFDB_LABELS table, looked up by INST_ID.
func Labels() ddl.Table {
	return ddl.Table{
		Name:   LabelsTable,
		Lookup: []string{ddl.InstID},
		Columns: []ddl.Column{
			Col(ddl.InstID, ddl.Integer),
			Col(ColLabelKey, ddl.String),
			Col(ColLabelValue, ddl.String),
		},
	}
}

// MergeSourcesTable is profdb's own table of what a merge combined: one
// row per result set read, under the INST_ID the merge wrote.
const MergeSourcesTable = "PROFDB_MERGE_SOURCES"

// ColSourceInstID is the INST_ID of a result set a merge read, in the
// database it read it from.
const ColSourceInstID = "SOURCE_INST_ID"

// MergeSources returns profdb's own PROFDB_MERGE_SOURCES table, looked up
// by INST_ID.
func MergeSources() ddl.Table {
	return ddl.Table{
		Name:   MergeSourcesTable,
		Lookup: []string{ddl.InstID},
		Columns: []ddl.Column{
			Col(ddl.InstID, ddl.Integer),
			Col(ColSourceInstID, ddl.Integer),
		},
	}
}

// Own returns profdb's own tables, in the order to create them:
// PROFDB_RESULT_SETS, PROFDB_LABELS, PROFDB_MERGE_SOURCES.
func Own() []ddl.Table { return []ddl.Table{ResultSets(), Labels(), MergeSources()} }

// Shared returns INSTANCES and RELATIONS, in that order.
func Shared() []ddl.Table { return []ddl.Table{Instances(), Relations()} }

// Tables returns the tables of a database that holds result sets of the
// profilers defs, in the order to create them: INSTANCES and RELATIONS,
// profdb's own tables (Own), then the tables of each definition in
// its order (parents first). A table that two definitions define alike is
// listed once; defined differently, it is an error, for one database holds
// one table of a name. Names compare case-insensitively.
//
// Tables(All()...) is every table profdb creates.
func Tables(defs ...Definition) ([]ddl.Table, error) {
	tables := append(Shared(), Own()...)
	owner := map[string]string{}
	at := map[string]int{}
	for i, t := range tables {
		owner[strings.ToUpper(t.Name)] = "profdb"
		at[strings.ToUpper(t.Name)] = i
	}
	for _, def := range defs {
		for _, t := range def.Tables {
			key := strings.ToUpper(t.Name)
			if o, dup := owner[key]; dup {
				if !reflect.DeepEqual(tables[at[key]], t) {
					return nil, fmt.Errorf("profilers: table %s is defined differently by %s and %s", t.Name, o, def.Name)
				}
				continue
			}
			owner[key], at[key] = def.Name, len(tables)
			tables = append(tables, t)
		}
	}
	return tables, nil
}

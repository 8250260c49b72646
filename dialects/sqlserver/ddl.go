package sqlserver

import (
	"strconv"
	"strings"

	"github.com/profdb/profdb/ddl"
	"github.com/profdb/profdb/dialects"
)

// CreateTableIn returns the statements that create t in schema ("" for the
// login's default schema) and its indexes (ddl.Table.Indexes), each guarded
// so that it does nothing when its object exists:
//
//	IF OBJECT_ID(N'[dbo].[T]', N'U') IS NULL
//	BEGIN
//	CREATE TABLE [dbo].[T] (...);
//	END
//
//	IF NOT EXISTS (SELECT 1 FROM sys.index_columns ic
//	    JOIN sys.columns c ON c.object_id = ic.object_id AND c.column_id = ic.column_id
//	    WHERE ic.object_id = OBJECT_ID(N'[dbo].[T]') AND ic.key_ordinal > 0
//	    GROUP BY ic.index_id HAVING COUNT(*) = 2 AND COUNT(CASE
//	    WHEN ic.key_ordinal = 1 AND c.name = N'INST_ID' THEN 1
//	    WHEN ic.key_ordinal = 2 AND c.name = N'ID' THEN 1 END) = 2)
//	CREATE INDEX [IX_T_ID] ON [dbo].[T] ([INST_ID], [ID])
//
// An index is found by its key columns, not by its name: the table needs
// an index on those columns, whatever a DBA named it, and Babelfish lists
// an index in sys.indexes under a name of its own making (the name, the
// table and a hash), so a guard by name would never see it there and a
// re-run would fail (docs/sqlserver.md).
//
// Columns keep the table's order. INST_ID and the key column are NOT NULL,
// every other column NULL; a table with a key gets it as its PRIMARY KEY
// constraint. Each statement must run as a batch of its own.
func (d Dialect) CreateTableIn(schema string, t ddl.Table) []string {
	name := dialects.Qualify(d, schema, t.Name)
	stmts := []string{d.createTable(name, t, nil)}
	for _, ix := range secondary(t) {
		stmts = append(stmts, indexGuard(name, ix.Columns)+"\n"+d.createIndex(name, ix))
	}
	return stmts
}

var _ dialects.NewTableCreator = Dialect{}

// CreateNewTableIn returns, for an export that found t missing, one batch
// that creates t in schema and its indexes, the indexes inside the table's
// guard and without guards of their own:
//
//	IF OBJECT_ID(N'[dbo].[T]', N'U') IS NULL
//	BEGIN
//	CREATE TABLE [dbo].[T] (...);
//	CREATE INDEX [IX_T_ID] ON [dbo].[T] ([INST_ID], [ID]);
//	END
//
// A new table has no index to look for, and the look (sys.index_columns)
// is slow on Babelfish: a good part of an export into an empty database
// (docs/sqlserver.md).
func (d Dialect) CreateNewTableIn(schema string, t ddl.Table) []string {
	name := dialects.Qualify(d, schema, t.Name)
	var more []string
	for _, ix := range secondary(t) {
		more = append(more, d.createIndex(name, ix))
	}
	return []string{d.createTable(name, t, more)}
}

// secondary returns the indexes of t but its primary key.
func secondary(t ddl.Table) []ddl.Index {
	var out []ddl.Index
	for _, ix := range t.Indexes() {
		if !ix.Primary {
			out = append(out, ix)
		}
	}
	return out
}

// createIndex returns the CREATE INDEX of ix on table (quoted, qualified).
func (d Dialect) createIndex(table string, ix ddl.Index) string {
	return "CREATE INDEX " + d.Quote(ix.Name) + " ON " + table + " (" + d.columnList(ix.Columns) + ")"
}

// createTable returns the guarded CREATE TABLE of t as name, with the
// statements more after it inside the guard.
func (d Dialect) createTable(name string, t ddl.Table, more []string) string {
	var b strings.Builder
	b.WriteString("IF OBJECT_ID(")
	b.WriteString(nString(name))
	b.WriteString(", N'U') IS NULL\nBEGIN\nCREATE TABLE ")
	b.WriteString(name)
	b.WriteString(" (")
	for i, c := range t.Columns {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString("\n    ")
		b.WriteString(d.Quote(c.Name))
		b.WriteByte(' ')
		b.WriteString(d.ColumnType(c.Type))
		if c.NotNull || c.Name == ddl.InstID || (t.Key != "" && strings.EqualFold(c.Name, t.Key)) {
			b.WriteString(" NOT NULL")
		} else {
			b.WriteString(" NULL")
		}
	}
	for _, ix := range t.Indexes() {
		if !ix.Primary {
			continue
		}
		b.WriteString(",\n    CONSTRAINT ")
		b.WriteString(d.Quote(ix.Name))
		b.WriteString(" PRIMARY KEY (")
		b.WriteString(d.columnList(ix.Columns))
		b.WriteByte(')')
	}
	b.WriteString("\n);")
	for _, m := range more {
		b.WriteString("\n")
		b.WriteString(m)
		b.WriteString(";")
	}
	b.WriteString("\nEND")
	return b.String()
}

func (d Dialect) columnList(cols []string) string {
	q := make([]string, len(cols))
	for i, c := range cols {
		q[i] = d.Quote(c)
	}
	return strings.Join(q, ", ")
}

// indexGuard returns the IF that holds when table (quoted, qualified) has no
// index whose key columns are cols, in order.
func indexGuard(table string, cols []string) string {
	var b strings.Builder
	b.WriteString("IF NOT EXISTS (SELECT 1 FROM sys.index_columns ic\n")
	b.WriteString("    JOIN sys.columns c ON c.object_id = ic.object_id AND c.column_id = ic.column_id\n")
	b.WriteString("    WHERE ic.object_id = OBJECT_ID(" + nString(table) + ") AND ic.key_ordinal > 0\n")
	b.WriteString("    GROUP BY ic.index_id HAVING COUNT(*) = " + strconv.Itoa(len(cols)) + " AND COUNT(CASE")
	for i, c := range cols {
		b.WriteString("\n    WHEN ic.key_ordinal = " + strconv.Itoa(i+1) + " AND c.name = " + nString(c) + " THEN 1")
	}
	b.WriteString(" END) = " + strconv.Itoa(len(cols)) + ")")
	return b.String()
}

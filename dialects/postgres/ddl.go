package postgres

import (
	"strings"

	"github.com/profdb/profdb/ddl"
	"github.com/profdb/profdb/dialects"
)

var _ dialects.IndexSplitter = Dialect{}

// CreateTableIn returns CREATE TABLE IF NOT EXISTS for t in schema ("" for
// the current one), with every name in its stored (lower-case) form and
// quoted, the columns in document order, a named primary key for tables
// with a key, and one CREATE INDEX IF NOT EXISTS per index of t.Indexes().
// Every statement is safe to run again.
func (d Dialect) CreateTableIn(schema string, t ddl.Table) []string {
	table := dialects.Qualify(d, schema, d.StoredName(t.Name))
	indexes := t.Indexes()
	keys := map[string]bool{}
	for _, ix := range indexes {
		if ix.Primary {
			for _, c := range ix.Columns {
				keys[strings.ToUpper(c)] = true
			}
		}
	}

	var b strings.Builder
	b.WriteString("CREATE TABLE IF NOT EXISTS ")
	b.WriteString(table)
	b.WriteString(" (")
	for i, c := range t.Columns {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString("\n  ")
		b.WriteString(d.Quote(d.StoredName(c.Name)))
		b.WriteByte(' ')
		b.WriteString(d.ColumnType(c.Type))
		if c.NotNull || keys[strings.ToUpper(c.Name)] {
			b.WriteString(" NOT NULL")
		}
	}
	for _, ix := range indexes {
		if ix.Primary {
			b.WriteString(",\n  CONSTRAINT ")
			b.WriteString(d.Quote(d.StoredName(ix.Name)))
			b.WriteString(" PRIMARY KEY (")
			b.WriteString(d.quoteAll(ix.Columns))
			b.WriteByte(')')
		}
	}
	b.WriteString("\n)")

	stmts := []string{b.String()}
	for _, ix := range indexes {
		if ix.Primary {
			continue
		}
		// The index name takes no schema: an index lives in its table's.
		stmts = append(stmts, "CREATE INDEX IF NOT EXISTS "+d.Quote(d.StoredName(ix.Name))+
			" ON "+table+" ("+d.quoteAll(ix.Columns)+")")
	}
	return stmts
}

// CreateTableOnly returns the first statement of CreateTableIn: the CREATE
// TABLE IF NOT EXISTS with the primary key, without the secondary indexes.
// It implements dialects.IndexSplitter.
func (d Dialect) CreateTableOnly(schema string, t ddl.Table) []string {
	return d.CreateTableIn(schema, t)[:1]
}

// CreateIndexes returns the CREATE INDEX IF NOT EXISTS statements of
// CreateTableIn, each safe to run again. It implements
// dialects.IndexSplitter.
func (d Dialect) CreateIndexes(schema string, t ddl.Table) []string {
	return d.CreateTableIn(schema, t)[1:]
}

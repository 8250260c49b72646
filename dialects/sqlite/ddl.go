package sqlite

import (
	"strings"

	"github.com/profdb/profdb/ddl"
	"github.com/profdb/profdb/dialects"
)

// CreateTableIn returns CREATE TABLE IF NOT EXISTS ... STRICT for t, with
// the columns in document order, the primary key (if t has one) declared on
// its column, and one CREATE INDEX IF NOT EXISTS per index of t.Indexes().
// schema is an attached database name, "" for none. Every statement is safe
// to run again.
func (d Dialect) CreateTableIn(schema string, t ddl.Table) []string {
	indexes := t.Indexes()
	var pk []string
	for _, ix := range indexes {
		if ix.Primary {
			pk = ix.Columns
		}
	}
	inlinePK := len(pk) == 1

	var b strings.Builder
	b.WriteString("CREATE TABLE IF NOT EXISTS ")
	b.WriteString(dialects.Qualify(d, schema, d.StoredName(t.Name)))
	b.WriteString(" (")
	for i, c := range t.Columns {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString("\n  ")
		b.WriteString(d.Quote(d.StoredName(c.Name)))
		b.WriteByte(' ')
		b.WriteString(d.ColumnType(c.Type))
		isKey := contains(pk, c.Name)
		if c.NotNull || isKey {
			b.WriteString(" NOT NULL")
		}
		if inlinePK && isKey {
			b.WriteString(" PRIMARY KEY")
		}
	}
	if len(pk) > 1 {
		b.WriteString(",\n  PRIMARY KEY (")
		b.WriteString(d.quoteAll(pk))
		b.WriteByte(')')
	}
	b.WriteString("\n) STRICT")

	stmts := []string{b.String()}
	for _, ix := range indexes {
		if ix.Primary {
			continue
		}
		// SQLite qualifies the index name, not the table: the index lives
		// in the table's database.
		stmts = append(stmts, "CREATE INDEX IF NOT EXISTS "+dialects.Qualify(d, schema, d.StoredName(ix.Name))+
			" ON "+d.Quote(d.StoredName(t.Name))+" ("+d.quoteAll(ix.Columns)+")")
	}
	return stmts
}

func contains(names []string, name string) bool {
	for _, n := range names {
		if strings.EqualFold(n, name) {
			return true
		}
	}
	return false
}

// The SQLite dialect deliberately does not implement dialects.IndexSplitter:
// building the indexes after the load needs SQLite's sorter, whose memory
// grows with the table, while maintaining them in place as the rows arrive
// costs little, since profdb's IDs arrive in order: as fast as the raw
// driver, in flat memory (docs/performance.md, "SQLite: indexes, page cache
// and statement size").

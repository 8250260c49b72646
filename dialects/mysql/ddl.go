package mysql

import (
	"strings"

	"github.com/profdb/profdb/ddl"
	"github.com/profdb/profdb/dialects"
)

// TableOptions follow every CREATE TABLE: InnoDB (transactions), utf8mb4
// (all of Unicode) with the binary collation (text round-trips exactly and
// compares case-sensitively).
const TableOptions = "ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin"

// CreateTableIn returns one CREATE TABLE IF NOT EXISTS statement for t in
// database schema ("" for the current one): the columns in document order,
// the primary key of a table with a key, and the indexes of t.Indexes()
// declared inside it (MySQL 8 has no CREATE INDEX IF NOT EXISTS; the
// indexes are on BIGINT columns only). The statement is safe to run again.
func (d Dialect) CreateTableIn(schema string, t ddl.Table) []string {
	return d.createTable(schema, t, rowKeyNone)
}

// How createTable adds dialects.RowKeyColumn.
const (
	rowKeyNone = iota
	rowKeyVisible
	rowKeyInvisible
)

func (d Dialect) createTable(schema string, t ddl.Table, rowKey int) []string {
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
		if c.NotNull || keys[strings.ToUpper(c.Name)] {
			b.WriteString(" NOT NULL")
		} else {
			b.WriteString(" NULL")
		}
	}
	if rowKey != rowKeyNone && t.Key == "" {
		b.WriteString(",\n  ")
		b.WriteString(d.Quote(dialects.RowKeyColumn))
		b.WriteString(" BIGINT NOT NULL AUTO_INCREMENT")
		if rowKey == rowKeyInvisible {
			b.WriteString(" INVISIBLE")
		}
		b.WriteString(",\n  PRIMARY KEY (")
		b.WriteString(d.Quote(dialects.RowKeyColumn))
		b.WriteByte(')')
	}
	for _, ix := range indexes {
		b.WriteString(",\n  ")
		if ix.Primary {
			b.WriteString("PRIMARY KEY (")
		} else {
			b.WriteString("INDEX ")
			b.WriteString(d.Quote(d.StoredName(ix.Name)))
			b.WriteString(" (")
		}
		b.WriteString(d.quoteAll(ix.Columns))
		b.WriteByte(')')
	}
	b.WriteString("\n) ")
	b.WriteString(TableOptions)
	return []string{b.String()}
}

package sqlite

import (
	"github.com/profdb/profdb/ddl"
	"github.com/profdb/profdb/dialects"
)

var _ dialects.ColumnAdder = Dialect{}

// AddColumn implements dialects.ColumnAdder. SQLite: ALTER TABLE t ADD COLUMN c type (a new column is nullable).
func (d Dialect) AddColumn(schema, table string, c ddl.Column) string {
	return "ALTER TABLE " + dialects.Qualify(d, schema, table) + " ADD COLUMN " + d.Quote(d.StoredName(c.Name)) + " " + d.ColumnType(c.Type)
}

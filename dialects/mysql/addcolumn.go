package mysql

import (
	"github.com/profdb/profdb/ddl"
	"github.com/profdb/profdb/dialects"
)

var _ dialects.ColumnAdder = Dialect{}

// AddColumn implements dialects.ColumnAdder. MySQL and MariaDB: ALTER TABLE t ADD COLUMN c type NULL (MySQL has no IF NOT EXISTS there).
func (d Dialect) AddColumn(schema, table string, c ddl.Column) string {
	return "ALTER TABLE " + dialects.Qualify(d, schema, table) + " ADD COLUMN " + d.Quote(d.StoredName(c.Name)) + " " + d.ColumnType(c.Type) + " NULL"
}

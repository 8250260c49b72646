package sqlserver

import (
	"github.com/profdb/profdb/ddl"
	"github.com/profdb/profdb/dialects"
)

var _ dialects.ColumnAdder = Dialect{}

// AddColumn implements dialects.ColumnAdder. SQL Server: ALTER TABLE t ADD c type NULL (no COLUMN keyword).
func (d Dialect) AddColumn(schema, table string, c ddl.Column) string {
	return "ALTER TABLE " + dialects.Qualify(d, schema, table) + " ADD " + d.Quote(d.StoredName(c.Name)) + " " + d.ColumnType(c.Type) + " NULL"
}

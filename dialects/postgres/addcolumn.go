package postgres

import (
	"github.com/profdb/profdb/ddl"
	"github.com/profdb/profdb/dialects"
)

var _ dialects.ColumnAdder = Dialect{}

// AddColumn implements dialects.ColumnAdder. PostgreSQL: ALTER TABLE t ADD COLUMN IF NOT EXISTS c type NULL, which a concurrent export adding the same column does not fail (on Citus, the change reaches every node).
func (d Dialect) AddColumn(schema, table string, c ddl.Column) string {
	return "ALTER TABLE " + dialects.Qualify(d, schema, table) + " ADD COLUMN IF NOT EXISTS " + d.Quote(d.StoredName(c.Name)) + " " + d.ColumnType(c.Type) + " NULL"
}

package mysql

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/profdb/profdb/ddl"
	"github.com/profdb/profdb/dialects"
)

var _ dialects.RowKeyer = Dialect{}

// RowKeyDemanded implements dialects.RowKeyer. A server demands a primary
// key when innodb_force_primary_key (MariaDB) or sql_require_primary_key
// (MySQL 8) is ON, or pxc_strict_mode (Percona XtraDB Cluster) is ENFORCING
// or MASTER. It can hide a column from MariaDB 10.3 and MySQL 8.0.23 on.
func (Dialect) RowKeyDemanded(ctx context.Context, q dialects.DBTX) (demanded, invisible bool, err error) {
	rows, err := q.QueryContext(ctx, `SHOW VARIABLES WHERE Variable_name IN
  ('innodb_force_primary_key', 'sql_require_primary_key', 'pxc_strict_mode', 'version')`)
	if err != nil {
		return false, false, fmt.Errorf("mysql: read primary-key settings: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var name, value string
		if err := rows.Scan(&name, &value); err != nil {
			return false, false, fmt.Errorf("mysql: read primary-key settings: %w", err)
		}
		switch strings.ToLower(name) {
		case "innodb_force_primary_key", "sql_require_primary_key":
			demanded = demanded || strings.EqualFold(value, "ON") || value == "1"
		case "pxc_strict_mode":
			demanded = demanded || strings.EqualFold(value, "ENFORCING") || strings.EqualFold(value, "MASTER")
		case "version":
			invisible = InvisibleColumns(value)
		}
	}
	if err := rows.Err(); err != nil {
		return false, false, fmt.Errorf("mysql: read primary-key settings: %w", err)
	}
	return demanded, invisible, nil
}

// InvisibleColumns reports whether a server of the given version (SELECT
// VERSION(), e.g. "10.11.6-MariaDB-0+deb12u1" or "8.0.36") has INVISIBLE
// columns: MariaDB 10.3 and MySQL 8.0.23 on.
func InvisibleColumns(version string) bool {
	num, _, _ := strings.Cut(version, "-")
	parts := strings.SplitN(num, ".", 3)
	v := [3]int{}
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil {
			return false
		}
		v[i] = n
	}
	atLeast := func(a, b, c int) bool {
		return v[0] > a || v[0] == a && (v[1] > b || v[1] == b && v[2] >= c)
	}
	if strings.Contains(strings.ToLower(version), "mariadb") {
		return atLeast(10, 3, 0)
	}
	return atLeast(8, 0, 23)
}

// CreateTableWithRowKey implements dialects.RowKeyer: CreateTableIn with
//
//	`PROFDB_ROW_ID` BIGINT NOT NULL AUTO_INCREMENT [INVISIBLE],
//	PRIMARY KEY (`PROFDB_ROW_ID`)
//
// after the documented columns. A table with a key of its own (INSTANCES,
// RELATIONS) is created as CreateTableIn creates it.
func (d Dialect) CreateTableWithRowKey(schema string, t ddl.Table, invisible bool) []string {
	if invisible {
		return d.createTable(schema, t, rowKeyInvisible)
	}
	return d.createTable(schema, t, rowKeyVisible)
}

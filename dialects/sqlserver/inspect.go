package sqlserver

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"

	"github.com/profdb/profdb/ddl"
	"github.com/profdb/profdb/dialects"
)

// schemaFilter returns the condition on TABLE_SCHEMA and its arguments:
// the schema as parameter @p1, or the login's default schema
// (SCHEMA_NAME()) when schema is "".
func schemaFilter(schema string) (string, []any) {
	if schema == "" {
		return "TABLE_SCHEMA = SCHEMA_NAME()", nil
	}
	return "TABLE_SCHEMA = @p1", []any{schema}
}

// Tables lists the base tables of schema ("" for the login's default
// schema) by their real names, sorted, from INFORMATION_SCHEMA.TABLES. A
// schema that does not exist is an error wrapping dialects.ErrNoSchema.
func (Dialect) Tables(ctx context.Context, q dialects.DBTX, schema string) ([]string, error) {
	cond, args := schemaFilter(schema)
	rows, err := q.QueryContext(ctx, "SELECT TABLE_NAME FROM INFORMATION_SCHEMA.TABLES WHERE "+cond+
		" AND TABLE_TYPE = 'BASE TABLE' ORDER BY TABLE_NAME", args...)
	if err != nil {
		return nil, fmt.Errorf("sqlserver: list tables: %w", err)
	}
	defer rows.Close()
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, fmt.Errorf("sqlserver: list tables: %w", err)
		}
		names = append(names, n)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlserver: list tables: %w", err)
	}
	if len(names) == 0 && schema != "" {
		// INFORMATION_SCHEMA.TABLES lists nothing of a schema that does not
		// exist: ask whether it does (the login's default one does).
		var exists int
		if err := q.QueryRowContext(ctx, "SELECT CASE WHEN SCHEMA_ID(@p1) IS NULL THEN 0 ELSE 1 END", schema).Scan(&exists); err != nil {
			return nil, fmt.Errorf("sqlserver: list tables: %w", err)
		}
		if exists == 0 {
			return nil, dialects.Wrapping(dialects.ErrNoSchema, fmt.Errorf("sqlserver: no schema %q in this database", schema))
		}
	}
	return names, nil
}

// Columns describes the columns of table in schema ("" for the login's
// default schema), in table order, from INFORMATION_SCHEMA.COLUMNS. The
// table name is matched by the database's collation (case-insensitively
// under SQL Server's default collations). A table that does not exist is an
// error wrapping dialects.ErrNoTable.
func (Dialect) Columns(ctx context.Context, q dialects.DBTX, schema, table string) ([]dialects.ColumnInfo, error) {
	cond, args := schemaFilter(schema)
	args = append(args, table)
	query := "SELECT COLUMN_NAME, DATA_TYPE, IS_NULLABLE, COLUMN_DEFAULT, CHARACTER_MAXIMUM_LENGTH," +
		" NUMERIC_PRECISION, NUMERIC_SCALE FROM INFORMATION_SCHEMA.COLUMNS WHERE " + cond +
		" AND TABLE_NAME = @p" + strconv.Itoa(len(args)) + " ORDER BY ORDINAL_POSITION"
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("sqlserver: columns of %s: %w", table, err)
	}
	defer rows.Close()
	var cols []dialects.ColumnInfo
	for rows.Next() {
		var (
			name, dataType, nullable string
			def                      sql.NullString
			maxLen, prec, scale      sql.NullInt64
		)
		if err := rows.Scan(&name, &dataType, &nullable, &def, &maxLen, &prec, &scale); err != nil {
			return nil, fmt.Errorf("sqlserver: columns of %s: %w", table, err)
		}
		c := describe(dataType, maxLen, prec, scale)
		c.Name = name
		c.Nullable = strings.EqualFold(nullable, "YES")
		c.HasDefault = def.Valid
		cols = append(cols, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlserver: columns of %s: %w", table, err)
	}
	if len(cols) == 0 {
		return nil, fmt.Errorf("sqlserver: columns of %s: %w", table, dialects.ErrNoTable)
	}
	return cols, nil
}

// describe maps an INFORMATION_SCHEMA.COLUMNS type (DATA_TYPE,
// CHARACTER_MAXIMUM_LENGTH, NUMERIC_PRECISION, NUMERIC_SCALE) to its
// spelling and its closest logical type:
//
//   - bigint, int, smallint, tinyint: Integer with IntBits 64, 32, 16, 8
//     (tinyint is unsigned, 0 to 255);
//   - nvarchar, varchar, nchar, char, ntext, text: String with MaxChars
//     the declared length, 0 for MAX (length -1) and for the large-object
//     types ntext and text; a declared length counts UTF-16 code units
//     (MaxCharsUTF16), as NVARCHAR(n) and NCHAR(n) do (VARCHAR(n) and
//     CHAR(n) count bytes, of which there are at least as many);
//   - decimal, numeric, money, smallmoney: Decimal with Precision and Scale;
//   - float, real: Float with FloatBits 64 for float (FLOAT(53)) and 32 for
//     real; SQL Server stores FLOAT(n) with n <= 24 as real, and a float
//     whose NUMERIC_PRECISION is 24 or less counts as 32 bits too.
//
// Any other type has Type 0.
func describe(dataType string, maxLen, prec, scale sql.NullInt64) dialects.ColumnInfo {
	dt := strings.ToLower(dataType)
	c := dialects.ColumnInfo{DBType: dt}
	switch dt {
	case "bigint":
		c.Type, c.IntBits = ddl.Integer, 64
	case "int":
		c.Type, c.IntBits = ddl.Integer, 32
	case "smallint":
		c.Type, c.IntBits = ddl.Integer, 16
	case "tinyint":
		c.Type, c.IntBits = ddl.Integer, 8
	case "nvarchar", "varchar", "nchar", "char":
		c.Type = ddl.String
		switch {
		case maxLen.Valid && maxLen.Int64 == -1:
			c.DBType += "(max)"
		case maxLen.Valid:
			c.MaxChars, c.MaxCharsUTF16 = maxLen.Int64, true
			c.DBType += "(" + strconv.FormatInt(maxLen.Int64, 10) + ")"
		}
	case "ntext", "text":
		c.Type = ddl.String
	case "decimal", "numeric":
		c.Type = ddl.Decimal
		c.Precision, c.Scale = int(prec.Int64), int(scale.Int64)
		c.DBType += "(" + strconv.Itoa(c.Precision) + "," + strconv.Itoa(c.Scale) + ")"
	case "money", "smallmoney":
		c.Type = ddl.Decimal
		c.Precision, c.Scale = int(prec.Int64), int(scale.Int64)
	case "float", "real":
		c.Type, c.FloatBits = ddl.Float, 64
		if dt == "real" || prec.Valid && prec.Int64 > 0 && prec.Int64 <= 24 {
			c.FloatBits = 32
		}
	}
	return c
}

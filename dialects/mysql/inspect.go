package mysql

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/profdb/profdb/ddl"
	"github.com/profdb/profdb/dialects"
)

// database returns schema, or the session's current database when schema
// is "".
func database(ctx context.Context, q dialects.DBTX, schema string) (string, error) {
	if schema != "" {
		return schema, nil
	}
	var db sql.NullString
	if err := q.QueryRowContext(ctx, "SELECT DATABASE()").Scan(&db); err != nil {
		return "", err
	}
	if !db.Valid {
		return "", dialects.Wrapping(dialects.ErrNoSchema, errors.New("no current database: name one in the DSN (mysql://host/DATABASE)"))
	}
	return db.String, nil
}

// Tables lists the base tables of database schema ("" for the current
// one), sorted by name. A database that does not exist is an error
// wrapping dialects.ErrNoSchema.
func (Dialect) Tables(ctx context.Context, q dialects.DBTX, schema string) ([]string, error) {
	fail := func(err error) error { return fmt.Errorf("mysql: list tables of database %q: %w", schema, err) }
	db, err := database(ctx, q, schema)
	if err != nil {
		return nil, fail(err)
	}
	rows, err := q.QueryContext(ctx, `SELECT TABLE_NAME FROM information_schema.TABLES
WHERE TABLE_SCHEMA = ? AND TABLE_TYPE = 'BASE TABLE'`, db)
	if err != nil {
		return nil, fail(err)
	}
	defer rows.Close()
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, fail(err)
		}
		names = append(names, n)
	}
	if err := rows.Err(); err != nil {
		return nil, fail(err)
	}
	if len(names) == 0 && schema != "" {
		// information_schema.TABLES lists nothing of a database that does
		// not exist: ask whether it does (the current one, which the
		// connection opened, does).
		var n int
		if err := q.QueryRowContext(ctx, "SELECT COUNT(*) FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?", db).Scan(&n); err != nil {
			return nil, fail(err)
		}
		if n == 0 {
			return nil, dialects.Wrapping(dialects.ErrNoSchema, fmt.Errorf("mysql: no database %q on the server that this login may see", schema))
		}
	}
	sort.Strings(names)
	return names, nil
}

// Columns describes the columns of table in database schema ("" for the
// current one), from information_schema.COLUMNS:
//   - DBType is COLUMN_TYPE as the server spells it ("int(11)" on MariaDB,
//     "int" on MySQL 8, "varchar(255)", "decimal(10,2)", "longtext");
//   - Type: tinyint, smallint, mediumint, int, bigint -> Integer (IntBits
//     8, 16, 24, 32, 64); char, varchar and the text types -> String;
//     decimal -> Decimal (Precision, Scale as declared); float, double ->
//     Float; anything else -> 0;
//   - MaxChars: the declared length of char and varchar; for tinytext,
//     text and mediumtext the characters that surely fit (bytes divided by
//     the character set's longest character); 0 for longtext (4 GiB, more
//     than any max_allowed_packet);
//   - HasDefault is true for a default other than NULL, AUTO_INCREMENT and
//     generated columns.
//
// A table that does not exist is an error wrapping dialects.ErrNoTable.
func (d Dialect) Columns(ctx context.Context, q dialects.DBTX, schema, table string) ([]dialects.ColumnInfo, error) {
	fail := func(err error) error {
		return fmt.Errorf("mysql: inspect table %s: %w", dialects.Qualify(d, schema, table), err)
	}
	db, err := database(ctx, q, schema)
	if err != nil {
		return nil, fail(err)
	}
	rows, err := q.QueryContext(ctx, `SELECT c.COLUMN_NAME, c.COLUMN_TYPE, c.DATA_TYPE, c.IS_NULLABLE, c.COLUMN_DEFAULT, c.EXTRA,
  c.CHARACTER_MAXIMUM_LENGTH, c.CHARACTER_OCTET_LENGTH, c.NUMERIC_PRECISION, c.NUMERIC_SCALE, cs.MAXLEN
FROM information_schema.COLUMNS c
LEFT JOIN information_schema.CHARACTER_SETS cs ON cs.CHARACTER_SET_NAME = c.CHARACTER_SET_NAME
WHERE c.TABLE_SCHEMA = ? AND c.TABLE_NAME = ?
ORDER BY c.ORDINAL_POSITION`, db, table)
	if err != nil {
		return nil, fail(err)
	}
	defer rows.Close()
	var out []dialects.ColumnInfo
	for rows.Next() {
		var (
			c                                dialects.ColumnInfo
			dataType, nullable, extra        string
			dflt                             sql.NullString
			maxChars, maxOctets, prec, scale sql.NullInt64
			maxLen                           sql.NullInt64
		)
		if err := rows.Scan(&c.Name, &c.DBType, &dataType, &nullable, &dflt, &extra,
			&maxChars, &maxOctets, &prec, &scale, &maxLen); err != nil {
			return nil, fail(err)
		}
		c.Nullable = nullable == "YES"
		// MariaDB reports DEFAULT NULL as the text NULL (string defaults
		// are quoted there); MySQL as SQL NULL.
		ex := strings.ToUpper(extra)
		c.HasDefault = (dflt.Valid && !strings.EqualFold(dflt.String, "NULL")) ||
			strings.Contains(ex, "AUTO_INCREMENT") || strings.Contains(ex, "GENERATED")
		switch strings.ToLower(dataType) {
		case "tinyint":
			c.Type, c.IntBits = ddl.Integer, 8
		case "smallint":
			c.Type, c.IntBits = ddl.Integer, 16
		case "mediumint":
			c.Type, c.IntBits = ddl.Integer, 24
		case "int", "integer":
			c.Type, c.IntBits = ddl.Integer, 32
		case "bigint":
			c.Type, c.IntBits = ddl.Integer, 64
		case "char", "varchar":
			c.Type, c.MaxChars = ddl.String, maxChars.Int64
		case "tinytext", "text", "mediumtext":
			c.Type = ddl.String
			if maxOctets.Valid && maxLen.Valid && maxLen.Int64 > 0 {
				c.MaxChars = maxOctets.Int64 / maxLen.Int64
			} else {
				c.MaxChars = maxChars.Int64
			}
		case "longtext":
			c.Type = ddl.String
		case "decimal", "numeric":
			c.Type, c.Precision, c.Scale = ddl.Decimal, int(prec.Int64), int(scale.Int64)
		case "float":
			c.Type, c.FloatBits = ddl.Float, 32
		case "double", "double precision", "real":
			c.Type, c.FloatBits = ddl.Float, 64
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fail(err)
	}
	if len(out) == 0 {
		return nil, fail(dialects.ErrNoTable)
	}
	return out, nil
}

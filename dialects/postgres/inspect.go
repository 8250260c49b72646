package postgres

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/lib/pq"

	"github.com/profdb/profdb/ddl"
	"github.com/profdb/profdb/dialects"
)

// Tables lists the base tables of schema ("" for current_schema()) that
// the user may see in information_schema, sorted by name. Names are the
// real ones: lower case for tables created unquoted, any case for tables
// created quoted. A schema that does not exist, or a search_path that
// names none that does, is an error wrapping dialects.ErrNoSchema.
func (Dialect) Tables(ctx context.Context, q dialects.DBTX, schema string) ([]string, error) {
	rows, err := q.QueryContext(ctx, `SELECT table_name FROM information_schema.tables
WHERE table_schema = COALESCE(NULLIF($1, ''), current_schema()) AND table_type = 'BASE TABLE'`, schema)
	if err != nil {
		return nil, fmt.Errorf("postgres: list tables of schema %q: %w", schema, err)
	}
	defer rows.Close()
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, fmt.Errorf("postgres: list tables of schema %q: %w", schema, err)
		}
		names = append(names, n)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("postgres: list tables of schema %q: %w", schema, err)
	}
	if len(names) == 0 {
		if err := schemaExists(ctx, q, schema); err != nil {
			return nil, err
		}
	}
	sort.Strings(names)
	return names, nil
}

// schemaExists returns an error wrapping dialects.ErrNoSchema when schema
// does not exist or, for "", when no schema of the search_path does
// (current_schema() is then NULL). information_schema lists the tables of
// neither, as it lists none of an empty schema.
func schemaExists(ctx context.Context, q dialects.DBTX, schema string) error {
	var exists bool
	var path string
	err := q.QueryRowContext(ctx, `SELECT CASE WHEN $1::text = '' THEN current_schema() IS NOT NULL
ELSE EXISTS (SELECT 1 FROM pg_catalog.pg_namespace WHERE nspname = $1::text) END, current_setting('search_path')`, schema).Scan(&exists, &path)
	switch {
	case err != nil:
		return fmt.Errorf("postgres: list tables of schema %q: %w", schema, err)
	case exists:
		return nil
	case schema == "":
		return dialects.Wrapping(dialects.ErrNoSchema, fmt.Errorf("postgres: no schema of the search_path (%s) exists in this database", path))
	}
	return dialects.Wrapping(dialects.ErrNoSchema, fmt.Errorf("postgres: no schema %q in this database", schema))
}

// Columns describes the columns of table (its real name, matched exactly)
// in schema ("" for current_schema()), from information_schema.columns:
//   - DBType is the type as PostgreSQL spells it: "bigint", "text",
//     "character varying(255)", "numeric(28,8)", "double precision";
//   - Type: smallint, integer, bigint -> Integer (IntBits 16, 32, 64);
//     character varying, character, text -> String (MaxChars the declared
//     length, 0 when unbounded); numeric -> Decimal (Precision and Scale as
//     declared, both 0 for an unconstrained numeric, which holds any value
//     exactly); real, double precision -> Float; anything else -> 0;
//   - HasDefault is true for a default other than NULL, an identity column
//     and a generated column.
//
// A table that does not exist is an error wrapping dialects.ErrNoTable.
func (d Dialect) Columns(ctx context.Context, q dialects.DBTX, schema, table string) ([]dialects.ColumnInfo, error) {
	m, err := d.ColumnsOf(ctx, q, schema, []string{table})
	if err != nil {
		return nil, err
	}
	return m[table], nil
}

var _ dialects.TablesInspector = Dialect{}

// ColumnsOf is Columns for several tables in one query
// (dialects.TablesInspector): PostgreSQL plans a query of
// information_schema.columns in a millisecond or two, more than it takes
// to answer it, and an export inspects a dozen tables.
func (d Dialect) ColumnsOf(ctx context.Context, q dialects.DBTX, schema string, tables []string) (map[string][]dialects.ColumnInfo, error) {
	fail := func(table string, err error) error {
		return fmt.Errorf("postgres: inspect table %s: %w", dialects.Qualify(d, schema, table), err)
	}
	failAll := func(err error) error {
		if len(tables) == 1 {
			return fail(tables[0], err)
		}
		return fmt.Errorf("postgres: inspect tables %s: %w", strings.Join(tables, ", "), err)
	}
	rows, err := q.QueryContext(ctx, `SELECT table_name, column_name, data_type, udt_name, is_nullable, column_default,
  is_identity, is_generated, character_maximum_length, numeric_precision, numeric_scale
FROM information_schema.columns
WHERE table_schema = COALESCE(NULLIF($1, ''), current_schema()) AND table_name = ANY($2)
ORDER BY table_name, ordinal_position`, schema, pq.Array(tables))
	if err != nil {
		return nil, failAll(err)
	}
	defer rows.Close()
	out := make(map[string][]dialects.ColumnInfo, len(tables))
	for rows.Next() {
		var (
			c                              dialects.ColumnInfo
			table, dataType, udt, nullable string
			identity, generated            string
			dflt                           sql.NullString
			maxLen, precision, scaleNr     sql.NullInt64
		)
		if err := rows.Scan(&table, &c.Name, &dataType, &udt, &nullable, &dflt, &identity, &generated,
			&maxLen, &precision, &scaleNr); err != nil {
			return nil, failAll(err)
		}
		c.Nullable = nullable == "YES"
		c.HasDefault = (dflt.Valid && !strings.HasPrefix(strings.ToUpper(dflt.String), "NULL")) ||
			identity == "YES" || generated == "ALWAYS"
		c.DBType = dataType
		switch dataType {
		case "smallint":
			c.Type, c.IntBits = ddl.Integer, 16
		case "integer":
			c.Type, c.IntBits = ddl.Integer, 32
		case "bigint":
			c.Type, c.IntBits = ddl.Integer, 64
		case "character varying", "character", "text":
			c.Type = ddl.String
			if maxLen.Valid {
				c.MaxChars = maxLen.Int64
				c.DBType += "(" + strconv.FormatInt(maxLen.Int64, 10) + ")"
			}
		case "numeric":
			c.Type = ddl.Decimal
			if precision.Valid {
				c.Precision, c.Scale = int(precision.Int64), int(scaleNr.Int64)
				c.DBType += "(" + strconv.Itoa(c.Precision) + "," + strconv.Itoa(c.Scale) + ")"
			}
		case "real":
			c.Type, c.FloatBits = ddl.Float, 32
		case "double precision":
			c.Type, c.FloatBits = ddl.Float, 64
		case "USER-DEFINED", "ARRAY":
			c.DBType = udt
		}
		out[table] = append(out[table], c)
	}
	if err := rows.Err(); err != nil {
		return nil, failAll(err)
	}
	for _, t := range tables {
		if len(out[t]) == 0 {
			return nil, fail(t, dialects.ErrNoTable)
		}
	}
	return out, nil
}

package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
	"strings"

	"github.com/profdb/profdb/ddl"
	"github.com/profdb/profdb/dialects"
)

// Tables lists the tables of schema ("" for "main"), internal sqlite_
// tables excluded, sorted by name. The schema is matched as SQLite matches
// a database name, ignoring case: "MAIN" is main, "Temp" is temp (which
// exists before anything is created in it). Any other name than those of
// the attached databases is an error wrapping dialects.ErrNoSchema.
func (d Dialect) Tables(ctx context.Context, q dialects.DBTX, schema string) ([]string, error) {
	if schema == "" {
		schema = "main"
	}
	var attached int
	if err := q.QueryRowContext(ctx, "SELECT COUNT(*) FROM pragma_database_list WHERE name = ? COLLATE NOCASE", schema).Scan(&attached); err != nil {
		return nil, fmt.Errorf("sqlite: list tables of %s: %w", schema, err)
	}
	if attached == 0 && !strings.EqualFold(schema, "temp") {
		return nil, dialects.Wrapping(dialects.ErrNoSchema, fmt.Errorf("sqlite: no schema %q: SQLite has no schemas, only attached databases (main, temp and those ATTACHed), and none is named so; write to another file with the DSN sqlite:OTHER.db instead", schema))
	}
	rows, err := q.QueryContext(ctx, "SELECT name FROM "+d.Quote(schema)+
		".sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'")
	if err != nil {
		return nil, fmt.Errorf("sqlite: list tables of %s: %w", schema, err)
	}
	defer rows.Close()
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, fmt.Errorf("sqlite: list tables of %s: %w", schema, err)
		}
		names = append(names, n)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: list tables of %s: %w", schema, err)
	}
	sort.Strings(names)
	return names, nil
}

// Columns describes the columns of table in schema ("" searches the
// databases in SQLite's own order: temp, main, attached; a name is matched
// ignoring case, as SQLite matches it), from pragma_table_info. It works for tables SQLite created from any declared
// type:
//   - Type follows SQLite's affinity rules (INT... -> Integer; CHAR, CLOB,
//     TEXT -> String; REAL, FLOA, DOUB -> Float; BLOB or none -> 0;
//     anything else, NUMERIC affinity and ANY, -> Decimal);
//   - DBType is the type as declared ("VARCHAR(255)", "ANY");
//   - IntBits is 64 for every Integer column (SQLite stores any declared
//     integer type as 64-bit);
//   - MaxChars is 0: SQLite does not enforce VARCHAR lengths;
//   - Precision and Scale are the declared ones ("DECIMAL(10,2)": 10, 2),
//     0 when none are declared. SQLite enforces neither: ANY in a STRICT
//     table keeps every value exactly; a non-STRICT NUMERIC/DECIMAL column
//     stores a decimal that does not fit int64 as a lossy REAL;
//   - Nullable is false for NOT NULL columns and for primary-key columns
//     SQLite never leaves NULL (STRICT or WITHOUT ROWID tables, INTEGER
//     PRIMARY KEY);
//   - HasDefault is true for a default other than NULL and for an INTEGER
//     PRIMARY KEY (SQLite assigns the rowid).
//
// A table that does not exist is an error wrapping dialects.ErrNoTable.
func (d Dialect) Columns(ctx context.Context, q dialects.DBTX, schema, table string) ([]dialects.ColumnInfo, error) {
	fail := func(err error) error {
		return fmt.Errorf("sqlite: inspect table %s: %w", dialects.Qualify(d, schema, table), err)
	}
	// The table's kind: STRICT, WITHOUT ROWID (pragma_table_list, SQLite
	// 3.37 and later).
	// Without a schema, SQLite looks in temp, then main, then the attached
	// databases.
	var strict, withoutRowid bool
	err := q.QueryRowContext(ctx, `SELECT "strict", wr FROM pragma_table_list(?1)
WHERE type = 'table' AND (?2 = '' OR schema = ?2 COLLATE NOCASE)
ORDER BY CASE schema WHEN 'temp' THEN 0 WHEN 'main' THEN 1 ELSE 2 END LIMIT 1`, table, schema).
		Scan(&strict, &withoutRowid)
	if err == sql.ErrNoRows {
		return nil, fail(dialects.ErrNoTable)
	}
	if err != nil {
		return nil, fail(err)
	}

	info, args := "pragma_table_info(?1)", []any{table}
	if schema != "" {
		info, args = "pragma_table_info(?1, ?2)", append(args, schema)
	}
	rows, err := q.QueryContext(ctx, `SELECT name, type, "notnull", dflt_value, pk FROM `+info+` ORDER BY cid`, args...)
	if err != nil {
		return nil, fail(err)
	}
	defer rows.Close()
	type col struct {
		info dialects.ColumnInfo
		pk   int
	}
	var cols []col
	pkCols := 0
	for rows.Next() {
		var (
			c       col
			notNull bool
			dflt    sql.NullString
		)
		if err := rows.Scan(&c.info.Name, &c.info.DBType, &notNull, &dflt, &c.pk); err != nil {
			return nil, fail(err)
		}
		c.info.Type = affinity(c.info.DBType)
		// Outside STRICT tables, a numeric affinity turns numbers beyond
		// int64 (and long decimals) into lossy REALs.
		c.info.ApproxNumbers = !strict && (c.info.Type == ddl.Integer || c.info.Type == ddl.Decimal || c.info.Type == ddl.Float)
		if c.info.ApproxNumbers {
			c.info.ApproxExact = "SQLite tables made by profdb are STRICT and keep them exactly"
		}
		if c.info.Type == ddl.Float {
			c.info.FloatBits = 64 // SQLite stores every REAL as an 8-byte double
		}
		switch c.info.Type {
		case ddl.Integer:
			c.info.IntBits = 64
		case ddl.Decimal:
			c.info.Precision, c.info.Scale = typeArgs(c.info.DBType)
		}
		c.info.Nullable = !notNull
		c.info.HasDefault = dflt.Valid && !strings.EqualFold(strings.TrimSpace(dflt.String), "NULL")
		if c.pk > 0 {
			pkCols++
		}
		cols = append(cols, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fail(err)
	}
	if len(cols) == 0 {
		return nil, fail(dialects.ErrNoTable)
	}
	out := make([]dialects.ColumnInfo, len(cols))
	for i, c := range cols {
		if c.pk > 0 {
			rowidAlias := !withoutRowid && pkCols == 1 && strings.EqualFold(strings.TrimSpace(c.info.DBType), "INTEGER")
			if strict || withoutRowid || rowidAlias {
				c.info.Nullable = false
			}
			if rowidAlias {
				c.info.HasDefault = true
			}
		}
		out[i] = c.info
	}
	return out, nil
}

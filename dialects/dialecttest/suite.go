package dialecttest

import (
	"database/sql"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/profdb/profdb/ddl"
	"github.com/profdb/profdb/dialects"
	"github.com/profdb/profdb/profilers"
	"github.com/profdb/profdb/profilers/lightcoverage"
)

// Config is what Run needs to know of a database beyond its Dialect. The
// zero value runs every check, with the expectations every dialect shares.
type Config struct {
	// Schema is a schema (a database on MySQL, an attached database on
	// SQLite) that the catalogue is created in as well, by name, after the
	// connection's default; "" for none. It may be the default one, named.
	Schema string
	// Column, when set, is exactly what Dialect.Columns must report of
	// column c of tab as the dialect creates it. The properties every
	// dialect shares are checked with or without it.
	Column func(tab ddl.Table, c ddl.Column) dialects.ColumnInfo
	// CheckTable, when set, runs the dialect's own checks of each table the
	// catalogue created in schema: its indexes, its engine.
	CheckTable func(t *testing.T, schema string, tab ddl.Table)
	// NoNUL is set where text cannot hold U+0000 (PostgreSQL): the round
	// trip leaves it out. The dialect's own tests check that it is refused.
	NoNUL bool
	// NoSubnormals is set where floats of a magnitude below
	// 2.2250738585072014e-308 cannot be stored (SQL Server): the round trip
	// stores the smallest normal float of the same sign instead.
	NoSubnormals bool
	// Skip names checks (subtests of Run) that cannot pass on this
	// database, each with the reason, which the skipped subtest reports.
	Skip map[string]string
}

// suite is what every check of Run works on.
type suite struct {
	d dialects.Dialect
	q dialects.DBTX
	c Config
}

// checks are Run's subtests, in the order they run. The catalogue comes
// first, while the default schema holds nothing else; the other checks
// create tables of their own, or only the ones the catalogue has.
var checks = []struct {
	name string
	run  func(t *testing.T, s suite)
}{
	{"catalogue", checkCatalogue},
	{"missing-table", checkMissingTable},
	{"missing-schema", checkMissingSchema},
	{"round-trip", checkRoundTrip},
	{"max-params", checkMaxParams},
	{"consumer-query", checkConsumerQuery},
}

// Run is the conformance suite every dialect passes, one subtest per check
// (golang-migrate's database/testing is the model):
//
//   - catalogue: the DDL of every table (AllTables) runs twice in the
//     default schema and in c.Schema without error; Dialect.Tables lists
//     exactly those tables under their stored names, and Dialect.Columns
//     describes each column as the plugins define it: its name, logical
//     type, nullability, 64-bit numbers, text without a length limit,
//     DECIMAL(28,8), and exactly c.Column when set; c.CheckTable runs on
//     every table; a dialects.TablesInspector's ColumnsOf of every table
//     answers what Columns does of each;
//   - missing-table: Dialect.Columns of a table that does not exist is an
//     error that wraps dialects.ErrNoTable and names the table, never an
//     empty list (the contract every caller relies on), and so is ColumnsOf
//     of it with another;
//   - missing-schema: Dialect.Tables of a schema that does not exist is an
//     error that wraps dialects.ErrNoSchema and names the schema, never an
//     empty list (which a reader would take for a database without result
//     sets);
//   - round-trip: edge values of every logical type (RoundTripRows) go in
//     through Bind and InsertSQL, in one statement, and come back exactly,
//     read as a plain query and as a prepared statement with a bound
//     parameter (which MySQL answers in its binary protocol);
//   - max-params: one INSERT with as many parameters as Limits allows runs;
//   - consumer-query: ConsumerQuery runs unchanged on Light Coverage rows
//     and returns them.
//
// q is an empty database: its default schema holds no table, and nothing
// else uses it while Run runs. Pass a *sql.Conn when c.Schema exists on one
// connection only (SQLite's ATTACH).
func Run(t *testing.T, d dialects.Dialect, q dialects.DBTX, c Config) {
	s := suite{d: d, q: q, c: c}
	names := map[string]bool{}
	for _, ch := range checks {
		names[ch.name] = true
		t.Run(ch.name, func(t *testing.T) {
			if why, ok := c.Skip[ch.name]; ok {
				t.Skip(why)
			}
			ch.run(t, s)
		})
	}
	for name := range c.Skip {
		if !names[name] {
			t.Errorf("Config.Skip names %q, which is no check of Run", name)
		}
	}
}

// schemas are the schemas the catalogue is created in.
func (s suite) schemas() []string {
	if s.c.Schema == "" {
		return []string{""}
	}
	return []string{"", s.c.Schema}
}

// checkCatalogue creates the whole catalogue (AllTables) twice in each
// schema with CreateTableIn, proving the DDL idempotent, and checks what
// Tables and Columns report of it.
func checkCatalogue(t *testing.T, s suite) {
	ctx := Context(t)
	d := s.d
	tables := AllTables(t)
	var names []string
	for _, tab := range tables {
		names = append(names, d.StoredName(tab.Name))
	}
	slices.Sort(names)
	for _, schema := range s.schemas() {
		for pass := 1; pass <= 2; pass++ {
			for _, tab := range tables {
				for _, stmt := range d.CreateTableIn(schema, tab) {
					if _, err := s.q.ExecContext(ctx, stmt); err != nil {
						t.Fatalf("schema %q, pass %d: %s: %v", schema, pass, stmt, err)
					}
				}
			}
		}
		got, err := d.Tables(ctx, s.q, schema)
		if err != nil {
			t.Fatal(err)
		}
		got = slices.Sorted(slices.Values(got))
		if !slices.Equal(got, names) {
			t.Fatalf("Tables(%q) = %v\nwant %v", schema, got, names)
		}
		var many map[string][]dialects.ColumnInfo
		if ti, ok := d.(dialects.TablesInspector); ok {
			if many, err = ti.ColumnsOf(ctx, s.q, schema, names); err != nil {
				t.Fatal(err)
			}
			if len(many) != len(names) {
				t.Errorf("ColumnsOf(%q, every table) answers %d tables, want %d", schema, len(many), len(names))
			}
		}
		for _, tab := range tables {
			cols, err := d.Columns(ctx, s.q, schema, d.StoredName(tab.Name))
			if err != nil {
				t.Fatal(err)
			}
			if many != nil && !reflect.DeepEqual(many[d.StoredName(tab.Name)], cols) {
				t.Errorf("ColumnsOf(%q, every table)[%s] =\n%+v\nwant what Columns says:\n%+v", schema, tab.Name, many[d.StoredName(tab.Name)], cols)
			}
			checkColumns(t, d, schema, tab, cols)
			if s.c.Column != nil {
				var want []dialects.ColumnInfo
				for _, c := range tab.Columns {
					want = append(want, s.c.Column(tab, c))
				}
				if !reflect.DeepEqual(cols, want) {
					t.Errorf("Columns(%q, %s) =\n%+v\nwant\n%+v", schema, tab.Name, cols, want)
				}
			}
			if s.c.CheckTable != nil {
				s.c.CheckTable(t, schema, tab)
			}
		}
	}
}

// checkColumns checks what every dialect reports of the columns of a table
// it created: in table order, under their stored names, of the logical type
// defined, nullable unless NOT NULL or the key, 64-bit integers and floats,
// text without a limit, and decimals of precision 28 and scale 8 wherever
// the dialect's column type declares one.
func checkColumns(t *testing.T, d dialects.Dialect, schema string, tab ddl.Table, cols []dialects.ColumnInfo) {
	t.Helper()
	if len(cols) != len(tab.Columns) {
		t.Errorf("Columns(%q, %s): %d columns, want %d", schema, tab.Name, len(cols), len(tab.Columns))
		return
	}
	// SQLite keeps decimals in ANY columns, which declare no precision.
	decimalDeclared := strings.Contains(d.ColumnType(ddl.Decimal), "(")
	for i, c := range cols {
		wc := tab.Columns[i]
		key := wc.NotNull || strings.EqualFold(tab.Key, wc.Name)
		var problems []string
		if c.Name != d.StoredName(wc.Name) {
			problems = append(problems, "name "+c.Name)
		}
		if c.Type != wc.Type {
			problems = append(problems, "type "+c.Type.String())
		}
		if c.Nullable == key {
			problems = append(problems, fmt.Sprintf("nullable %v", c.Nullable))
		}
		switch wc.Type {
		case ddl.Integer:
			if c.IntBits != 64 {
				problems = append(problems, fmt.Sprintf("%d-bit", c.IntBits))
			}
		case ddl.Float:
			if c.FloatBits != 64 {
				problems = append(problems, fmt.Sprintf("%d-bit", c.FloatBits))
			}
		case ddl.String:
			if c.MaxChars != 0 {
				problems = append(problems, fmt.Sprintf("at most %d characters", c.MaxChars))
			}
		case ddl.Decimal:
			if decimalDeclared && (c.Precision != ddl.DecimalPrecision || c.Scale != ddl.DecimalScale) {
				problems = append(problems, fmt.Sprintf("precision %d,%d", c.Precision, c.Scale))
			}
		}
		if len(problems) > 0 {
			t.Errorf("%s.%s (%s): %s; want %s %v", tab.Name, wc.Name, c.DBType, strings.Join(problems, ", "), d.ColumnType(wc.Type), wc.Type)
		}
	}
}

// checkMissingTable: Columns of a table that does not exist, in each schema
// of the catalogue, is an error that wraps dialects.ErrNoTable and names
// it, never an empty list.
func checkMissingTable(t *testing.T, s suite) {
	missing := s.d.StoredName("NO_SUCH_TABLE")
	for _, schema := range s.schemas() {
		cols, err := s.d.Columns(Context(t), s.q, schema, missing)
		if !errors.Is(err, dialects.ErrNoTable) || !strings.Contains(err.Error(), missing) {
			t.Errorf("Columns of the missing table %s in schema %q: %d columns, %v; want an error that wraps dialects.ErrNoTable and names the table",
				missing, schema, len(cols), err)
		}
		ti, ok := s.d.(dialects.TablesInspector)
		if !ok {
			continue
		}
		with := []string{missing, s.d.StoredName(profilers.InstancesTable)}
		many, err := ti.ColumnsOf(Context(t), s.q, schema, with)
		if !errors.Is(err, dialects.ErrNoTable) || !strings.Contains(err.Error(), missing) {
			t.Errorf("ColumnsOf(%q, %v): %d tables, %v; want an error that wraps dialects.ErrNoTable and names %s",
				schema, with, len(many), err, missing)
		}
	}
}

// checkMissingSchema: Tables of a schema that does not exist is an error
// that wraps dialects.ErrNoSchema and names it, never an empty list.
func checkMissingSchema(t *testing.T, s suite) {
	const missing = "profdb_no_such_schema"
	tables, err := s.d.Tables(Context(t), s.q, missing)
	if !errors.Is(err, dialects.ErrNoSchema) || !strings.Contains(err.Error(), missing) {
		t.Errorf("Tables of the missing schema %s: %v, %v; want an error that wraps dialects.ErrNoSchema and names the schema", missing, tables, err)
	}
}

// roundTripRows are RoundTripRows as the database can hold them.
func (s suite) roundTripRows() [][]any {
	rows := RoundTripRows(!s.c.NoNUL)
	if s.c.NoSubnormals {
		col := roundTripTable.ColumnIndex("COL_FLOAT")
		for _, r := range rows {
			if f, ok := r[col].(float64); ok && f != 0 && math.Abs(f) < smallestNormal {
				r[col] = math.Copysign(smallestNormal, f)
			}
		}
	}
	return rows
}

// smallestNormal is the smallest normal float64.
const smallestNormal = 2.2250738585072014e-308

// checkRoundTrip writes RoundTripRows in one INSERT and reads them back,
// as a plain query and as a prepared statement.
func checkRoundTrip(t *testing.T, s suite) {
	ctx := Context(t)
	CreateRoundTripTable(ctx, t, s.d, s.q, "")
	rows := s.roundTripRows()
	InsertRows(ctx, t, s.d, s.q, "", RoundTripTable(), rows)
	CheckRoundTrip(ctx, t, s.d, s.q, rows)
	CheckRoundTrip(ctx, t, s.d, s.q, rows, int64(0))
}

// checkMaxParams runs one INSERT with as many parameters as the dialect's
// limits allow, in rows of a table like the round trip's.
func checkMaxParams(t *testing.T, s suite) {
	ctx := Context(t)
	d := s.d
	table := RoundTripTable()
	table.Name = "PROFDB_MAX_PARAMS"
	for _, stmt := range d.CreateTableIn("", table) {
		if _, err := s.q.ExecContext(ctx, stmt); err != nil {
			t.Fatalf("create %s: %v", table.Name, err)
		}
	}
	l, cols := d.Facts().Limits, len(table.Columns)
	n := dialects.RowsPerInsert(l, cols)
	if n*cols > l.MaxParams || (n+1)*cols <= l.MaxParams && n != l.MaxRows {
		t.Fatalf("RowsPerInsert = %d does not fill %d params (at most %d rows)", n, l.MaxParams, l.MaxRows)
	}
	rows := make([][]any, n)
	for i := range rows {
		rows[i] = []any{int64(1000 + i), "s", int64(i), ddl.Dec("1.5"), 2.5}
	}
	InsertRows(ctx, t, d, s.q, "", table, rows)
	var count int64
	if err := s.q.QueryRowContext(ctx, "SELECT COUNT(*) FROM "+dialects.Qualify(d, "", d.StoredName(table.Name))).Scan(&count); err != nil {
		t.Fatal(err)
	}
	if count != int64(n) {
		t.Fatalf("count = %d, want %d", count, n)
	}
}

// ConsumerQuery is the query a consumer in the wild, a SonarQube plugin,
// runs on Light Coverage results, unchanged: the documented upper-case
// names without quotes. Such queries must run on the tables profdb creates
// in every dialect.
const ConsumerQuery = `SELECT l.ID, COL_FILE_NAME, l.COL_MARK, l.COL_SOURCE_LINE, f.COL____COVERED
FROM LIGHT_COVERAGE_PROFILER_LINES l
INNER JOIN LIGHT_COVERAGE_PROFILER_SOURCE_FILES_DATA f ON l.PARENT_ID = f.ID
ORDER BY COL_FILE_NAME`

// checkConsumerQuery creates the two tables ConsumerQuery reads, fills two
// source files and two lines, and runs it.
func checkConsumerQuery(t *testing.T, s suite) {
	ctx := Context(t)
	d, q := s.d, s.q
	def, err := profilers.Lookup(lightcoverage.Name)
	if err != nil {
		t.Fatal(err)
	}
	lines, okLines := def.Table(lightcoverage.Lines)
	files, okFiles := def.Table(lightcoverage.SourceFilesData)
	if !okLines || !okFiles {
		t.Fatalf("light-coverage defines no %s or no %s", lightcoverage.Lines, lightcoverage.SourceFilesData)
	}
	for _, tab := range []ddl.Table{lines, files} {
		for _, stmt := range d.CreateTableIn("", tab) {
			if _, err := q.ExecContext(ctx, stmt); err != nil {
				t.Fatalf("%s: %v", stmt, err)
			}
		}
	}
	row := func(tab ddl.Table, vals map[string]any) []any {
		r := make([]any, len(tab.Columns))
		for i, c := range tab.Columns {
			if v, ok := vals[c.Name]; ok {
				r[i] = v
			} else if c.Type == ddl.Integer {
				r[i] = int64(0)
			}
		}
		return r
	}
	InsertRows(ctx, t, d, q, "", files, [][]any{
		row(files, map[string]any{"ID": int64(10), "INST_ID": int64(1), "COL_FILE_NAME": "b.pas", "COL____COVERED": ddl.Dec("50")}),
		row(files, map[string]any{"ID": int64(11), "INST_ID": int64(1), "COL_FILE_NAME": "a.pas", "COL____COVERED": ddl.Dec("100")}),
	})
	InsertRows(ctx, t, d, q, "", lines, [][]any{
		row(lines, map[string]any{"ID": int64(1), "INST_ID": int64(1), "PARENT_ID": int64(10), "COL_MARK": ddl.Dec("1"), "COL_SOURCE_LINE": int64(7)}),
		row(lines, map[string]any{"ID": int64(2), "INST_ID": int64(1), "PARENT_ID": int64(11), "COL_MARK": ddl.Dec("2"), "COL_SOURCE_LINE": int64(8)}),
	})
	rows, err := q.QueryContext(ctx, ConsumerQuery)
	if err != nil {
		t.Fatalf("consumer query: %v", err)
	}
	defer rows.Close()
	var got []string
	for rows.Next() {
		var (
			id, line int64
			name     string
			mark     sql.NullString
			covered  any
		)
		if err := rows.Scan(&id, &name, &mark, &line, &covered); err != nil {
			t.Fatal(err)
		}
		c, _ := NormDec(covered)
		m, _ := NormDec(mark.String)
		got = append(got, fmt.Sprintf("%d %s %s %d %s", id, name, m, line, c))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	want := []string{"2 a.pas 2 8 100", "1 b.pas 1 7 50"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("consumer query returned %q, want %q", got, want)
	}
}

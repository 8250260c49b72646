package sqlserver_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/sqlc-dev/teesql/ast"

	"github.com/profdb/profdb/ddl"
	"github.com/profdb/profdb/dialects"
	"github.com/profdb/profdb/dialects/dialecttest"
	"github.com/profdb/profdb/dialects/sqlserver"
	"github.com/profdb/profdb/profilers"
)

// builtinTypes are SQL Server's system data types.
var builtinTypes = map[string]bool{
	"bigint": true, "int": true, "smallint": true, "tinyint": true, "bit": true,
	"decimal": true, "numeric": true, "money": true, "smallmoney": true,
	"float": true, "real": true,
	"date": true, "datetime2": true, "datetime": true, "datetimeoffset": true, "smalldatetime": true, "time": true,
	"char": true, "varchar": true, "text": true, "nchar": true, "nvarchar": true, "ntext": true,
	"binary": true, "varbinary": true, "image": true,
	"uniqueidentifier": true, "xml": true, "sql_variant": true, "rowversion": true, "timestamp": true,
	"hierarchyid": true, "geometry": true, "geography": true, "cursor": true, "table": true,
}

// goLine matches a batch separator line.
var goLine = regexp.MustCompile(`(?mi)^[ \t]*GO[ \t]*\r?$`)

// splitBatches splits a script on its GO lines, dropping empty batches.
func splitBatches(script string) []string {
	var out []string
	for _, b := range goLine.Split(script, -1) {
		if b = strings.TrimSpace(b); b != "" {
			out = append(out, b)
		}
	}
	return out
}

// renderType spells a parsed data type the way ColumnType does.
func renderType(t *testing.T, dt ast.DataTypeReference) (name, full string) {
	t.Helper()
	ref, ok := dt.(*ast.SqlDataTypeReference)
	if !ok {
		t.Fatalf("data type %T is not a SQL Server system type", dt)
	}
	if ref.SqlDataTypeOption == "" || ref.Name == nil || ref.Name.BaseIdentifier == nil {
		t.Fatalf("data type %+v not recognized", ref)
	}
	name = ref.Name.BaseIdentifier.Value
	full = strings.ToUpper(name)
	if len(ref.Parameters) > 0 {
		var ps []string
		for _, p := range ref.Parameters {
			switch l := p.(type) {
			case *ast.IntegerLiteral:
				ps = append(ps, l.Value)
			case *ast.MaxLiteral:
				ps = append(ps, strings.ToUpper(l.Value))
			default:
				t.Fatalf("type parameter %T", p)
			}
		}
		full += "(" + strings.Join(ps, ",") + ")"
	}
	return strings.ToLower(name), full
}

func identValues(ids []*ast.Identifier) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = id.Value
	}
	return out
}

func sortColumns(cols []*ast.ColumnWithSortOrder) []string {
	var out []string
	for _, c := range cols {
		out = append(out, identValues(c.Column.MultiPartIdentifier.Identifiers)...)
	}
	return out
}

func equal(a, b []string) bool { return strings.Join(a, "\x00") == strings.Join(b, "\x00") }

// checkCreateTable checks one CREATE TABLE batch, parsed by teesql, against
// the table definition: the OBJECT_ID guard names the table it creates,
// columns come in document order with the dialect's types and nullability,
// and a keyed table has its primary key.
func checkCreateTable(t *testing.T, d sqlserver.Dialect, schema string, tb ddl.Table, script *ast.Script) {
	t.Helper()
	if len(script.Batches) != 1 || len(script.Batches[0].Statements) != 1 {
		t.Fatalf("%s: want one statement in the batch, got %+v", tb.Name, script.Batches)
	}
	ifs, ok := script.Batches[0].Statements[0].(*ast.IfStatement)
	if !ok {
		t.Fatalf("%s: statement is %T, want IF", tb.Name, script.Batches[0].Statements[0])
	}
	isNull, ok := ifs.Predicate.(*ast.BooleanIsNullExpression)
	if !ok || isNull.IsNot {
		t.Fatalf("%s: guard is %T, want OBJECT_ID(...) IS NULL", tb.Name, ifs.Predicate)
	}
	fc, ok := isNull.Expression.(*ast.FunctionCall)
	if !ok || !strings.EqualFold(fc.FunctionName.Value, "OBJECT_ID") {
		t.Fatalf("%s: guard tests %T, want OBJECT_ID", tb.Name, isNull.Expression)
	}
	if got, want := stringLiterals(fc), []string{dialects.Qualify(d, schema, tb.Name), "U"}; !equal(got, want) {
		t.Errorf("%s: OBJECT_ID arguments %q, want %q", tb.Name, got, want)
	}
	block, ok := ifs.ThenStatement.(*ast.BeginEndBlockStatement)
	if !ok || block.StatementList == nil || len(block.StatementList.Statements) != 1 || ifs.ElseStatement != nil {
		t.Fatalf("%s: want BEGIN CREATE TABLE ...; END, got %T", tb.Name, ifs.ThenStatement)
	}
	ct, ok := block.StatementList.Statements[0].(*ast.CreateTableStatement)
	if !ok {
		t.Fatalf("%s: block holds %T, want CREATE TABLE", tb.Name, block.StatementList.Statements[0])
	}
	name := ct.SchemaObjectName
	if name.BaseIdentifier.Value != tb.Name {
		t.Errorf("CREATE TABLE %q, want %q", name.BaseIdentifier.Value, tb.Name)
	}
	gotSchema := ""
	if name.SchemaIdentifier != nil {
		gotSchema = name.SchemaIdentifier.Value
	}
	if gotSchema != schema || name.DatabaseIdentifier != nil {
		t.Errorf("%s: created in schema %q, want %q", tb.Name, gotSchema, schema)
	}
	cols := ct.Definition.ColumnDefinitions
	if len(cols) != len(tb.Columns) {
		t.Fatalf("%s: %d columns, want %d", tb.Name, len(cols), len(tb.Columns))
	}
	for i, c := range cols {
		want := tb.Columns[i]
		if c.ColumnIdentifier.Value != want.Name {
			t.Errorf("%s column %d: %q, want %q", tb.Name, i+1, c.ColumnIdentifier.Value, want.Name)
		}
		typeName, full := renderType(t, c.DataType)
		if !builtinTypes[typeName] {
			t.Errorf("%s.%s: type %q is not a SQL Server built-in type", tb.Name, want.Name, typeName)
		}
		if full != d.ColumnType(want.Type) {
			t.Errorf("%s.%s: type %s, want %s for %v", tb.Name, want.Name, full, d.ColumnType(want.Type), want.Type)
		}
		wantNull := !(want.Name == ddl.InstID || want.Name == tb.Key)
		var nulls []bool
		for _, k := range c.Constraints {
			if n, ok := k.(*ast.NullableConstraintDefinition); ok {
				nulls = append(nulls, n.Nullable)
			}
		}
		if c.Nullable != nil {
			nulls = append(nulls, c.Nullable.Nullable)
		}
		if len(nulls) != 1 || nulls[0] != wantNull {
			t.Errorf("%s.%s: nullability %v, want explicit nullable=%v", tb.Name, want.Name, nulls, wantNull)
		}
		if c.DefaultConstraint != nil || c.IdentityOptions != nil || c.ComputedColumnExpression != nil || c.Collation != nil {
			t.Errorf("%s.%s: unexpected default, identity, computation or collation", tb.Name, want.Name)
		}
	}
	var pks []*ast.UniqueConstraintDefinition
	for _, k := range ct.Definition.TableConstraints {
		u, ok := k.(*ast.UniqueConstraintDefinition)
		if !ok || !u.IsPrimaryKey {
			t.Errorf("%s: unexpected table constraint %T", tb.Name, k)
			continue
		}
		pks = append(pks, u)
	}
	switch {
	case tb.Key == "" && len(pks) != 0:
		t.Errorf("%s: has a primary key, want none", tb.Name)
	case tb.Key != "" && len(pks) != 1:
		t.Errorf("%s: %d primary keys, want one on %s", tb.Name, len(pks), tb.Key)
	case tb.Key != "":
		if got := sortColumns(pks[0].Columns); !equal(got, []string{tb.Key}) {
			t.Errorf("%s: primary key on %v, want %s", tb.Name, got, tb.Key)
		}
		if pks[0].ConstraintIdentifier == nil || pks[0].ConstraintIdentifier.Value != "PK_"+tb.Name {
			t.Errorf("%s: primary key constraint %+v, want PK_%s", tb.Name, pks[0].ConstraintIdentifier, tb.Name)
		}
	}
}

// checkCreateIndex checks one CREATE INDEX batch against the index: the
// guard looks the index up by name on the table it is created on.
func checkCreateIndex(t *testing.T, d sqlserver.Dialect, schema string, tb ddl.Table, ix ddl.Index, script *ast.Script) {
	t.Helper()
	if len(script.Batches) != 1 || len(script.Batches[0].Statements) != 1 {
		t.Fatalf("%s: want one statement in the batch", ix.Name)
	}
	ifs, ok := script.Batches[0].Statements[0].(*ast.IfStatement)
	if !ok || ifs.ElseStatement != nil {
		t.Fatalf("%s: statement is %T, want IF", ix.Name, script.Batches[0].Statements[0])
	}
	if got, want := stringLiterals(ifs.Predicate), append([]string{dialects.Qualify(d, schema, tb.Name)}, ix.Columns...); !equal(got, want) {
		t.Errorf("%s: guard literals %q, want %q", ix.Name, got, want)
	}
	ci, ok := ifs.ThenStatement.(*ast.CreateIndexStatement)
	if !ok {
		t.Fatalf("%s: IF runs %T, want CREATE INDEX", ix.Name, ifs.ThenStatement)
	}
	if ci.Name.Value != ix.Name || ci.OnName.BaseIdentifier.Value != tb.Name || ci.Unique {
		t.Errorf("CREATE INDEX %s ON %s (unique %v), want %s ON %s", ci.Name.Value, ci.OnName.BaseIdentifier.Value, ci.Unique, ix.Name, tb.Name)
	}
	if got := sortColumns(ci.Columns); !equal(got, ix.Columns) {
		t.Errorf("%s: columns %v, want %v", ix.Name, got, ix.Columns)
	}
}

// TestScriptParses generates the DDL script of the whole catalogue, splits
// it on GO lines, and checks every batch, read by teesql, against the
// plugin definitions: the exact names (Babelfish compares them without
// case) and SQL Server's own types (Babelfish accepts PostgreSQL's too).
// That the script runs is TestDDLScriptInSQLServer's (cmd/profdb), on the
// real server.
func TestScriptParses(t *testing.T) {
	var d sqlserver.Dialect
	tables := dialecttest.AllTables(t)
	script := ddl.Script(dialects.Generator(d, ""), []string{"profdb: AQTime result tables for SQL Server"}, tables)
	batches := splitBatches(script)

	// The script is each statement of each table, in order, as a batch.
	var want []string
	for _, tb := range tables {
		for _, s := range d.CreateTableIn("", tb) {
			want = append(want, s+";")
		}
	}
	if len(batches) != len(want) {
		t.Fatalf("%d batches, want %d", len(batches), len(want))
	}
	batches[0] = strings.TrimSpace(batches[0][strings.Index(batches[0], "\n"):]) // header comment
	for i := range want {
		if batches[i] != want[i] {
			t.Fatalf("batch %d:\n%s\nwant\n%s", i+1, batches[i], want[i])
		}
	}

	// The whole script, GO lines included, parses: one batch per
	// statement, and a CREATE TABLE for every table.
	whole := mustParse(t, "script", script)
	if len(whole.Batches) != len(batches) {
		t.Errorf("whole script: teesql finds %d batches, the GO lines make %d", len(whole.Batches), len(batches))
	}
	creates := 0
	walk(whole, func(n any) {
		if _, ok := n.(*ast.CreateTableStatement); ok {
			creates++
		}
	})
	if creates != len(tables) {
		t.Errorf("whole script: %d CREATE TABLE, want %d", creates, len(tables))
	}

	seen := map[string]bool{}
	n := 0
	for _, tb := range tables {
		if seen[tb.Name] {
			t.Errorf("table %s defined twice", tb.Name)
		}
		seen[tb.Name] = true
		var ixs []ddl.Index
		for _, ix := range tb.Indexes() {
			if !ix.Primary {
				ixs = append(ixs, ix)
			}
		}
		if tb.Key == "" && len(ixs) != 1+btoi(tb.Parent != "" && !tb.NoParentIndex)+btoi(tb.RecIDIndex) {
			t.Errorf("%s: %d indexes, want (INST_ID, ID), on a child table read by parent (INST_ID, PARENT_ID), and on one looked up by REC_ID (INST_ID, REC_ID)", tb.Name, len(ixs))
		}

		// The CREATE TABLE batch.
		checkCreateTable(t, d, "", tb, mustParse(t, tb.Name, batches[n]))
		n++

		// One batch per index.
		for _, ix := range ixs {
			checkCreateIndex(t, d, "", tb, ix, mustParse(t, ix.Name, batches[n]))
			n++
		}
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestCreateTableInSchema checks schema qualification with names that need
// escaping: ']' doubled inside brackets, single quotes doubled inside N'...'.
// teesql reads them as SQL Server does; Babelfish rejects the doubled ']'
// (a syntax error), so no test on it can check these.
func TestCreateTableInSchema(t *testing.T) {
	var d sqlserver.Dialect
	tables := []ddl.Table{profilers.Instances(), profilers.Relations()}
	lc, err := profilers.Lookup("light-coverage")
	if err != nil {
		t.Fatal(err)
	}
	lines, ok := lc.Table("LIGHT_COVERAGE_PROFILER_LINES")
	if !ok {
		t.Fatal("no LIGHT_COVERAGE_PROFILER_LINES")
	}
	// A key column is NOT NULL even when its definition does not say so.
	keyed := ddl.Table{Name: "KEYED", Key: "K", Columns: []ddl.Column{
		profilers.Col("K", ddl.Integer), profilers.Col(ddl.InstID, ddl.Integer), profilers.Col("V", ddl.String)}}
	tables = append(tables, lines, keyed)
	for _, schema := range []string{"dbo", "o'brien", "a]b", "x'y]]z"} {
		for _, tb := range tables {
			stmts := d.CreateTableIn(schema, tb)
			checkCreateTable(t, d, schema, tb, mustParse(t, schema+"."+tb.Name, stmts[0]))
			var ixs []ddl.Index
			for _, ix := range tb.Indexes() {
				if !ix.Primary {
					ixs = append(ixs, ix)
				}
			}
			if len(stmts) != 1+len(ixs) {
				t.Fatalf("%s: %d statements, want %d", tb.Name, len(stmts), 1+len(ixs))
			}
			for i, ix := range ixs {
				checkCreateIndex(t, d, schema, tb, ix, mustParse(t, ix.Name, stmts[1+i]))
			}
		}
	}
	// The exact text for one case, so that a reader sees what is produced.
	got := d.CreateTableIn("o'b]", profilers.Instances())[0]
	if !strings.HasPrefix(got, "IF OBJECT_ID(N'[o''b]]].[INSTANCES]', N'U') IS NULL\nBEGIN\nCREATE TABLE [o'b]]].[INSTANCES] (\n") {
		t.Errorf("CreateTableIn:\n%s", got)
	}
	// Schema "" names no schema at all, so the login's default one applies.
	for _, s := range d.CreateTableIn("", lines) {
		if strings.Contains(strings.ToLower(s), "dbo") {
			t.Errorf("CreateTable hard-codes dbo:\n%s", s)
		}
	}
}

// TestConsumerQuery: dialecttest.ConsumerQuery, unquoted and upper case,
// parses, and every table and column it names exists, under that exact name
// (Babelfish, which runs the query in cmd/profdb's TestDDLScriptInSQLServer,
// compares names without case), in the tables profdb creates; the
// unqualified columns are unambiguous.
func TestConsumerQuery(t *testing.T) {
	script := mustParse(t, "consumer query", dialecttest.ConsumerQuery)
	var d sqlserver.Dialect
	created := map[string]ddl.Table{}
	for _, tb := range dialecttest.AllTables(t) {
		for _, s := range d.CreateTableIn("", tb) {
			sc, err := teeParse(s)
			if err != nil {
				t.Fatal(err)
			}
			walk(sc, func(n any) {
				if ct, ok := n.(*ast.CreateTableStatement); ok {
					var cols []ddl.Column
					for _, c := range ct.Definition.ColumnDefinitions {
						cols = append(cols, ddl.Column{Name: c.ColumnIdentifier.Value})
					}
					created[ct.SchemaObjectName.BaseIdentifier.Value] = ddl.Table{Columns: cols}
				}
			})
		}
	}
	alias := map[string]string{}
	walk(script, func(n any) {
		if nt, ok := n.(*ast.NamedTableReference); ok {
			name := nt.SchemaObject.BaseIdentifier.Value
			if _, ok := created[name]; !ok {
				t.Errorf("query reads table %s, which is not created", name)
			}
			alias[nt.Alias.Value] = name
		}
	})
	if len(alias) != 2 {
		t.Fatalf("tables read: %v", alias)
	}
	refs := 0
	walk(script, func(n any) {
		cr, ok := n.(*ast.ColumnReferenceExpression)
		if !ok || cr.MultiPartIdentifier == nil {
			return
		}
		refs++
		ids := identValues(cr.MultiPartIdentifier.Identifiers)
		col := ids[len(ids)-1]
		var in []string
		for a, name := range alias {
			if len(ids) == 2 && ids[0] != a {
				continue
			}
			tb := created[name]
			if _, ok := tb.Column(col); ok {
				if got := tb.Columns[tb.ColumnIndex(col)].Name; got != col {
					t.Errorf("%s.%s is created as %s", name, col, got)
				}
				in = append(in, name)
			}
		}
		if len(in) != 1 {
			t.Errorf("column %v found in %v, want exactly one table", ids, in)
		}
	})
	if refs != 8 {
		t.Errorf("%d column references checked, want 8", refs)
	}
}

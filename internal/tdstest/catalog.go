package tdstest

import (
	"fmt"
	"math"
	"math/big"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf16"
)

// Catalog is a Handler that simulates just enough of SQL Server for code
// that creates its tables, inspects them and writes rows into them:
//
//   - CREATE TABLE (optionally guarded by IF OBJECT_ID(...) IS NULL) creates
//     a table from its column definitions (name, type, NULL or NOT NULL) and
//     PRIMARY KEY, and the CREATE INDEX statements after it in the same
//     batch; CREATE INDEX (optionally guarded by IF NOT EXISTS) records an
//     index;
//   - queries of INFORMATION_SCHEMA.TABLES and INFORMATION_SCHEMA.COLUMNS
//     (WHERE TABLE_SCHEMA = SCHEMA_NAME() or = @p1, AND TABLE_NAME = @pN)
//     are answered from the tables, as SQL Server types them;
//   - SELECT CASE WHEN SCHEMA_ID(@p1) IS NULL THEN 0 ELSE 1 END answers
//     that the schema exists (every schema does);
//   - SELECT MAX(col) FROM t answers the largest integer in the column, or
//     NULL;
//   - INSERT INTO t (cols) VALUES (...), ... with @pN parameters or NULL
//     stores rows, and bulk copy (the metadata query "select * from t SET
//     FMTONLY OFF", INSERT BULK and the BULK LOAD itself) does too;
//   - SET FMTONLY, sp_getapplock batches and "select 1" pings are accepted.
//
// Values are stored as SQL Server would store them in the column's type,
// converting like SQL Server does: text converts into numbers, numbers
// into text, decimals are kept at the column's scale (as exact strings such
// as "-123.45000000"), and a value that does not convert, overflows, is too
// long or is NULL in a NOT NULL column fails the statement with SQL Server's
// error number. Unknown tables are error 208.
//
// The Catalog follows the transactions of its Server: what a transaction
// creates or inserts is seen by that transaction only until it commits,
// and disappears when it rolls back. Unqualified names and SCHEMA_NAME()
// are in schema dbo. Names are matched case-insensitively, as under SQL
// Server's default collation. Anything else fails with an error starting
// with "tdstest:". A Catalog is safe for concurrent use.
type Catalog struct {
	mu     sync.Mutex
	srv    *Server
	seen   int // server events already applied
	tables []*catTable
}

// CatalogColumn is a column of a Catalog table.
type CatalogColumn struct {
	Name string
	// DataType is INFORMATION_SCHEMA's DATA_TYPE, lower case: "bigint",
	// "nvarchar", "decimal", ...
	DataType string
	// MaxLength is the declared length of a character type, -1 for MAX, 0
	// for other types.
	MaxLength int64
	// Precision and Scale of decimal and numeric columns; Precision is 24
	// for real, 53 for float.
	Precision, Scale int
	Nullable         bool
}

// CatalogTable is a snapshot of a committed Catalog table.
type CatalogTable struct {
	Schema, Name string
	Columns      []CatalogColumn
	PrimaryKey   []string
	Indexes      map[string][]string // index name → columns
	// Rows are the committed rows, one value per column, in insertion
	// order: int64, float64, string (text and decimals) or nil.
	Rows [][]any
}

type catTable struct {
	schema, name string
	cols         []CatalogColumn
	pk           []string
	tx           uint64 // creating transaction; 0 once committed
	indexes      []catIndex
	rows         []catRow
}

type catIndex struct {
	name string
	cols []string
	tx   uint64
}

type catRow struct {
	vals []any
	tx   uint64
}

// NewCatalogServer starts a Server answered by a new, empty Catalog.
func NewCatalogServer() (*Server, *Catalog, error) {
	c := &Catalog{}
	srv, err := NewServer(c.Handle)
	if err != nil {
		return nil, nil, err
	}
	c.mu.Lock()
	c.srv = srv
	c.mu.Unlock()
	return srv, c, nil
}

func (c *Catalog) schema() string { return "dbo" }

// Table returns a snapshot of the committed table name ("t" in the default
// schema, or "schema.t").
func (c *Catalog) Table(name string) (CatalogTable, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.settle()
	schema, table := c.schema(), name
	if s, t, ok := strings.Cut(name, "."); ok {
		schema, table = s, t
	}
	t := c.lookup(schema, table, 0)
	if t == nil {
		return CatalogTable{}, false
	}
	out := CatalogTable{Schema: t.schema, Name: t.name, Columns: append([]CatalogColumn(nil), t.cols...),
		PrimaryKey: append([]string(nil), t.pk...), Indexes: map[string][]string{}}
	for _, ix := range t.indexes {
		if ix.tx == 0 {
			out.Indexes[ix.name] = append([]string(nil), ix.cols...)
		}
	}
	for _, r := range t.rows {
		if r.tx == 0 {
			out.Rows = append(out.Rows, append([]any(nil), r.vals...))
		}
	}
	return out, true
}

// TableNames returns the committed tables as "schema.name", sorted.
func (c *Catalog) TableNames() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.settle()
	var out []string
	for _, t := range c.tables {
		if t.tx == 0 {
			out = append(out, t.schema+"."+t.name)
		}
	}
	sort.Strings(out)
	return out
}

// settle applies the commits and rollbacks the server recorded since the
// last call.
func (c *Catalog) settle() {
	if c.srv == nil {
		return
	}
	evs := c.srv.Events()
	for _, ev := range evs[min(c.seen, len(evs)):] {
		if ev.Kind != Commit && ev.Kind != Rollback || ev.TxDescriptor == 0 {
			continue
		}
		c.endTx(ev.TxDescriptor, ev.Kind == Commit)
	}
	c.seen = len(evs)
}

func (c *Catalog) endTx(tx uint64, commit bool) {
	kept := c.tables[:0]
	for _, t := range c.tables {
		if t.tx == tx {
			if !commit {
				continue
			}
			t.tx = 0
		}
		ixs := t.indexes[:0]
		for _, ix := range t.indexes {
			if ix.tx == tx {
				if !commit {
					continue
				}
				ix.tx = 0
			}
			ixs = append(ixs, ix)
		}
		t.indexes = ixs
		rows := t.rows[:0]
		for _, r := range t.rows {
			if r.tx == tx {
				if !commit {
					continue
				}
				r.tx = 0
			}
			rows = append(rows, r)
		}
		t.rows = rows
		kept = append(kept, t)
	}
	for i := len(kept); i < len(c.tables); i++ {
		c.tables[i] = nil
	}
	c.tables = kept
}

// txOf is the transaction whose changes a request makes; without an
// attached server changes are committed at once.
func (c *Catalog) txOf(req *Request) uint64 {
	if c.srv == nil {
		return 0
	}
	return req.TxDescriptor
}

func visible(objTx, reqTx uint64) bool { return objTx == 0 || objTx == reqTx }

// lookup finds a table visible to transaction tx.
func (c *Catalog) lookup(schema, name string, tx uint64) *catTable {
	for _, t := range c.tables {
		if visible(t.tx, tx) && strings.EqualFold(t.schema, schema) && strings.EqualFold(t.name, name) {
			return t
		}
	}
	return nil
}

// resolve finds the table named by the parts of a multi-part name.
func (c *Catalog) resolve(parts []string, tx uint64) (*catTable, error) {
	schema, name := c.schema(), ""
	switch len(parts) {
	case 1:
		name = parts[0]
	case 2, 3:
		schema, name = parts[len(parts)-2], parts[len(parts)-1]
		if schema == "" {
			schema = c.schema()
		}
	default:
		return nil, &Error{Number: 208, State: 1, Class: 16, Message: fmt.Sprintf("Invalid object name '%s'.", strings.Join(parts, "."))}
	}
	if t := c.lookup(schema, name, tx); t != nil {
		return t, nil
	}
	return nil, &Error{Number: 208, State: 1, Class: 16, Message: fmt.Sprintf("Invalid object name '%s'.", strings.Join(parts, "."))}
}

// Handle answers a request; it is a Handler.
func (c *Catalog) Handle(req *Request) (*Result, error) {
	c.mu.Lock()
	res, ok, err := c.handle(req)
	c.mu.Unlock()
	if ok {
		return res, err
	}
	return nil, fmt.Errorf("tdstest: the catalog does not understand %.200q", req.SQL)
}

func (c *Catalog) handle(req *Request) (*Result, bool, error) {
	c.settle()
	tx := c.txOf(req)
	if req.Kind == BulkLoad {
		res, err := c.bulkLoad(req, tx)
		return res, true, err
	}
	sql := strings.TrimSpace(req.SQL)
	up := strings.ToUpper(sql)
	switch {
	case strings.TrimRight(up, "; ") == "SELECT 1":
		return nil, true, nil
	case strings.HasPrefix(up, "SET FMTONLY "):
		return nil, true, nil
	case strings.HasPrefix(up, "SELECT CAST(SERVERPROPERTY("):
		// SQL Server answers NULL for a property it does not know, such
		// as Babelfish's 'Babelfish'; the catalog knows none.
		col := Column{Name: "", Type: TypeInfo{ID: TypeIntN, Size: 4}}
		return &Result{Sets: []ResultSet{{Columns: []Column{col}, Rows: [][]any{{nil}}}}}, true, nil
	case strings.HasPrefix(up, "IF CAST(SERVERPROPERTY('BABELFISH') AS INT) = 1 "):
		// What only Babelfish runs (the sqlserver dialect's
		// FewSetsSettings): SQL Server runs nothing.
		return nil, true, nil
	case strings.HasPrefix(up, "SELECT * FROM ") && strings.HasSuffix(up, " SET FMTONLY OFF"):
		parts, _ := nameParts(lex(sql[len("select * from "):]), 0)
		t, err := c.resolve(parts, tx)
		if err != nil {
			return nil, true, err
		}
		return &Result{Sets: []ResultSet{{Columns: tdsColumns(t.cols)}}}, true, nil
	case strings.HasPrefix(up, "INSERT BULK "):
		parts, _ := nameParts(lex(sql[len("insert bulk "):]), 0)
		_, err := c.resolve(parts, tx)
		return nil, true, err
	case strings.Contains(up, "SP_GETAPPLOCK"):
		return nil, true, nil
	case strings.Contains(up, "INFORMATION_SCHEMA.TABLES"):
		return c.infoTables(req, up, tx), true, nil
	case strings.Contains(up, "SCHEMA_ID(@P1)"):
		return schemaExists(), true, nil
	case strings.Contains(up, "INFORMATION_SCHEMA.COLUMNS"):
		res, err := c.infoColumns(req, up, tx)
		return res, true, err
	}
	toks := lex(sql)
	for i := 0; i+1 < len(toks); i++ {
		switch {
		case toks[i].is("CREATE") && toks[i+1].is("TABLE"):
			res, err := c.createTable(toks, i+2, tx)
			return res, true, err
		case toks[i].is("CREATE") && (toks[i+1].is("INDEX") || toks[i+1].is("UNIQUE") ||
			toks[i+1].is("CLUSTERED") || toks[i+1].is("NONCLUSTERED")):
			res, err := c.createIndex(toks, i+1, tx)
			return res, true, err
		}
	}
	switch {
	case len(toks) > 2 && toks[0].is("INSERT") && toks[1].is("INTO"):
		res, err := c.insert(req, toks, tx)
		return res, true, err
	case len(toks) > 6 && toks[0].is("SELECT") && toks[1].is("MAX") && toks[2].text == "(":
		res, err := c.selectMax(toks, tx)
		return res, true, err
	case len(toks) > 0 && toks[0].is("SELECT"):
		return c.selectRows(req, sql, tx)
	}
	return nil, false, nil
}

// paramValue returns the value of the RPC parameter named name.
func paramValue(req *Request, name string) (any, bool) {
	for _, p := range req.Params {
		if strings.EqualFold(p.Name, name) {
			return p.Value, true
		}
	}
	return nil, false
}

// schemaArg returns the schema a TABLE_SCHEMA condition names.
func (c *Catalog) schemaArg(req *Request, up string) string {
	if strings.Contains(up, "TABLE_SCHEMA = SCHEMA_NAME()") {
		return c.schema()
	}
	if v, ok := paramValue(req, "@p1"); ok {
		if s, ok := v.(string); ok {
			return s
		}
	}
	return c.schema()
}

func (c *Catalog) infoTables(req *Request, up string, tx uint64) *Result {
	schema := c.schemaArg(req, up)
	var names []string
	for _, t := range c.tables {
		if visible(t.tx, tx) && strings.EqualFold(t.schema, schema) {
			names = append(names, t.name)
		}
	}
	sort.Strings(names)
	set := ResultSet{Columns: []Column{{Name: "TABLE_NAME", Type: NVarChar(128)}}}
	for _, n := range names {
		set.Rows = append(set.Rows, []any{n})
	}
	return &Result{Sets: []ResultSet{set}}
}

// schemaExists answers SCHEMA_ID's test: every schema exists.
func schemaExists() *Result {
	return &Result{Sets: []ResultSet{{Columns: []Column{{Name: "", Type: Int}}, Rows: [][]any{{int64(1)}}}}}
}

var infoColumnsColumns = []Column{
	{Name: "COLUMN_NAME", Type: NVarChar(128)}, {Name: "DATA_TYPE", Type: NVarChar(128)},
	{Name: "IS_NULLABLE", Type: NVarChar(3)}, {Name: "COLUMN_DEFAULT", Type: NVarChar(4000)},
	{Name: "CHARACTER_MAXIMUM_LENGTH", Type: Int}, {Name: "NUMERIC_PRECISION", Type: TypeInfo{ID: TypeIntN, Size: 1}},
	{Name: "NUMERIC_SCALE", Type: Int},
}

func (c *Catalog) infoColumns(req *Request, up string, tx uint64) (*Result, error) {
	schema := c.schemaArg(req, up)
	if len(req.Params) == 0 {
		return nil, fmt.Errorf("tdstest: INFORMATION_SCHEMA.COLUMNS query without a table parameter")
	}
	table, _ := req.Params[len(req.Params)-1].Value.(string)
	set := ResultSet{Columns: infoColumnsColumns}
	if t := c.lookup(schema, table, tx); t != nil {
		for _, col := range t.cols {
			nullable := "NO"
			if col.Nullable {
				nullable = "YES"
			}
			var maxLen, prec, scale any
			switch {
			case col.MaxLength != 0:
				maxLen = col.MaxLength
			case col.DataType == "float" || col.DataType == "real":
				prec = col.Precision
			default:
				prec, scale = col.Precision, col.Scale
			}
			set.Rows = append(set.Rows, []any{col.Name, col.DataType, nullable, nil, maxLen, prec, scale})
		}
	}
	return &Result{Sets: []ResultSet{set}}, nil
}

// createTable runs CREATE TABLE; toks[i] starts the table name.
func (c *Catalog) createTable(toks []token, i int, tx uint64) (*Result, error) {
	guarded := len(toks) > 1 && toks[0].is("IF")
	parts, i := nameParts(toks, i)
	if len(parts) == 0 || i >= len(toks) || toks[i].text != "(" {
		return nil, fmt.Errorf("tdstest: cannot parse CREATE TABLE")
	}
	schema, name := c.schema(), parts[len(parts)-1]
	if len(parts) >= 2 && parts[len(parts)-2] != "" {
		schema = parts[len(parts)-2]
	}
	if c.lookup(schema, name, tx) != nil || c.lookup(schema, name, 0) != nil {
		if guarded {
			return nil, nil
		}
		return nil, &Error{Number: 2714, State: 6, Class: 16, Message: fmt.Sprintf("There is already an object named '%s' in the database.", name)}
	}
	t := &catTable{schema: schema, name: name, tx: tx}
	items, end := splitItems(toks, i)
	for _, it := range items {
		if len(it) == 0 {
			continue
		}
		if it[0].is("CONSTRAINT") || it[0].is("PRIMARY") {
			k := 0
			for k < len(it) && !it[k].is("KEY") {
				k++
			}
			if k+1 < len(it) && it[k+1].text == "(" {
				cols, _ := splitItems(it, k+1)
				for _, col := range cols {
					if len(col) > 0 {
						t.pk = append(t.pk, col[0].text)
					}
				}
			}
			continue
		}
		col, err := parseColumn(it)
		if err != nil {
			return nil, err
		}
		for _, pk := range t.pk {
			if strings.EqualFold(pk, col.Name) {
				col.Nullable = false
			}
		}
		t.cols = append(t.cols, col)
	}
	for _, pk := range t.pk {
		for k := range t.cols {
			if strings.EqualFold(t.cols[k].Name, pk) {
				t.cols[k].Nullable = false
			}
		}
	}
	if len(t.cols) == 0 {
		return nil, fmt.Errorf("tdstest: CREATE TABLE %s without columns", name)
	}
	c.tables = append(c.tables, t)
	// The indexes that follow the table inside its guard's block, in the
	// same batch, are created with it.
	for k := end; k+1 < len(toks); k++ {
		if toks[k].is("CREATE") && toks[k+1].is("INDEX") {
			if _, err := c.createIndex(toks[k:], 1, tx); err != nil {
				return nil, err
			}
		}
	}
	return nil, nil
}

// parseColumn parses "name TYPE[(args)] [NOT] NULL".
func parseColumn(it []token) (CatalogColumn, error) {
	if len(it) < 2 {
		return CatalogColumn{}, fmt.Errorf("tdstest: cannot parse column definition")
	}
	col := CatalogColumn{Name: it[0].text, DataType: strings.ToLower(it[1].text), Nullable: true}
	k := 2
	var args []string
	if k < len(it) && it[k].text == "(" {
		for k++; k < len(it) && it[k].text != ")"; k++ {
			if it[k].text != "," {
				args = append(args, it[k].text)
			}
		}
		k++
	}
	for ; k < len(it); k++ {
		if it[k].is("NOT") && k+1 < len(it) && it[k+1].is("NULL") {
			col.Nullable = false
		}
	}
	arg := func(n, def int) int {
		if n < len(args) {
			if v, err := strconv.Atoi(args[n]); err == nil {
				return v
			}
		}
		return def
	}
	switch col.DataType {
	case "bigint":
		col.Precision = 19
	case "int":
		col.Precision = 10
	case "smallint":
		col.Precision = 5
	case "tinyint":
		col.Precision = 3
	case "decimal", "numeric":
		col.Precision, col.Scale = arg(0, 18), arg(1, 0)
	case "float":
		col.Precision = 53
		if arg(0, 53) <= 24 {
			col.DataType, col.Precision = "real", 24
		}
	case "real":
		col.Precision = 24
	case "nvarchar", "varchar", "nchar", "char":
		col.MaxLength = 1
		if len(args) > 0 {
			if strings.EqualFold(args[0], "MAX") {
				col.MaxLength = -1
			} else {
				col.MaxLength = int64(arg(0, 1))
			}
		}
	default:
		return CatalogColumn{}, fmt.Errorf("tdstest: the catalog does not support column type %s", it[1].text)
	}
	return col, nil
}

// tdsColumns returns the COLMETADATA SQL Server sends for the columns: NOT
// NULL integer and float columns with their fixed-length types.
func tdsColumns(cols []CatalogColumn) []Column {
	out := make([]Column, len(cols))
	for i, col := range cols {
		out[i] = Column{Name: col.Name, Type: tdsType(col)}
	}
	return out
}

func tdsType(col CatalogColumn) TypeInfo {
	fixed := func(nullable, notNull byte, size int) TypeInfo {
		if col.Nullable {
			return TypeInfo{ID: nullable, Size: size}
		}
		return TypeInfo{ID: notNull, Size: size}
	}
	switch col.DataType {
	case "bigint":
		return fixed(TypeIntN, TypeInt8, 8)
	case "int":
		return fixed(TypeIntN, TypeInt4, 4)
	case "smallint":
		return fixed(TypeIntN, TypeInt2, 2)
	case "tinyint":
		return fixed(TypeIntN, TypeInt1, 1)
	case "float":
		return fixed(TypeFltN, TypeFlt8, 8)
	case "real":
		return fixed(TypeFltN, TypeFlt4, 4)
	case "decimal", "numeric":
		return Decimal(uint8(col.Precision), uint8(col.Scale))
	case "nvarchar", "nchar":
		ti := NVarChar(int(col.MaxLength))
		if col.DataType == "nchar" {
			ti.ID = TypeNChar
		}
		return ti
	default: // varchar, char
		ti := TypeInfo{ID: TypeBigVarChar, Size: int(col.MaxLength), Collation: defaultCollation}
		if col.MaxLength < 0 || col.MaxLength > 8000 {
			ti.Size = MaxSize
		}
		if col.DataType == "char" {
			ti.ID = TypeBigChar
		}
		return ti
	}
}

// createIndex runs CREATE [UNIQUE] [NON]CLUSTERED INDEX; toks[i] follows
// CREATE.
func (c *Catalog) createIndex(toks []token, i int, tx uint64) (*Result, error) {
	guarded := len(toks) > 1 && toks[0].is("IF")
	for i < len(toks) && !toks[i].is("INDEX") {
		i++
	}
	if i+3 >= len(toks) {
		return nil, fmt.Errorf("tdstest: cannot parse CREATE INDEX")
	}
	name := toks[i+1].text
	i += 2
	if !toks[i].is("ON") {
		return nil, fmt.Errorf("tdstest: cannot parse CREATE INDEX")
	}
	parts, i := nameParts(toks, i+1)
	t, err := c.resolve(parts, tx)
	if err != nil {
		return nil, err
	}
	for _, ix := range t.indexes {
		if visible(ix.tx, tx) && strings.EqualFold(ix.name, name) {
			if guarded {
				return nil, nil
			}
			return nil, &Error{Number: 1913, State: 1, Class: 16, Message: fmt.Sprintf("The operation failed because an index or statistics with name '%s' already exists on table '%s'.", name, t.name)}
		}
	}
	ix := catIndex{name: name, tx: tx}
	items, _ := splitItems(toks, i)
	for _, it := range items {
		if len(it) == 0 {
			continue
		}
		if t.column(it[0].text) < 0 {
			return nil, &Error{Number: 1911, State: 1, Class: 16, Message: fmt.Sprintf("Column name '%s' does not exist in the target table or view.", it[0].text)}
		}
		ix.cols = append(ix.cols, it[0].text)
	}
	t.indexes = append(t.indexes, ix)
	return nil, nil
}

func (t *catTable) column(name string) int {
	for i, col := range t.cols {
		if strings.EqualFold(col.Name, name) {
			return i
		}
	}
	return -1
}

// selectMax answers SELECT MAX(col) FROM t.
func (c *Catalog) selectMax(toks []token, tx uint64) (*Result, error) {
	col := toks[3].text
	if toks[4].text != ")" || !toks[5].is("FROM") {
		return nil, fmt.Errorf("tdstest: cannot parse SELECT MAX")
	}
	parts, _ := nameParts(toks, 6)
	t, err := c.resolve(parts, tx)
	if err != nil {
		return nil, err
	}
	k := t.column(col)
	if k < 0 {
		return nil, &Error{Number: 207, State: 1, Class: 16, Message: fmt.Sprintf("Invalid column name '%s'.", col)}
	}
	var max any
	for _, r := range t.rows {
		if !visible(r.tx, tx) {
			continue
		}
		if v, ok := r.vals[k].(int64); ok {
			if m, ok := max.(int64); !ok || v > m {
				max = v
			}
		}
	}
	return &Result{Sets: []ResultSet{{Columns: []Column{{Name: "", Type: BigInt}}, Rows: [][]any{{max}}}}}, nil
}

// insert runs INSERT INTO t (cols) VALUES (...), ...
func (c *Catalog) insert(req *Request, toks []token, tx uint64) (*Result, error) {
	parts, i := nameParts(toks, 2)
	t, err := c.resolve(parts, tx)
	if err != nil {
		return nil, err
	}
	if i >= len(toks) || toks[i].text != "(" {
		return nil, fmt.Errorf("tdstest: cannot parse INSERT column list")
	}
	items, i := splitItems(toks, i)
	idx := make([]int, len(items))
	for n, it := range items {
		if len(it) != 1 {
			return nil, fmt.Errorf("tdstest: cannot parse INSERT column list")
		}
		if idx[n] = t.column(it[0].text); idx[n] < 0 {
			return nil, &Error{Number: 207, State: 1, Class: 16, Message: fmt.Sprintf("Invalid column name '%s'.", it[0].text)}
		}
	}
	if i >= len(toks) || !toks[i].is("VALUES") {
		return nil, fmt.Errorf("tdstest: INSERT without VALUES")
	}
	i++
	var rows [][]any
	for i < len(toks) && toks[i].text == "(" {
		vals, next := splitItems(toks, i)
		if len(vals) != len(idx) {
			return nil, &Error{Number: 110, State: 1, Class: 15, Message: "There are fewer columns in the INSERT statement than values specified in the VALUES clause."}
		}
		row := make([]any, len(t.cols))
		for n, v := range vals {
			if len(v) != 1 {
				return nil, fmt.Errorf("tdstest: the catalog only takes parameters and NULL in VALUES")
			}
			var val any
			switch {
			case v[0].is("NULL"):
			case strings.HasPrefix(v[0].text, "@"):
				p, ok := paramValue(req, v[0].text)
				if !ok {
					return nil, &Error{Number: 137, State: 2, Class: 15, Message: fmt.Sprintf("Must declare the scalar variable \"%s\".", v[0].text)}
				}
				val = p
			default:
				return nil, fmt.Errorf("tdstest: the catalog only takes parameters and NULL in VALUES")
			}
			row[idx[n]] = val
		}
		if err := t.convertRow(row); err != nil {
			return nil, err
		}
		rows = append(rows, row)
		i = next
		if i < len(toks) && toks[i].text == "," {
			i++
		}
	}
	for _, r := range rows {
		t.rows = append(t.rows, catRow{vals: r, tx: tx})
	}
	return &Result{RowsAffected: int64(len(rows))}, nil
}

// bulkLoad stores the rows of a BULK LOAD.
func (c *Catalog) bulkLoad(req *Request, tx uint64) (*Result, error) {
	if req.Bulk == nil {
		return nil, fmt.Errorf("tdstest: bulk load without data")
	}
	schema, name := c.schema(), req.Bulk.Table
	if s, n, ok := strings.Cut(req.Bulk.Table, "."); ok {
		schema, name = s, n
	}
	t := c.lookup(schema, name, tx)
	if t == nil {
		return nil, &Error{Number: 208, State: 1, Class: 16, Message: fmt.Sprintf("Invalid object name '%s'.", req.Bulk.Table)}
	}
	idx := make([]int, len(req.Bulk.Columns))
	for n, col := range req.Bulk.Columns {
		if idx[n] = t.column(col.Name); idx[n] < 0 {
			return nil, &Error{Number: 207, State: 1, Class: 16, Message: fmt.Sprintf("Invalid column name '%s'.", col.Name)}
		}
	}
	var rows [][]any
	for _, in := range req.Bulk.Rows {
		row := make([]any, len(t.cols))
		for n, v := range in {
			row[idx[n]] = v
		}
		if err := t.convertRow(row); err != nil {
			return nil, err
		}
		rows = append(rows, row)
	}
	for _, r := range rows {
		t.rows = append(t.rows, catRow{vals: r, tx: tx})
	}
	return &Result{RowsAffected: int64(len(rows))}, nil
}

// convertRow converts a row's values to the column types in place.
func (t *catTable) convertRow(row []any) error {
	for k, col := range t.cols {
		v, err := convertValue(col, row[k])
		if err != nil {
			if e, ok := err.(*Error); ok && e.Number == 515 {
				e.Message = fmt.Sprintf("Cannot insert the value NULL into column '%s', table '%s'; column does not allow nulls. INSERT fails.", col.Name, t.name)
			}
			return err
		}
		row[k] = v
	}
	return nil
}

var intRanges = map[string]int{"bigint": 64, "int": 32, "smallint": 16, "tinyint": 8}

// convertValue converts v into what a column of col's type stores, as SQL
// Server's implicit conversions do.
func convertValue(col CatalogColumn, v any) (any, error) {
	if v == nil {
		if !col.Nullable {
			return nil, &Error{Number: 515, State: 2, Class: 16}
		}
		return nil, nil
	}
	convErr := func() error {
		return &Error{Number: 8114, State: 5, Class: 16, Message: fmt.Sprintf("Error converting data type %s to %s.", sqlTypeOf(v), col.DataType)}
	}
	overflow := func() error {
		return &Error{Number: 8115, State: 2, Class: 16, Message: fmt.Sprintf("Arithmetic overflow error converting %s to data type %s.", sqlTypeOf(v), col.DataType)}
	}
	switch col.DataType {
	case "bigint", "int", "smallint", "tinyint":
		var i int64
		switch x := v.(type) {
		case int64:
			i = x
		case float64:
			if math.IsNaN(x) || x >= 9.223372036854775807e18 || x < -9.223372036854775808e18 {
				return nil, overflow()
			}
			i = int64(x)
		case string:
			r, ok := new(big.Rat).SetString(strings.TrimSpace(x))
			if !ok || !r.IsInt() || strings.ContainsAny(x, "eE") {
				return nil, convErr()
			}
			if !r.Num().IsInt64() {
				return nil, overflow()
			}
			i = r.Num().Int64()
		default:
			return nil, convErr()
		}
		bits := intRanges[col.DataType]
		lo, hi := int64(math.MinInt64), int64(math.MaxInt64)
		if bits < 64 {
			lo, hi = -(int64(1) << (bits - 1)), int64(1)<<(bits-1)-1
		}
		if bits == 8 {
			lo, hi = 0, 255
		}
		if i < lo || i > hi {
			return nil, overflow()
		}
		return i, nil
	case "decimal", "numeric":
		var r *big.Rat
		switch x := v.(type) {
		case int64:
			r = new(big.Rat).SetInt64(x)
		case float64:
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return nil, overflow()
			}
			r = new(big.Rat).SetFloat64(x)
		case string:
			var ok bool
			if r, ok = new(big.Rat).SetString(strings.TrimSpace(x)); !ok {
				return nil, convErr()
			}
		default:
			return nil, convErr()
		}
		s, ok := formatScaled(r, col.Precision, col.Scale)
		if !ok {
			return nil, overflow()
		}
		return s, nil
	case "float", "real":
		var f float64
		switch x := v.(type) {
		case float64:
			f = x
		case int64:
			f = float64(x)
		case string:
			var err error
			if f, err = strconv.ParseFloat(strings.TrimSpace(x), 64); err != nil {
				return nil, convErr()
			}
		default:
			return nil, convErr()
		}
		if col.DataType == "real" {
			f = float64(float32(f))
		}
		return f, nil
	default: // character types
		var s string
		switch x := v.(type) {
		case string:
			s = x
		case int64:
			s = strconv.FormatInt(x, 10)
		case float64:
			s = strconv.FormatFloat(x, 'g', 6, 64) // CONVERT's style 0: 6 digits
		default:
			return nil, convErr()
		}
		n := int64(len(s))
		if col.DataType == "nvarchar" || col.DataType == "nchar" {
			n = int64(len(utf16.Encode([]rune(s))))
		}
		if col.MaxLength > 0 && n > col.MaxLength {
			return nil, &Error{Number: 2628, State: 1, Class: 16, Message: fmt.Sprintf("String or binary data would be truncated in column '%s'.", col.Name)}
		}
		return s, nil
	}
}

// formatScaled rounds r half away from zero to scale digits and formats it
// with exactly that many; false when it needs more than prec digits.
func formatScaled(r *big.Rat, prec, scale int) (string, bool) {
	pow := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(scale)), nil)
	x := new(big.Rat).Mul(r, new(big.Rat).SetInt(pow))
	num, den := new(big.Int).Abs(x.Num()), x.Denom()
	q, m := new(big.Int).QuoRem(num, den, new(big.Int))
	if new(big.Int).Mul(m, big.NewInt(2)).Cmp(den) >= 0 {
		q.Add(q, big.NewInt(1))
	}
	digits := q.String()
	if q.Sign() != 0 && len(digits) > prec {
		return "", false
	}
	if x.Sign() < 0 && q.Sign() != 0 {
		q.Neg(q)
	}
	return formatDecimal(q, scale), true
}

func sqlTypeOf(v any) string {
	switch v.(type) {
	case int64:
		return "bigint"
	case float64:
		return "float"
	case string:
		return "nvarchar"
	}
	return fmt.Sprintf("%T", v)
}

// token is a lexical token of T-SQL: an identifier (brackets and quotes
// removed), a keyword or bare word, a variable (@p1), a number, a string
// literal (its text without quotes) or a punctuation character.
type token struct {
	text   string
	quoted bool // a delimited identifier or a string literal
}

// is tells whether the token is the keyword kw.
func (t token) is(kw string) bool { return !t.quoted && strings.EqualFold(t.text, kw) }

// lex splits T-SQL into tokens, skipping white space and comments.
func lex(s string) []token {
	var out []token
	for i := 0; i < len(s); {
		ch := s[i]
		switch {
		case ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r':
			i++
		case strings.HasPrefix(s[i:], "--"):
			for i < len(s) && s[i] != '\n' {
				i++
			}
		case strings.HasPrefix(s[i:], "/*"):
			end := strings.Index(s[i+2:], "*/")
			if end < 0 {
				return out
			}
			i += end + 4
		case ch == '[' || ch == '"' || ch == '\'' || (ch == 'N' || ch == 'n') && i+1 < len(s) && s[i+1] == '\'':
			if ch == 'N' || ch == 'n' {
				i++
				ch = s[i]
			}
			closer := ch
			if ch == '[' {
				closer = ']'
			}
			var b strings.Builder
			j := i + 1
			for j < len(s) {
				if s[j] == closer {
					if j+1 < len(s) && s[j+1] == closer {
						b.WriteByte(closer)
						j += 2
						continue
					}
					break
				}
				b.WriteByte(s[j])
				j++
			}
			out = append(out, token{text: b.String(), quoted: true})
			i = j + 1
		case isWordByte(ch) || ch == '@' || ch == '#':
			j := i + 1
			for j < len(s) && (isWordByte(s[j]) || s[j] == '@' || s[j] == '#' || s[j] == '$') {
				j++
			}
			out = append(out, token{text: s[i:j]})
			i = j
		default:
			out = append(out, token{text: s[i : i+1]})
			i++
		}
	}
	return out
}

func isWordByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}

// nameParts reads a multi-part name starting at toks[i] and returns its
// parts and the index after it.
func nameParts(toks []token, i int) ([]string, int) {
	var parts []string
	for i < len(toks) {
		if toks[i].text == "." { // an omitted part, as in db..t
			parts = append(parts, "")
			i++
			continue
		}
		if !toks[i].quoted && !isWordByte(toks[i].text[0]) {
			break
		}
		parts = append(parts, toks[i].text)
		i++
		if i >= len(toks) || toks[i].text != "." {
			break
		}
		i++
	}
	return parts, i
}

// splitItems splits the parenthesized list starting at toks[i] == "(" into
// its comma-separated items and returns the index after the closing ")".
func splitItems(toks []token, i int) ([][]token, int) {
	var items [][]token
	var cur []token
	depth := 0
	for ; i < len(toks); i++ {
		tk := toks[i]
		if !tk.quoted {
			switch tk.text {
			case "(":
				depth++
				if depth == 1 {
					continue
				}
			case ")":
				depth--
				if depth == 0 {
					return append(items, cur), i + 1
				}
			case ",":
				if depth == 1 {
					items = append(items, cur)
					cur = nil
					continue
				}
			}
		}
		cur = append(cur, tk)
	}
	return append(items, cur), i
}

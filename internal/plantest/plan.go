package plantest

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/profdb/profdb/dialects/mysql"
	"github.com/profdb/profdb/dialects/postgres"
	"github.com/profdb/profdb/dialects/sqlite"
)

// Plan is a server's plan of a statement, read.
type Plan struct {
	// Text is the plan as the server gave it: JSON on PostgreSQL and
	// MySQL; on SQLite the detail column of EXPLAIN QUERY PLAN's rows, a
	// line a row.
	Text string
	// Scans are the reads of tables in the plan, in plan order.
	Scans []Scan
	// JIT reports that PostgreSQL would compile the statement's
	// expressions with JIT.
	JIT bool
	// Workers is the number of parallel workers PostgreSQL plans for the
	// statement (the largest Gather's); 0 for a serial plan.
	Workers int
}

// Scan is how a plan reads one table.
type Scan struct {
	// Table is the table's name as the server reports it (lower case on
	// PostgreSQL, where profdb stores names so). MySQL's and SQLite's
	// plans name the alias a statement gives a table: Table is then the
	// table the statement names with that alias, as it spells it. A
	// derived table keeps the plan's name ("<derived2>" on MySQL).
	Table string
	// Alias is the name the plan gives the table where it is not the
	// table's own: its alias in the statement.
	Alias string
	// Method is the server's own name of the access: "Seq Scan", "Index
	// Scan", "Bitmap Heap Scan", ... on PostgreSQL; the access_type
	// ("ALL", "index", "range", "ref", ...) on MySQL; "SCAN" or "SEARCH"
	// on SQLite.
	Method string
	// Index is the index the scan uses, "" for none; "PRIMARY KEY" for
	// SQLite's primary key or rowid.
	Index string
	// Columns are the index's columns that bound the scan, in index order
	// (MySQL's used_key_parts; the columns compared in PostgreSQL's Index
	// Cond and in SQLite's terms), as the server spells them. Empty for a
	// scan that reads the whole table or the whole index.
	Columns []string
	// Refs are, on MySQL, what the columns are compared with: "const"
	// for a parameter or a constant, else a column of another table, for
	// each of whose values the read is repeated.
	Refs []string
	// Cond is the server's own words for what bounds the scan:
	// PostgreSQL's Index Cond (a bitmap's, joined by " / "), SQLite's
	// terms.
	Cond string
	// Full reports that the scan reads every row of the table or every
	// entry of an index: a sequential scan, an index scan without a
	// condition (unless a Limit stops it at its first entries and no
	// filter makes it read on), or an index SQLite builds for the
	// statement.
	Full bool
	// Rows is the server's estimate of the rows the scan returns (for
	// each loop, on PostgreSQL; examined, on MySQL); 0 on SQLite.
	Rows float64
	// PerRow reports a scan that reads the same rows again for each row
	// of the tables joined before it, rows × rows for two tables of one
	// result set: on PostgreSQL, an index scan on the inner side of a
	// nested loop whose index condition names no column but INST_ID (the
	// planner picks it when its estimates say each side holds a row); on
	// MySQL and MariaDB, which join by nested loops only, a lookup (ref)
	// of a table after the first of a join whose used_key_parts are
	// INST_ID alone, compared with constants only, without a hashed join
	// buffer (MariaDB's BNLH and BKAH, MySQL's hash join).
	PerRow bool
}

func (s Scan) String() string {
	out := s.Table
	if s.Alias != "" {
		out += " (" + s.Alias + ")"
	}
	out += fmt.Sprintf(" by %s, index %q on %v", s.Method, s.Index, s.Columns)
	if len(s.Refs) > 0 {
		out += fmt.Sprintf(" = %v", s.Refs)
	}
	if s.Cond != "" {
		out += " " + s.Cond
	}
	if s.Full {
		out += ", full"
	}
	if s.PerRow {
		out += ", again for each row"
	}
	return out + fmt.Sprintf(", %.0f rows", s.Rows)
}

// ReadPlan reads the plan planText (see Plan.Text) that the server of
// dialect (a dialects.Explainer) gave for query.
func ReadPlan(dialect, query, planText string) (Plan, error) {
	p := Plan{Text: planText}
	_, _, format, err := explainOf(dialect, query)
	if err != nil {
		return p, err
	}
	switch format {
	case sqlite.QueryPlan:
		p.readSQLite(planText)
	case postgres.PlanJSON:
		err = p.readPostgres()
	case mysql.PlanJSON:
		err = p.readMySQL()
	default:
		return p, fmt.Errorf("plantest: no reader of %s's plans (%s)", dialect, format)
	}
	if err != nil {
		return p, err
	}
	// Name a table that the plan names by its alias by the table.
	aliases := aliasesOf(query)
	for i, s := range p.Scans {
		if t, ok := aliases[s.Table]; ok && s.Alias == "" {
			p.Scans[i].Table, p.Scans[i].Alias = t, s.Table
		}
	}
	return p, nil
}

// sqliteStep is a line of SQLite's EXPLAIN QUERY PLAN that reads a table:
// SCAN or SEARCH, the table's name or alias, the index, the terms that
// bound it.
var sqliteStep = regexp.MustCompile(`^(SCAN|SEARCH) (\S+)(?: USING (?:(AUTOMATIC (?:PARTIAL )?(?:COVERING )?INDEX)|(?:COVERING )?INDEX (\S+)|(?:INTEGER )?PRIMARY KEY))?(?: \((.*)\))?`)

// sqliteTerm is a term of a SEARCH: the column and how it is compared.
var sqliteTerm = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_]*)(=|>|<|>=|<=| IN)`)

func (p *Plan) readSQLite(text string) {
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		m := sqliteStep.FindStringSubmatch(line)
		if m == nil || line == "SCAN CONSTANT ROW" {
			continue // a sort, a subquery, a compound's parts
		}
		s := Scan{Table: m[2], Method: m[1], Index: m[4], Cond: m[5], Full: m[1] == "SCAN" || m[3] != ""}
		switch {
		case m[3] != "":
			s.Index = m[3]
		case strings.Contains(line, "PRIMARY KEY"):
			s.Index = "PRIMARY KEY"
		}
		if !s.Full {
			for _, term := range strings.Split(m[5], " AND ") {
				if t := sqliteTerm.FindStringSubmatch(term); t != nil && !containsFold(s.Columns, t[1]) {
					s.Columns = append(s.Columns, t[1])
				}
			}
		}
		p.Scans = append(p.Scans, s)
	}
}

func containsFold(list []string, s string) bool {
	for _, e := range list {
		if strings.EqualFold(e, s) {
			return true
		}
	}
	return false
}

// pgNode is a node of a PostgreSQL plan in JSON.
type pgNode struct {
	NodeType     string   `json:"Node Type"`
	RelationName string   `json:"Relation Name"`
	Alias        string   `json:"Alias"`
	IndexName    string   `json:"Index Name"`
	IndexCond    string   `json:"Index Cond"`
	Filter       string   `json:"Filter"`
	PlanRows     float64  `json:"Plan Rows"`
	Workers      int      `json:"Workers Planned"`
	Plans        []pgNode `json:"Plans"`
}

// pgColumn finds the columns an Index Cond compares: "(inst_id = 5)",
// "((t.inst_id = $1) AND (t.id = u.parent_id))".
var pgColumn = regexp.MustCompile(`\(\s*(?:"?[A-Za-z_][A-Za-z0-9_$]*"?\.)?"?([A-Za-z_][A-Za-z0-9_$]*)"?\s*(?:=|<|>|<=|>=|<>|IS|=\s*ANY)`)

func (p *Plan) readPostgres() error {
	var out []struct {
		Plan pgNode          `json:"Plan"`
		JIT  json.RawMessage `json:"JIT"`
	}
	if err := json.Unmarshal([]byte(p.Text), &out); err != nil {
		return fmt.Errorf("plantest: plan: %w", err)
	}
	for _, o := range out {
		p.JIT = p.JIT || len(o.JIT) > 0
		p.walkPostgres(o.Plan, false, false)
	}
	return nil
}

// pgScan is the Scan of node n, a scan of a table.
func pgScan(n pgNode) Scan {
	s := Scan{Table: n.RelationName, Method: n.NodeType, Index: n.IndexName, Cond: n.IndexCond, Rows: n.PlanRows}
	if n.Alias != n.RelationName {
		s.Alias = n.Alias
	}
	return s
}

// walkPostgres reads node n; limited says that a Limit above it stops it
// early (an index scan for MIN or MAX reads one entry), inner that it is
// on the inner side of a nested loop.
func (p *Plan) walkPostgres(n pgNode, limited, inner bool) {
	if n.Workers > p.Workers {
		p.Workers = n.Workers
	}
	switch n.NodeType {
	case "Limit":
		limited = true
	case "Aggregate", "Sort", "Hash", "Materialize":
		// Read their input whole.
		limited = false
	case "Seq Scan", "Sample Scan", "Tid Scan", "Tid Range Scan":
		s := pgScan(n)
		s.Full = n.NodeType != "Tid Scan"
		p.Scans = append(p.Scans, s)
	case "Index Scan", "Index Only Scan":
		s := pgScan(n)
		s.Columns = condColumns(n.IndexCond)
		// A filter may make a scan under a Limit read on to the end.
		s.Full = len(s.Columns) == 0 && !(limited && n.Filter == "")
		s.PerRow = inner && onlyInstID(s.Columns) && !outerRef.MatchString(n.IndexCond)
		p.Scans = append(p.Scans, s)
	case "Bitmap Heap Scan":
		s := pgScan(n)
		var indexes, conds []string
		var bitmap func(pgNode)
		bitmap = func(c pgNode) {
			if c.NodeType == "Bitmap Index Scan" {
				indexes = append(indexes, c.IndexName)
				s.Columns = append(s.Columns, condColumns(c.IndexCond)...)
				conds = append(conds, c.IndexCond)
			}
			for _, cc := range c.Plans {
				bitmap(cc)
			}
		}
		for _, c := range n.Plans {
			bitmap(c)
		}
		s.Index, s.Cond = strings.Join(indexes, ","), strings.Join(conds, " / ")
		s.Full = len(s.Columns) == 0
		s.PerRow = inner && onlyInstID(s.Columns) && !outerRef.MatchString(s.Cond)
		p.Scans = append(p.Scans, s)
		return // its children are the bitmap's, read above
	}
	for i, c := range n.Plans {
		// A nested loop's second child is its inner side.
		p.walkPostgres(c, limited, inner || n.NodeType == "Nested Loop" && i == 1)
	}
}

// outerRef finds, in an Index Cond, a comparison with a column of another
// table, which PostgreSQL names qualified: "(inst_id = l.inst_id)". A
// nested loop's inner scan so bounded reads the rows of the outer row's
// key, not the same rows for every outer row.
var outerRef = regexp.MustCompile(`(?:=|<>|<=|>=|<|>)\s*\(?"?[A-Za-z_][A-Za-z0-9_$]*"?\.`)

// onlyInstID reports that an index condition compares no column but
// INST_ID (or none at all).
func onlyInstID(cols []string) bool {
	for _, c := range cols {
		if !strings.EqualFold(c, "INST_ID") {
			return false
		}
	}
	return true
}

// notNull finds the "(col IS NOT NULL)" that PostgreSQL adds to the Index
// Cond of a MIN or MAX read from the end of an index: it bounds nothing.
var notNull = regexp.MustCompile(`\(\s*(?:"?[A-Za-z_][A-Za-z0-9_$]*"?\.)?"?[A-Za-z_][A-Za-z0-9_$]*"?\s+IS\s+NOT\s+NULL\s*\)`)

// condColumns returns the columns an Index Cond compares, in order, each
// once; a column only said to be NOT NULL bounds nothing and is left out.
func condColumns(cond string) []string {
	var out []string
	for _, m := range pgColumn.FindAllStringSubmatch(notNull.ReplaceAllString(cond, ""), -1) {
		if !containsFold(out, m[1]) {
			out = append(out, m[1])
		}
	}
	return out
}

func (p *Plan) readMySQL() error {
	var doc any
	if err := json.Unmarshal([]byte(p.Text), &doc); err != nil {
		return fmt.Errorf("plantest: plan: %w", err)
	}
	p.walkMySQL(doc, &mysqlJoin{}, "")
	return nil
}

// mysqlJoin is what walkMySQL knows of the join of a query block: how many
// of its tables it has read so far, in join order (but those of one row
// that the server reads once before the join: "const", "system"), and the
// join buffer of
// the table it is in ("join_type" of MariaDB's block-nl-join,
// "using_join_buffer" of MySQL's table).
type mysqlJoin struct {
	tables int
	buffer string
}

// walkMySQL finds the tables of a MySQL or MariaDB plan: every object under
// a "table" key that names one, at any depth (nested loops, subqueries,
// materialized derived tables, sorts and temporary tables). Both join by
// nested loops only: a query block's tables are read in the order its
// "nested_loop" lists them (and a semi-join's "duplicates_removal"), each
// after the first again for each row of those before it, unless a join
// buffer holds their rows. A query block nested in another (a subquery, a
// derived table) starts a join of its own; key names the value v.
func (p *Plan) walkMySQL(v any, join *mysqlJoin, key string) {
	switch x := v.(type) {
	case map[string]any:
		if key == "query_block" {
			join = &mysqlJoin{}
		}
		if jt, ok := x["join_type"].(string); ok && key == "block-nl-join" { // MariaDB
			join.buffer = jt
			defer func() { join.buffer = "" }()
		}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys) // maps have no order; plans keep theirs in arrays
		for _, k := range keys {
			if t, ok := x[k].(map[string]any); ok && k == "table" {
				if name, _ := t["table_name"].(string); name != "" {
					s := mysqlScan(name, t)
					buffer := join.buffer
					if b, ok := t["using_join_buffer"].(string); ok { // MySQL
						buffer = b
					}
					s.PerRow = join.tables > 0 && perRowMySQL(s, buffer)
					if s.Method != "const" && s.Method != "system" {
						join.tables++ // a table of one row, read before the join, repeats nothing
					}
					p.Scans = append(p.Scans, s)
				}
			}
			p.walkMySQL(x[k], join, k)
		}
	case []any:
		for _, e := range x {
			p.walkMySQL(e, join, key)
		}
	}
}

// perRowMySQL reports whether s, a table read after others in a join,
// reads the same rows again for each row of the tables before it: a
// lookup (ref) bounded by no column but INST_ID and by nothing but
// constants, not through a hashed join buffer (buffer, MariaDB's "BNLH"
// and "BKAH", MySQL's "hash join"), which reads the table once for many
// rows and compares them in memory. A lookup bounded by a column of an
// earlier table too reads only the rows that match it.
func perRowMySQL(s Scan, buffer string) bool {
	if s.Method != "ref" && s.Method != "ref_or_null" {
		return false
	}
	if strings.HasSuffix(buffer, "H") || strings.Contains(strings.ToLower(buffer), "hash") {
		return false
	}
	for _, r := range s.Refs {
		if r != "const" {
			return false
		}
	}
	return len(s.Columns) > 0 && onlyInstID(s.Columns)
}

func mysqlScan(name string, t map[string]any) Scan {
	s := Scan{Table: name}
	s.Method, _ = t["access_type"].(string)
	s.Index, _ = t["key"].(string)
	s.Full = s.Method == "ALL" || s.Method == "index"
	if !s.Full {
		s.Columns = texts(t["used_key_parts"])
	}
	s.Refs = texts(t["ref"])
	for _, k := range []string{"rows", "rows_examined_per_scan"} { // MariaDB, MySQL
		if r, ok := t[k].(float64); ok {
			s.Rows = r
			break
		}
	}
	return s
}

// texts returns the strings of a JSON array.
func texts(v any) []string {
	var out []string
	list, _ := v.([]any)
	for _, e := range list {
		if s, ok := e.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// ByInstID reports whether the scan reads its table as a statement on a
// few result sets should: not the whole table or index, and through an
// index whose first bounded column is INST_ID, through a primary key
// (SQLite's rowid, reached from such an index), or as a probe an index
// scan stops at its first entry (MIN, MAX: no bounded column).
func (s Scan) ByInstID() bool {
	if s.Full {
		return false
	}
	if s.Index == "PRIMARY KEY" || s.Index == "PRIMARY" || strings.HasPrefix(strings.ToUpper(s.Index), "PK_") {
		return true
	}
	return len(s.Columns) == 0 || strings.EqualFold(s.Columns[0], "INST_ID")
}

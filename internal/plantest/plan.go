package plantest

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// read fills Scans, JIT and Workers from p.JSON, as dialect explains.
func (p *Plan) read(dialect string) error {
	switch dialect {
	case "postgres":
		return p.readPostgres()
	case "mysql":
		return p.readMySQL()
	}
	return fmt.Errorf("plantest: no plans of %s", dialect)
}

// ReadPlan returns the plan of query that the server of dialect
// ("postgres" or "mysql") gave as planJSON, read.
func ReadPlan(dialect, query, planJSON string) (Plan, error) {
	p := Plan{Query: query, JSON: planJSON}
	err := p.read(dialect)
	return p, err
}

// pgNode is a node of a PostgreSQL plan in JSON.
type pgNode struct {
	NodeType     string   `json:"Node Type"`
	RelationName string   `json:"Relation Name"`
	IndexName    string   `json:"Index Name"`
	IndexCond    string   `json:"Index Cond"`
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
	if err := json.Unmarshal([]byte(p.JSON), &out); err != nil {
		return fmt.Errorf("plantest: plan: %w", err)
	}
	for _, o := range out {
		p.JIT = p.JIT || len(o.JIT) > 0
		p.walkPostgres(o.Plan, false, false)
	}
	return nil
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
		p.Scans = append(p.Scans, Scan{Table: n.RelationName, Method: n.NodeType, Full: n.NodeType != "Tid Scan", Rows: n.PlanRows})
	case "Index Scan", "Index Only Scan":
		cols := condColumns(n.IndexCond)
		p.Scans = append(p.Scans, Scan{Table: n.RelationName, Method: n.NodeType, Index: n.IndexName,
			Columns: cols, Full: len(cols) == 0 && !limited, Rows: n.PlanRows, PerRow: inner && onlyInstID(cols) && !outerRef.MatchString(n.IndexCond)})
	case "Bitmap Heap Scan":
		s := Scan{Table: n.RelationName, Method: n.NodeType, Rows: n.PlanRows}
		var indexes []string
		var conds string
		var bitmap func(pgNode)
		bitmap = func(c pgNode) {
			if c.NodeType == "Bitmap Index Scan" {
				indexes = append(indexes, c.IndexName)
				s.Columns = append(s.Columns, condColumns(c.IndexCond)...)
				conds += c.IndexCond
			}
			for _, cc := range c.Plans {
				bitmap(cc)
			}
		}
		for _, c := range n.Plans {
			bitmap(c)
		}
		s.Index = strings.Join(indexes, ",")
		s.Full = len(s.Columns) == 0
		s.PerRow = inner && onlyInstID(s.Columns) && !outerRef.MatchString(conds)
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
	seen := map[string]bool{}
	for _, m := range pgColumn.FindAllStringSubmatch(notNull.ReplaceAllString(cond, ""), -1) {
		if !seen[m[1]] {
			seen[m[1]] = true
			out = append(out, m[1])
		}
	}
	return out
}

// mysqlAlias finds the tables a statement of profdb's names with an alias:
// FROM `TABLE` t, JOIN `schema`.`TABLE` AS t.
var mysqlAlias = regexp.MustCompile("(?i)(?:FROM|JOIN)\\s+(?:`[^`]+`\\.)?`([^`]+)`\\s+(?:AS\\s+)?([A-Za-z_][A-Za-z0-9_]*)")

func (p *Plan) readMySQL() error {
	var doc any
	if err := json.Unmarshal([]byte(p.JSON), &doc); err != nil {
		return fmt.Errorf("plantest: plan: %w", err)
	}
	p.walkMySQL(doc)
	// MySQL's plans name a table by its alias: name it by the table.
	aliases := map[string]string{}
	for _, m := range mysqlAlias.FindAllStringSubmatch(p.Query, -1) {
		switch strings.ToUpper(m[2]) {
		case "WHERE", "ON", "JOIN", "LEFT", "RIGHT", "INNER", "CROSS", "GROUP", "ORDER", "UNION", "LIMIT", "USING", "STRAIGHT_JOIN", "HAVING", "FORCE", "USE", "IGNORE":
			continue
		}
		aliases[m[2]] = m[1]
	}
	for i, s := range p.Scans {
		if t, ok := aliases[s.Table]; ok {
			p.Scans[i].Alias, p.Scans[i].Table = s.Table, t
		}
	}
	return nil
}

// walkMySQL finds the tables of a MySQL or MariaDB plan: every object under
// a "table" key that names one, at any depth (nested loops, subqueries,
// materialized derived tables, sorts and temporary tables).
func (p *Plan) walkMySQL(v any) {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys) // maps have no order; plans keep theirs in arrays
		for _, k := range keys {
			if t, ok := x[k].(map[string]any); ok && k == "table" {
				if name, _ := t["table_name"].(string); name != "" {
					p.Scans = append(p.Scans, mysqlScan(name, t))
				}
			}
			p.walkMySQL(x[k])
		}
	case []any:
		for _, e := range x {
			p.walkMySQL(e)
		}
	}
}

func mysqlScan(name string, t map[string]any) Scan {
	s := Scan{Table: name}
	s.Method, _ = t["access_type"].(string)
	s.Index, _ = t["key"].(string)
	if parts, ok := t["used_key_parts"].([]any); ok && s.Method != "index" && s.Method != "ALL" {
		for _, k := range parts {
			if str, ok := k.(string); ok {
				s.Columns = append(s.Columns, str)
			}
		}
	}
	switch r := t["rows"].(type) {
	case float64:
		s.Rows = r
	}
	s.Full = s.Method == "ALL" || s.Method == "index"
	return s
}

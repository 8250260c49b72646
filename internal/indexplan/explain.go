package indexplan

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/profdb/profdb/dialects"
)

// Access is how a plan reads one table of a statement.
type Access struct {
	// Table is the table's real name, upper case, where the plan or the
	// statement tells it; "" for a derived table (a subquery's rows).
	Table string
	// Alias is the name the plan gives the table: its alias in the
	// statement, or its name.
	Alias string
	// Index is the index the table is read through; "" for none.
	Index string
	// Keys are the index's columns the read is bounded by (upper case):
	// INST_ID, or INST_ID and PARENT_ID, say; none for a full scan.
	Keys []string
	// Refs are what each key is compared with, where the plan says
	// (MySQL): "const" for a parameter or constant, else a column of
	// another table, whose every value the read is repeated for.
	Refs []string
	// Full is set when every row of the table, or every entry of an
	// index, is read: a table scan, or an index read from end to end.
	Full bool
	// Detail is the plan's own words for the read.
	Detail string
}

func (a Access) String() string {
	return fmt.Sprintf("%s (%s): index %q keys %v refs %v full %v: %s", a.Table, a.Alias, a.Index, a.Keys, a.Refs, a.Full, a.Detail)
}

// Explain returns how the database q reaches would read each table of
// statement query (a SELECT, or a DELETE or UPDATE, which are not run) with
// args, as its planner plans it now: SQLite's EXPLAIN QUERY PLAN,
// PostgreSQL's and MySQL's EXPLAIN (FORMAT JSON). dialect is the dialect's
// name ("sqlite", "postgres", "mysql"); others are an error.
func Explain(ctx context.Context, q dialects.DBTX, dialect, query string, args []any) ([]Access, error) {
	aliases := Aliases(query)
	var out []Access
	var err error
	switch dialect {
	case "sqlite":
		out, err = explainSQLite(ctx, q, query, args)
	case "postgres":
		out, err = explainPostgres(ctx, q, query, args)
	case "mysql":
		out, err = explainMySQL(ctx, q, query, args)
	default:
		return nil, fmt.Errorf("indexplan: no EXPLAIN for dialect %s", dialect)
	}
	if err != nil {
		return nil, fmt.Errorf("indexplan: explain %s: %w", oneLine(query), err)
	}
	for i := range out {
		if out[i].Table == "" {
			out[i].Table = aliases[strings.ToLower(out[i].Alias)]
		}
	}
	return out, nil
}

// tableRef is a quoted table name, maybe schema-qualified, and the alias
// after it, if any.
var tableRef = regexp.MustCompile("(?:[\"`\\[][A-Za-z0-9_]+[\"`\\]]\\.)?[\"`\\[]([A-Za-z0-9_]+)[\"`\\]](?:\\s+(?:AS\\s+)?([a-z][a-z0-9_]*))?")

// Aliases maps the names a statement gives its tables (each alias, and
// each quoted name itself), lower case, to the tables' names, upper case.
// Only quoted names count, as profdb quotes every table it names; a quoted
// column is named too, harmlessly.
func Aliases(query string) map[string]string {
	out := map[string]string{}
	for _, m := range tableRef.FindAllStringSubmatch(query, -1) {
		name := strings.ToUpper(m[1])
		out[strings.ToLower(m[1])] = name
		switch m[2] {
		case "", "on", "where", "join", "left", "inner", "group", "order", "union", "and", "or", "set", "limit":
		default:
			out[m[2]] = name
		}
	}
	return out
}

var sqliteStep = regexp.MustCompile(`^(SCAN|SEARCH) (\S+)(?: USING (?:(?:COVERING )?INDEX (\S+)|INTEGER PRIMARY KEY|PRIMARY KEY))?(?: \((.*)\))?`)

func explainSQLite(ctx context.Context, q dialects.DBTX, query string, args []any) ([]Access, error) {
	rows, err := q.QueryContext(ctx, "EXPLAIN QUERY PLAN "+query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Access
	for rows.Next() {
		var id, parent, unused int64
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			return nil, err
		}
		m := sqliteStep.FindStringSubmatch(detail)
		if m == nil {
			continue
		}
		a := Access{Alias: m[2], Index: m[3], Full: m[1] == "SCAN", Detail: detail}
		if strings.Contains(detail, "PRIMARY KEY") {
			a.Index = "PRIMARY KEY"
		}
		for _, cond := range strings.Split(m[4], " AND ") {
			if col, _, ok := strings.Cut(cond, "="); ok && !strings.ContainsAny(col, "<>") {
				a.Keys = append(a.Keys, strings.ToUpper(col))
			} else if c, ok := cut(cond, "<", ">"); ok {
				a.Keys = append(a.Keys, strings.ToUpper(c))
			}
		}
		out = append(out, a)
	}
	return out, rows.Err()
}

func cut(s string, seps ...string) (string, bool) {
	for _, sep := range seps {
		if before, _, ok := strings.Cut(s, sep); ok {
			return before, true
		}
	}
	return "", false
}

// pgKey finds the columns a PostgreSQL index condition bounds.
var pgKey = regexp.MustCompile(`\(?\(?([a-z_][a-z0-9_]*)\)? = `)

func explainPostgres(ctx context.Context, q dialects.DBTX, query string, args []any) ([]Access, error) {
	var text string
	if err := q.QueryRowContext(ctx, "EXPLAIN (FORMAT JSON) "+query, args...).Scan(&text); err != nil {
		return nil, err
	}
	var plans []struct {
		Plan map[string]any `json:"Plan"`
	}
	if err := json.Unmarshal([]byte(text), &plans); err != nil {
		return nil, err
	}
	var out []Access
	var walk func(n map[string]any, heap *Access)
	walk = func(n map[string]any, heap *Access) {
		typ, _ := n["Node Type"].(string)
		rel, _ := n["Relation Name"].(string)
		alias, _ := n["Alias"].(string)
		idx, _ := n["Index Name"].(string)
		cond, _ := n["Index Cond"].(string)
		var keys []string
		for _, m := range pgKey.FindAllStringSubmatch(cond, -1) {
			keys = append(keys, strings.ToUpper(m[1]))
		}
		switch typ {
		case "Seq Scan":
			out = append(out, Access{Table: strings.ToUpper(rel), Alias: alias, Full: true, Detail: typ})
		case "Index Scan", "Index Only Scan":
			out = append(out, Access{Table: strings.ToUpper(rel), Alias: alias, Index: idx, Keys: keys, Full: cond == "", Detail: typ + " " + cond})
		case "Bitmap Heap Scan":
			a := Access{Table: strings.ToUpper(rel), Alias: alias, Detail: typ}
			if kids, ok := n["Plans"].([]any); ok {
				for _, k := range kids {
					if km, ok := k.(map[string]any); ok {
						walk(km, &a)
					}
				}
			}
			out = append(out, a)
			return
		case "Bitmap Index Scan":
			if heap != nil {
				heap.Index, heap.Keys, heap.Full = idx, keys, cond == ""
				heap.Detail += " / " + typ + " " + cond
			}
			return
		}
		if kids, ok := n["Plans"].([]any); ok {
			for _, k := range kids {
				if km, ok := k.(map[string]any); ok {
					walk(km, heap)
				}
			}
		}
	}
	for _, p := range plans {
		walk(p.Plan, nil)
	}
	return out, nil
}

func explainMySQL(ctx context.Context, q dialects.DBTX, query string, args []any) ([]Access, error) {
	var text string
	if err := q.QueryRowContext(ctx, "EXPLAIN FORMAT=JSON "+query, args...).Scan(&text); err != nil {
		return nil, err
	}
	var plan any
	if err := json.Unmarshal([]byte(text), &plan); err != nil {
		return nil, err
	}
	var out []Access
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			if t, ok := x["table"].(map[string]any); ok {
				name, _ := t["table_name"].(string)
				typ, _ := t["access_type"].(string)
				key, _ := t["key"].(string)
				a := Access{Alias: name, Index: key, Full: typ == "ALL" || typ == "index", Detail: typ}
				if strings.HasPrefix(name, "<") {
					a.Alias = ""
				}
				if parts, ok := t["used_key_parts"].([]any); ok && !a.Full {
					for _, p := range parts {
						if s, ok := p.(string); ok {
							a.Keys = append(a.Keys, strings.ToUpper(s))
						}
					}
				}
				if refs, ok := t["ref"].([]any); ok {
					for _, r := range refs {
						if s, ok := r.(string); ok {
							a.Refs = append(a.Refs, s)
						}
					}
				}
				if a.Alias != "" {
					out = append(out, a)
				}
			}
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(plan)
	return out, nil
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

var (
	instJoin = regexp.MustCompile("(?i)([a-z][a-z0-9_]*)\\.[\"`\\[]?INST_ID[\"`\\]]?\\s*=\\s*([a-z][a-z0-9_]*)\\.[\"`\\[]?INST_ID\\b")
	instIn   = regexp.MustCompile("(?i)INST_ID[\"`\\]]?\\s+IN\\s*\\(")
)

// Shape returns what in a statement's text lets a planner read a table by
// INST_ID alone inside a join, where it should bind a second column of an
// index: an INST_ID compared with another table's INST_ID column rather
// than with the parameter (t.INST_ID = u.INST_ID), or an INST_ID IN list
// in a statement that joins. A planner whose statistics mislead it may
// then read every row of the result set once per row of the other table.
func Shape(query string) []string {
	var out []string
	for _, m := range instJoin.FindAllStringSubmatch(query, -1) {
		if m[1] != m[2] {
			out = append(out, m[0])
		}
	}
	if strings.Contains(strings.ToUpper(query), " JOIN ") {
		for _, m := range instIn.FindAllString(query, -1) {
			out = append(out, m+"… in a join")
		}
	}
	return out
}

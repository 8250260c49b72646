package plantest

import (
	"regexp"
	"strings"
)

// tableRef is a quoted table name, maybe schema-qualified, and the alias
// after it, if any.
var tableRef = regexp.MustCompile("(?:[\"`\\[][A-Za-z0-9_]+[\"`\\]]\\.)?[\"`\\[]([A-Za-z0-9_]+)[\"`\\]](?:\\s+(?:AS\\s+)?([a-z][a-z0-9_]*))?")

// Aliases maps the names a statement gives its tables (each alias, and
// each quoted name itself), lower case, to the tables' names as the
// statement spells them. Only quoted names count, as profdb quotes every
// table it names; a quoted column is named too, harmlessly.
func Aliases(query string) map[string]string {
	out := map[string]string{}
	for _, m := range tableRef.FindAllStringSubmatch(query, -1) {
		out[strings.ToLower(m[1])] = m[1]
	}
	for alias, table := range aliasesOf(query) {
		out[alias] = table
	}
	return out
}

// aliasesOf maps the aliases a statement gives its tables to the tables'
// names as it spells them.
func aliasesOf(query string) map[string]string {
	out := map[string]string{}
	for _, m := range tableRef.FindAllStringSubmatch(query, -1) {
		switch m[2] {
		case "", "on", "where", "join", "left", "inner", "group", "order", "union", "and", "or", "set", "limit":
		default:
			out[m[2]] = m[1]
		}
	}
	return out
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

package tdstest

import (
	"regexp"
	"strings"
	"sync"
)

// Responder is a Handler with canned answers. Register rules with On, OnError,
// OnRegexp and Table, then pass its Handle method to NewServer. Rules are
// tried in the order they were added and the first match answers. Without a
// match a Batch or RPC is answered with a DONE counting the rows of its
// VALUES clause (a heuristic: INSERT ... VALUES (..),(..) counts 2, anything
// else 0), and a BulkLoad with its row count. A Responder is safe for
// concurrent use, and rules may be added while the server runs.
type Responder struct {
	mu     sync.Mutex
	rules  []rule
	tables map[string][]Column
}

type rule struct {
	match func(sql string) bool
	h     Handler
}

// NewResponder returns a Responder without rules.
func NewResponder() *Responder { return &Responder{tables: map[string][]Column{}} }

func (r *Responder) add(match func(string) bool, h Handler) *Responder {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.rules = append(r.rules, rule{match, h})
	return r
}

// On answers statements whose SQL contains substr, compared
// case-insensitively, with res.
func (r *Responder) On(substr string, res *Result) *Responder {
	return r.add(containsFold(substr), func(*Request) (*Result, error) { return res, nil })
}

// OnRegexp lets h answer statements whose SQL matches the regular expression
// pattern; it panics if pattern does not compile.
func (r *Responder) OnRegexp(pattern string, h Handler) *Responder {
	return r.add(regexp.MustCompile(pattern).MatchString, h)
}

// Table declares a table's columns, so that the metadata query go-mssqldb's
// bulk copy sends first ("select * from [dbo].[t] SET FMTONLY OFF"), or a
// "select top 0 * from" the table, is answered with an empty result set of
// these columns, before any other rule. The name may be schema-qualified
// ("dbo.t") or not ("t"), and is compared case-insensitively without
// brackets. Bulk copy matches column names exactly, and only sends values for
// nullable TDS types, so use types such as BigInt, NVarChar(50),
// Decimal(18, 2) or Float.
func (r *Responder) Table(name string, cols ...Column) *Responder {
	r.mu.Lock()
	defer r.mu.Unlock()
	n, _ := objectName(name)
	r.tables[strings.ToLower(n)] = cols
	return r
}

// Handle answers a request; it is a Handler.
func (r *Responder) Handle(req *Request) (*Result, error) {
	if req.Kind == BulkLoad {
		return nil, nil
	}
	r.mu.Lock()
	cols := r.metadata(req.SQL)
	rules := r.rules
	r.mu.Unlock()
	if cols != nil {
		return &Result{Sets: []ResultSet{{Columns: cols}}}, nil
	}
	for _, ru := range rules {
		if ru.match(req.SQL) {
			return ru.h(req)
		}
	}
	return &Result{RowsAffected: countValuesRows(req.SQL)}, nil
}

// metadata returns the columns of a registered table if sql is a metadata
// query for it: "select top 0 * from T ..." or go-mssqldb's
// "select * from T SET FMTONLY OFF".
func (r *Responder) metadata(sql string) []Column {
	sql = strings.TrimSpace(sql)
	rest, ok := cutPrefixFold(sql, "select top 0 * from")
	if !ok {
		rest, ok = cutPrefixFold(sql, "select * from")
		ok = ok && strings.Contains(strings.ToLower(rest), "fmtonly off")
	}
	if !ok {
		return nil
	}
	name, _ := objectName(rest)
	name = strings.ToLower(name)
	if cols, ok := r.tables[name]; ok {
		return cols
	}
	for t, cols := range r.tables { // "dbo.t" for "t" or the other way round
		if strings.HasSuffix(name, "."+t) || strings.HasSuffix(t, "."+name) {
			return cols
		}
	}
	return nil
}

func containsFold(substr string) func(string) bool {
	substr = strings.ToLower(substr)
	return func(sql string) bool { return strings.Contains(strings.ToLower(sql), substr) }
}

func cutPrefixFold(s, prefix string) (string, bool) {
	if len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix) {
		return s[len(prefix):], true
	}
	return s, false
}

// namePart matches one part of a multi-part object name: [bracketed],
// "quoted" or plain.
var namePart = regexp.MustCompile(`^\s*(\[(?:[^\]]|\]\])*\]|"(?:[^"]|"")*"|[^\s.;,()]+)\s*`)

// objectName parses a possibly quoted multi-part name at the start of s, such
// as [dbo].[my table], and returns its parts without quotes joined by dots
// ("dbo.my table") and the rest of s.
func objectName(s string) (name, rest string) {
	var parts []string
	for {
		m := namePart.FindStringSubmatchIndex(s)
		if m == nil {
			break
		}
		p := s[m[2]:m[3]]
		switch p[0] {
		case '[':
			p = strings.ReplaceAll(p[1:len(p)-1], "]]", "]")
		case '"':
			p = strings.ReplaceAll(p[1:len(p)-1], `""`, `"`)
		}
		parts, s = append(parts, p), s[m[1]:]
		if !strings.HasPrefix(s, ".") {
			break
		}
		s = s[1:]
	}
	return strings.Join(parts, "."), s
}

// quoted matches string literals and quoted identifiers.
var quoted = regexp.MustCompile(`'(?:[^']|'')*'|\[(?:[^\]]|\]\])*\]|"(?:[^"]|"")*"`)

// valuesKeyword matches the VALUES keyword.
var valuesKeyword = regexp.MustCompile(`(?i)\bvalues\b`)

// countValuesRows counts the parenthesized rows after the first VALUES
// keyword of sql that is not inside quotes.
func countValuesRows(sql string) int64 {
	sql = quoted.ReplaceAllString(sql, "''")
	loc := valuesKeyword.FindStringIndex(sql)
	if loc == nil {
		return 0
	}
	depth, rows := 0, int64(0)
	for _, c := range sql[loc[1]:] {
		switch {
		case c == '(':
			if depth == 0 {
				rows++
			}
			depth++
		case c == ')':
			if depth--; depth < 0 {
				return rows
			}
		case c == ';' && depth == 0:
			return rows
		}
	}
	return rows
}

package tdstest

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// The SELECT statements the Catalog answers besides SELECT MAX: those of
// the checks profdb's exporter runs on a result set before it commits (see
// exporter.checkResultSet), evaluated over the rows the request's
// transaction sees. Names are bracket-quoted; n is the INST_ID parameter
// @p1.
var (
	// SELECT [a], [b], ... FROM t WHERE [k] = @p1
	selectWhereRE = regexp.MustCompile(`(?is)^SELECT\s+((?:\[\w+\]\s*,\s*)*\[\w+\])\s+FROM\s+(.+?)\s+WHERE\s+\[(\w+)\]\s*=\s*@p1$`)
	// SELECT [id] AS fault_id, COUNT(*) AS fault_value FROM t WHERE [k] = @p1 AND [id] IS NOT NULL GROUP BY [id] HAVING COUNT(*) > 1 ORDER BY 1
	selectDupRE = regexp.MustCompile(`(?is)^SELECT\s+\[(\w+)\]\s+AS\s+fault_id,\s*COUNT\(\*\)\s+AS\s+fault_value\s+FROM\s+(.+?)\s+WHERE\s+\[(\w+)\]\s*=\s*@p1\s+AND\s+\[\w+\]\s+IS\s+NOT\s+NULL\s+GROUP\s+BY\s+\[\w+\]\s+HAVING\s+COUNT\(\*\)\s*>\s*1\s+ORDER\s+BY\s+1$`)
	// SELECT COUNT([id]) - COUNT(DISTINCT [id]) FROM t WHERE [k] = @p1
	selectDupProbeRE = regexp.MustCompile(`(?is)^SELECT\s+COUNT\(\[(\w+)\]\)\s*-\s*COUNT\(DISTINCT\s+\[\w+\]\)\s+FROM\s+(.+?)\s+WHERE\s+\[(\w+)\]\s*=\s*@p1$`)
	// SELECT [id] AS fault_id, [parent] AS fault_value FROM t WHERE [k] = @p1 AND [parent] <> -1 ORDER BY 1
	selectTopRE = regexp.MustCompile(`(?is)^SELECT\s+\[(\w+)\]\s+AS\s+fault_id,\s*\[(\w+)\]\s+AS\s+fault_value\s+FROM\s+(.+?)\s+WHERE\s+\[(\w+)\]\s*=\s*@p1\s+AND\s+\[\w+\]\s*<>\s*-1\s+ORDER\s+BY\s+1$`)
	// SELECT c.[id] AS fault_id, c.[parent] AS fault_value FROM t c WHERE c.[k] = @p1 AND NOT EXISTS
	// (SELECT 1 FROM pt p WHERE p.[pk] = c.[k] AND p.[pid] = c.[parent]) ORDER BY 1
	selectOrphanRE = regexp.MustCompile(`(?is)^SELECT\s+c\.\[(\w+)\]\s+AS\s+fault_id,\s*c\.\[(\w+)\]\s+AS\s+fault_value\s+FROM\s+(.+?)\s+c\s+WHERE\s+c\.\[(\w+)\]\s*=\s*@p1\s+AND\s+NOT\s+EXISTS\s*\(SELECT\s+1\s+FROM\s+(.+?)\s+p\s+WHERE\s+p\.\[(\w+)\]\s*=\s*c\.\[\w+\]\s+AND\s+p\.\[(\w+)\]\s*=\s*c\.\[\w+\]\)\s+ORDER\s+BY\s+1$`)
)

// selectRows answers the SELECT statements above; ok is false for any
// other statement.
func (c *Catalog) selectRows(req *Request, sql string, tx uint64) (*Result, bool, error) {
	table := func(name string) (*catTable, error) {
		parts, _ := nameParts(lex(name), 0)
		return c.resolve(parts, tx)
	}
	cols := func(t *catTable, names ...string) ([]int, error) {
		out := make([]int, len(names))
		for i, n := range names {
			if out[i] = t.column(n); out[i] < 0 {
				return nil, &Error{Number: 207, State: 1, Class: 16, Message: fmt.Sprintf("Invalid column name '%s'.", n)}
			}
		}
		return out, nil
	}
	inst, _ := paramValue(req, "@p1")
	// rows returns the visible rows of t whose column k holds inst.
	rows := func(t *catTable, k int) [][]any {
		var out [][]any
		for _, r := range t.rows {
			if visible(r.tx, tx) && r.vals[k] != nil && r.vals[k] == inst {
				out = append(out, r.vals)
			}
		}
		return out
	}
	result := func(t *catTable, idx []int, out [][]any) *Result {
		set := ResultSet{Rows: out}
		for _, i := range idx {
			col := t.cols[i]
			col.Nullable = true // results carry the nullable types
			set.Columns = append(set.Columns, Column{Name: col.Name, Type: tdsType(col)})
		}
		return &Result{Sets: []ResultSet{set}}
	}
	byFirst := func(out [][]any) {
		sort.SliceStable(out, func(i, j int) bool { a, _ := out[i][0].(int64); b, _ := out[j][0].(int64); return a < b })
	}
	if m := selectWhereRE.FindStringSubmatch(sql); m != nil {
		t, err := table(m[2])
		if err != nil {
			return nil, true, err
		}
		var names []string
		for _, n := range strings.Split(m[1], ",") {
			names = append(names, strings.Trim(strings.TrimSpace(n), "[]"))
		}
		idx, err := cols(t, append(names, m[3])...)
		if err != nil {
			return nil, true, err
		}
		var out [][]any
		for _, r := range rows(t, idx[len(idx)-1]) {
			row := make([]any, len(names))
			for i := range names {
				row[i] = r[idx[i]]
			}
			out = append(out, row)
		}
		return result(t, idx[:len(names)], out), true, nil
	}
	if m := selectDupRE.FindStringSubmatch(sql); m != nil {
		t, err := table(m[2])
		if err != nil {
			return nil, true, err
		}
		idx, err := cols(t, m[1], m[3])
		if err != nil {
			return nil, true, err
		}
		n := map[int64]int64{}
		for _, r := range rows(t, idx[1]) {
			if id, ok := r[idx[0]].(int64); ok {
				n[id]++
			}
		}
		var out [][]any
		for id, k := range n {
			if k > 1 {
				out = append(out, []any{id, k})
			}
		}
		byFirst(out)
		set := ResultSet{Columns: []Column{{Name: t.cols[idx[0]].Name, Type: BigInt}, {Name: "", Type: Int}}, Rows: out}
		return &Result{Sets: []ResultSet{set}}, true, nil
	}
	if m := selectDupProbeRE.FindStringSubmatch(sql); m != nil {
		t, err := table(m[2])
		if err != nil {
			return nil, true, err
		}
		idx, err := cols(t, m[1], m[3])
		if err != nil {
			return nil, true, err
		}
		var n int64
		seen := map[int64]bool{}
		for _, r := range rows(t, idx[1]) {
			if id, ok := r[idx[0]].(int64); ok {
				if seen[id] {
					n++
				}
				seen[id] = true
			}
		}
		return &Result{Sets: []ResultSet{{Columns: []Column{{Name: "", Type: BigInt}}, Rows: [][]any{{n}}}}}, true, nil
	}
	if m := selectTopRE.FindStringSubmatch(sql); m != nil {
		t, err := table(m[3])
		if err != nil {
			return nil, true, err
		}
		idx, err := cols(t, m[1], m[2], m[4])
		if err != nil {
			return nil, true, err
		}
		var out [][]any
		for _, r := range rows(t, idx[2]) {
			if p, ok := r[idx[1]].(int64); ok && p != -1 {
				out = append(out, []any{r[idx[0]], p})
			}
		}
		byFirst(out)
		return result(t, idx[:2], out), true, nil
	}
	if m := selectOrphanRE.FindStringSubmatch(sql); m != nil {
		t, err := table(m[3])
		if err != nil {
			return nil, true, err
		}
		pt, err := table(m[5])
		if err != nil {
			return nil, true, err
		}
		idx, err := cols(t, m[1], m[2], m[4])
		if err != nil {
			return nil, true, err
		}
		pidx, err := cols(pt, m[6], m[7])
		if err != nil {
			return nil, true, err
		}
		ids := map[any]bool{}
		for _, r := range rows(pt, pidx[0]) {
			ids[r[pidx[1]]] = true
		}
		var out [][]any
		for _, r := range rows(t, idx[2]) {
			if p := r[idx[1]]; p == nil || !ids[p] {
				out = append(out, []any{r[idx[0]], p})
			}
		}
		byFirst(out)
		return result(t, idx[:2], out), true, nil
	}
	return nil, false, nil
}

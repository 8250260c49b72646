package store

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
	"strings"

	"github.com/dustin/go-humanize/english"

	"github.com/profdb/profdb/ddl"
	"github.com/profdb/profdb/profilers"
)

// CheckKind is what a TableCheck looks for.
type CheckKind int

const (
	// DuplicateIDs: IDs that more than one row of the table holds.
	DuplicateIDs CheckKind = iota
	// DanglingParents: rows of a child table whose PARENT_ID names no row
	// of the parent table.
	DanglingParents
	// TopLevelParents: rows of a top-level table whose PARENT_ID is not -1.
	TopLevelParents
)

// Problem is what n faults of a check of kind k on table t are, as verify
// words it: "2 rows whose PARENT_ID names no row of T".
func (k CheckKind) Problem(t ddl.Table, n int) string {
	switch k {
	case DuplicateIDs:
		return english.Plural(n, "ID", "") + " held by more than one row"
	case DanglingParents:
		return english.Plural(n, "row", "") + " whose PARENT_ID names no row of " + t.Parent
	}
	return english.Plural(n, "row", "") + " whose PARENT_ID is not -1 (the table is top-level)"
}

// TableCheck is one check of one table of a result set: Query selects one
// row per fault, of two integer columns, fault_id (the row's ID) and
// fault_value (for DuplicateIDs the number of rows holding the ID, else the
// PARENT_ID). The query has no ORDER BY, so that it can be a derived table.
type TableCheck struct {
	Kind  CheckKind
	Table ddl.Table
	Query string
	// Probe, if set, is a cheaper query of one integer that is 0 when
	// Query would find nothing (for DuplicateIDs, COUNT(ID) - COUNT(DISTINCT
	// ID): PostgreSQL, whose plans for the rows just loaded have no
	// statistics, counts distinct values in half the time it groups them).
	// Dialects that group faster (dialects.IndexGrouped) skip it.
	Probe string
}

// TableChecks returns the checks that export runs before it commits, and
// verify runs, on table t of the result set whose INST_ID is the SQL
// expression inst (a placeholder, or a script's expression). table
// returns the qualified name of a documented table, column the quoted name
// of one of its documented columns. Each query is scoped to the INST_ID and
// served by the indexes on (INST_ID, ID) and (INST_ID, PARENT_ID), so that
// memory stays bounded whatever the size of the result set: the parent of
// a DanglingParents check is looked up by inst itself, not by the child's
// INST_ID column, so that both columns of its (INST_ID, ID) index are
// known and no planner takes another index for a lookup by INST_ID alone
// (see readback's pair queries). inst may occur more than once.
func TableChecks(t ddl.Table, inst string, table func(name string) string, column func(table, name string) string) []TableCheck {
	tn, in, id, pid := table(t.Name), column(t.Name, ddl.InstID), column(t.Name, ddl.ID), column(t.Name, ddl.ParentID)
	checks := []TableCheck{{Kind: DuplicateIDs, Table: t,
		Query: fmt.Sprintf("SELECT %[2]s AS fault_id, COUNT(*) AS fault_value FROM %[3]s WHERE %[1]s = %[4]s AND %[2]s IS NOT NULL GROUP BY %[2]s HAVING COUNT(*) > 1", in, id, tn, inst),
		Probe: fmt.Sprintf("SELECT COUNT(%[2]s) - COUNT(DISTINCT %[2]s) FROM %[3]s WHERE %[1]s = %[4]s", in, id, tn, inst)}}
	if t.Parent == "" {
		return append(checks, TableCheck{Kind: TopLevelParents, Table: t,
			Query: fmt.Sprintf("SELECT %[2]s AS fault_id, %[3]s AS fault_value FROM %[4]s WHERE %[1]s = %[5]s AND %[3]s <> -1", in, id, pid, tn, inst)})
	}
	return append(checks, TableCheck{Kind: DanglingParents, Table: t,
		Query: fmt.Sprintf("SELECT c.%[2]s AS fault_id, c.%[3]s AS fault_value FROM %[4]s c WHERE c.%[1]s = %[5]s AND NOT EXISTS (SELECT 1 FROM %[6]s p WHERE p.%[7]s = %[5]s AND p.%[8]s = c.%[3]s)",
			in, id, pid, tn, inst, table(t.Parent), column(t.Parent, ddl.InstID), column(t.Parent, ddl.ID))})
}

// Check runs, through the catalogue's querier, the checks that verify runs
// on result set inst (see Verify), as an export runs them on the result set
// it wrote before it commits. proven, if set, tells the checks whose
// outcome is known to be "nothing found": their queries are not run.
func (c *Catalog) Check(ctx context.Context, inst int64, proven func(CheckKind, string) bool) ([]Finding, error) {
	rels, err := c.relations(ctx, []int64{inst})
	if err != nil {
		return nil, err
	}
	return c.checkResultSet(ctx, inst, rels[inst], proven)
}

// checkResultSet runs, through c, the checks that verify and export share
// on one result set: its RELATIONS rows (rel) match the registered graph,
// and the TableChecks of each table of its profiler find nothing. Findings
// name the rows at fault by ID.
//
// proven, if set, tells the checks whose outcome is known to be "nothing
// found" (an export's stream proves some): their queries are not run.
func (c *Catalog) checkResultSet(ctx context.Context, inst int64, rel map[string]string, proven func(CheckKind, string) bool) ([]Finding, error) {
	if len(rel) == 0 {
		return []Finding{{InstID: inst, Table: profilers.RelationsTable, Message: "no RELATIONS rows: the result set's profiler is unknown"}}, nil
	}
	def, ok := profilerOf(rel)
	if !ok {
		return []Finding{{InstID: inst, Table: profilers.RelationsTable, Message: "RELATIONS names no table of a registered profiler"}}, nil
	}
	var out []Finding
	for _, t := range def.Tables {
		parent, listed := rel[t.Name]
		switch {
		case !listed:
			out = append(out, Finding{InstID: inst, Table: profilers.RelationsTable, Message: fmt.Sprintf("no row for table %s (profiler %s)", t.Name, def.Name)})
		case parent != t.Parent:
			out = append(out, Finding{InstID: inst, Table: profilers.RelationsTable,
				Message: fmt.Sprintf("table %s has parent %s; profiler %s says %s", t.Name, orNull(parent), def.Name, orNull(t.Parent))})
		}
	}
	children := make([]string, 0, len(rel))
	for child := range rel {
		if _, ok := def.Table(child); !ok {
			children = append(children, child)
		}
	}
	sort.Strings(children)
	for _, child := range children {
		out = append(out, Finding{InstID: inst, Table: profilers.RelationsTable, Message: fmt.Sprintf("row for table %s, which profiler %s does not have", child, def.Name)})
	}
	for _, t := range def.Tables {
		// A table a DBA made may lack documented columns: what it does
		// not store cannot be checked.
		if !c.Has(t.Name) || t.Parent != "" && !c.Has(t.Parent) {
			continue
		}
		ok, err := c.hasCols(ctx, t.Name, ddl.InstID, ddl.ID, ddl.ParentID)
		if err == nil && ok && t.Parent != "" {
			ok, err = c.hasCols(ctx, t.Parent, ddl.InstID, ddl.ID)
		}
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		quoted := func(table, name string) string { q, _ := c.col(ctx, table, name); return q }
		for _, chk := range TableChecks(t, instMark, c.qualified, quoted) {
			if proven != nil && proven(chk.Kind, t.Name) {
				continue
			}
			if c.db.d.Facts().GroupsByIndex {
				chk.Probe = ""
			}
			f, err := c.runCheck(ctx, inst, chk)
			if err != nil {
				return nil, err
			}
			out = append(out, f...)
		}
	}
	return out, nil
}

// instMark stands for the INST_ID in the TableChecks that runCheck runs; it
// becomes one placeholder per occurrence (bindInst).
const instMark = "\x00inst\x00"

// bindInst replaces each instMark in query with a placeholder of its own,
// numbered from 1, and returns the query and its arguments, inst for each.
func (c *Catalog) bindInst(query string, inst int64) (string, []any) {
	parts := strings.Split(query, instMark)
	var b strings.Builder
	args := make([]any, 0, len(parts)-1)
	for i, p := range parts {
		if i > 0 {
			args = append(args, inst)
			b.WriteString(c.db.d.Placeholder(len(args)))
		}
		b.WriteString(p)
	}
	return b.String(), args
}

// runCheck runs one TableCheck of result set inst.
func (c *Catalog) runCheck(ctx context.Context, inst int64, chk TableCheck) ([]Finding, error) {
	if chk.Probe != "" {
		var n sql.NullInt64
		probe, args := c.bindInst(chk.Probe, inst)
		if err := c.q.QueryRowContext(ctx, probe, args...).Scan(&n); err != nil {
			return nil, fmt.Errorf("check %s: %w", chk.Table.Name, err)
		}
		if n.Int64 == 0 {
			return nil, nil
		}
	}
	query, args := c.bindInst(chk.Query+" ORDER BY 1", inst)
	rows, err := c.q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("check %s: %w", chk.Table.Name, err)
	}
	defer rows.Close()
	var n int64
	var ids []int64
	for rows.Next() {
		var id, value sql.NullInt64
		if err := rows.Scan(&id, &value); err != nil {
			return nil, fmt.Errorf("check %s: %w", chk.Table.Name, err)
		}
		n++
		if len(ids) < MaxFindingIDs && id.Valid {
			ids = append(ids, id.Int64)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("check %s: %w", chk.Table.Name, err)
	}
	if n == 0 {
		return nil, nil
	}
	return []Finding{{InstID: inst, Table: chk.Table.Name, Message: chk.Kind.Problem(chk.Table, int(n)) + ": " + idList(ids, n), IDs: ids}}, nil
}

package store

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
	"strings"

	"github.com/profdb/profdb/ddl"
	"github.com/profdb/profdb/profilers"
	"github.com/profdb/profdb/resultset"
)

// Filter chooses result sets by what profdb recorded of them. The zero
// Filter chooses every result set. Fields combine with AND.
type Filter struct {
	Profiler string            // a registered profiler's name
	Branch   string            // the exact branch name
	Commit   string            // a prefix of the commit's object name (matched case-insensitively)
	Labels   map[string]string // every label given, with exactly that value
	Since    string            // exported at or after this time (TimeFormat)
	Before   int64             // INST_IDs below this one only; 0 for no bound
	Last     int               // at most this many, the newest; 0 for all
}

// Select returns the result sets f chooses, oldest first (by INST_ID,
// which profdb allocates in the order it writes result sets), without row
// counts, with their identity (Listing.Run) where profdb recorded one. It
// reads profdb's own tables by their keys and INSTANCES by INST_ID; a
// database without PROFDB_RESULT_SETS (one AQTime wrote) is listed from
// INSTANCES and RELATIONS, and only a Filter on the profiler, the time
// bound, Before and Last can match there.
func (db *DB) Select(ctx context.Context, f Filter) ([]Listing, error) {
	var out []Listing
	err := db.inCatalog(ctx, allSets, func(c *Catalog) error {
		var err error
		out, err = c.Select(ctx, f)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("select result sets: %w", err)
	}
	return out, nil
}

// Select is DB.Select through the catalogue's querier.
func (c *Catalog) Select(ctx context.Context, f Filter) ([]Listing, error) {
	if !c.Has(profilers.InstancesTable) {
		return nil, nil
	}
	if !c.Has(profilers.ResultSetsTable) {
		return c.selectUnrecorded(ctx, f)
	}
	led := profilers.ResultSetsTable
	base, err := c.mustCols(ctx, led, ddl.InstID, profilers.ColExportedAt, profilers.ColHost, profilers.ColInput, profilers.ColVersion, profilers.ColDeletedAt)
	if err != nil {
		return nil, err
	}
	identity, err := c.hasCols(ctx, led, profilers.IdentityColumns...)
	if err != nil {
		return nil, err
	}
	if !identity && (f.Branch != "" || f.Commit != "" || len(f.Labels) > 0) {
		return nil, nil // nothing recorded a branch, a commit or a label here
	}
	inst, err := c.mustCols(ctx, profilers.InstancesTable, ddl.InstID, "CAPTION")
	if err != nil {
		return nil, err
	}
	cols := []string{"l." + base[0], "l." + base[1], "l." + base[2], "l." + base[3], "l." + base[4], "i." + inst[1]}
	var id []string
	if identity {
		if id, err = c.mustCols(ctx, led, profilers.IdentityColumns...); err != nil {
			return nil, err
		}
		for _, q := range id {
			cols = append(cols, "l."+q)
		}
	}
	ph := c.db.d.Placeholder
	var where []string
	var args []any
	arg := func(v any) string { args = append(args, v); return ph(len(args)) }
	where = append(where, "l."+base[5]+" IS NULL")
	if identity {
		if f.Branch != "" {
			where = append(where, "l."+id[2]+" = "+arg(f.Branch))
		}
		if f.Commit != "" {
			// Object names are stored in lower-case hexadecimal: a prefix
			// is a range, which the comparison serves in every collation.
			p := strings.ToLower(f.Commit)
			if strings.Trim(p, "0123456789abcdef") != "" {
				return nil, fmt.Errorf("commit %q: not a hexadecimal object name", f.Commit)
			}
			where = append(where, "l."+id[1]+" >= "+arg(p), "l."+id[1]+" < "+arg(p+"g"))
		}
	}
	if f.Since != "" {
		where = append(where, "l."+base[1]+" >= "+arg(f.Since))
	}
	if f.Before > 0 {
		where = append(where, "l."+base[0]+" < "+arg(f.Before))
	}
	if len(f.Labels) > 0 {
		if !c.Has(profilers.LabelsTable) {
			return nil, nil
		}
		lc, err := c.mustCols(ctx, profilers.LabelsTable, ddl.InstID, profilers.ColLabelKey, profilers.ColLabelValue)
		if err != nil {
			return nil, err
		}
		keys := make([]string, 0, len(f.Labels))
		for k := range f.Labels {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			where = append(where, fmt.Sprintf("EXISTS (SELECT 1 FROM %s b WHERE b.%s = l.%s AND b.%s = %s AND b.%s = %s)",
				c.qualified(profilers.LabelsTable), lc[0], base[0], lc[1], arg(k), lc[2], arg(f.Labels[k])))
		}
	}
	q := fmt.Sprintf("SELECT %s FROM %s l JOIN %s i ON i.%s = l.%s WHERE %s ORDER BY l.%s DESC",
		strings.Join(cols, ", "), c.qualified(led), c.qualified(profilers.InstancesTable), inst[0], base[0],
		strings.Join(where, " AND "), base[0])
	rows, err := c.q.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", led, err)
	}
	defer rows.Close()
	var out []Listing
	var unknown []int // listings whose profiler the ledger does not name
	for rows.Next() {
		var l Listing
		var when, host, input, version, caption sql.NullString
		var prof, commit, branch, ci, build, url sql.NullString
		var dirty sql.NullInt64
		dest := []any{&l.InstID, &when, &host, &input, &version, &caption}
		if identity {
			dest = append(dest, &prof, &commit, &branch, &dirty, &ci, &build, &url)
		}
		if err := rows.Scan(dest...); err != nil {
			return nil, fmt.Errorf("read %s: %w", led, err)
		}
		l.ExportedAt, l.Host, l.Input, l.Version, l.Caption = when.String, host.String, input.String, version.String, caption.String
		l.Tables = map[string]int64{}
		l.Profiler = prof.String
		if commit.Valid || branch.Valid || dirty.Valid || ci.Valid || build.Valid || url.Valid {
			l.Run = &resultset.Run{Commit: commit.String, Branch: branch.String, CI: ci.String, BuildID: build.String, BuildURL: url.String}
			if dirty.Valid {
				d := dirty.Int64 != 0
				l.Run.Dirty = &d
			}
		}
		if f.Profiler != "" && l.Profiler != "" && l.Profiler != f.Profiler {
			continue
		}
		if l.Profiler == "" {
			unknown = append(unknown, len(out))
		}
		out = append(out, l)
		if f.Last > 0 && f.Profiler == "" && len(out) == f.Last {
			break
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", led, err)
	}
	rows.Close()
	if len(unknown) > 0 {
		// Written by a profdb that did not record the profiler: RELATIONS
		// tells it.
		for _, i := range unknown {
			id := out[i].InstID
			rels, err := c.relations(ctx, []int64{id})
			if err != nil {
				return nil, err
			}
			if def, ok := profilerOf(rels[id]); ok {
				out[i].Profiler = def.Name
			}
		}
		if f.Profiler != "" {
			kept := out[:0]
			for _, l := range out {
				if l.Profiler == f.Profiler {
					kept = append(kept, l)
				}
			}
			out = kept
		}
	}
	if f.Last > 0 && len(out) > f.Last {
		out = out[:f.Last]
	}
	if err := c.labels(ctx, out); err != nil {
		return nil, err
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out, nil
}

// selectUnrecorded is Select on a database without PROFDB_RESULT_SETS.
func (c *Catalog) selectUnrecorded(ctx context.Context, f Filter) ([]Listing, error) {
	if f.Branch != "" || f.Commit != "" || len(f.Labels) > 0 || f.Since != "" {
		return nil, nil
	}
	all, err := c.list(ctx, false, nil)
	if err != nil {
		return nil, err
	}
	var out []Listing
	for _, l := range all {
		if (f.Profiler == "" || l.Profiler == f.Profiler) && (f.Before == 0 || l.InstID < f.Before) {
			out = append(out, l)
		}
	}
	if f.Last > 0 && len(out) > f.Last {
		out = out[len(out)-f.Last:]
	}
	return out, nil
}

// labels fills in the labels of the listed result sets, one lookup by
// INST_ID each, when the database has PROFDB_LABELS.
func (c *Catalog) labels(ctx context.Context, out []Listing) error {
	if !c.Has(profilers.LabelsTable) || len(out) == 0 {
		return nil
	}
	lc, err := c.mustCols(ctx, profilers.LabelsTable, ddl.InstID, profilers.ColLabelKey, profilers.ColLabelValue)
	if err != nil {
		return err
	}
	q := fmt.Sprintf("SELECT %s, %s FROM %s WHERE %s = %s", lc[1], lc[2], c.qualified(profilers.LabelsTable), lc[0], c.db.d.Placeholder(1))
	for i := range out {
		rows, err := c.q.QueryContext(ctx, q, out[i].InstID)
		if err != nil {
			return fmt.Errorf("read %s: %w", profilers.LabelsTable, err)
		}
		for rows.Next() {
			var k, v sql.NullString
			if err := rows.Scan(&k, &v); err != nil {
				rows.Close()
				return fmt.Errorf("read %s: %w", profilers.LabelsTable, err)
			}
			if out[i].Run == nil {
				out[i].Run = &resultset.Run{}
			}
			if out[i].Run.Labels == nil {
				out[i].Run.Labels = map[string]string{}
			}
			out[i].Run.Labels[k.String] = v.String
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return fmt.Errorf("read %s: %w", profilers.LabelsTable, err)
		}
	}
	return nil
}

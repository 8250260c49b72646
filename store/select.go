package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/profdb/profdb/ddl"
	"github.com/profdb/profdb/dialects"
	"github.com/profdb/profdb/internal/runid"
	"github.com/profdb/profdb/profilers"
)

// Filter chooses result sets by what profdb recorded of them. The zero
// Filter chooses every result set. Fields combine with AND.
type Filter struct {
	Profiler string            // a registered profiler's name
	Branch   string            // the exact branch name
	Commit   string            // a prefix of the commit's object name: 7 or more hexadecimal digits, in either case (runid.ParseCommitPrefix's rule; another is an error)
	Labels   map[string]string // every label given, with exactly that value
	Since    string            // exported at or after this time (TimeFormat)
	// Caption is text the caption must contain, compared case-blind as
	// far as the database's LOWER folds case (every letter on PostgreSQL,
	// MySQL/MariaDB and SQL Server; A to Z on SQLite); "" for any.
	Caption string
	Before  int64 // INST_IDs below this one only; 0 for no bound
	InstID  int64 // this INST_ID only; 0 for any
	Last    int   // at most this many, the newest; 0 for all
	// Counted asks for the row counts (Listing.Rows and Tables) of the
	// result sets returned, and of those only.
	Counted bool
}

// Narrows reports whether f sets one of the fields that list's and
// trend's filter flags set (FilterText): list lists every result set
// otherwise, counted as List counts them.
func (f Filter) Narrows() bool {
	return f.Profiler != "" || f.Branch != "" || f.Commit != "" || len(f.Labels) > 0 || f.Since != "" || f.Caption != "" || f.Last > 0
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
	reach := allSets
	if f.InstID > 0 {
		reach = fewSets // one result set, by its key
	}
	err := db.inCatalog(ctx, reach, func(c *Catalog) error {
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
	if err := c.inspect(ctx, led, profilers.InstancesTable, profilers.LabelsTable); err != nil {
		return nil, err
	}
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
	counter, err := c.counterCols(ctx)
	if err != nil {
		return nil, err
	}
	for _, q := range counter {
		cols = append(cols, "i."+q)
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
			p, err := runid.ParseCommitPrefix(f.Commit)
			if err != nil {
				return nil, fmt.Errorf("commit prefix %w", err)
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
	if f.Caption != "" {
		where = append(where, captionMatch("i."+inst[1], arg(f.Caption)))
	}
	if f.InstID > 0 {
		where = append(where, "l."+base[0]+" = "+arg(f.InstID))
	}
	if identity && f.Profiler != "" {
		// A row that names no profiler was written before profdb recorded
		// it: RELATIONS tells it, below.
		where = append(where, "(l."+id[0]+" = "+arg(f.Profiler)+" OR l."+id[0]+" IS NULL)")
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
	// With a count, the newest Last rows are asked for where the dialect
	// can cap them (dialects.RowLimiter), rather than every row read off
	// the wire; when rows whose profiler the ledger does not name leave
	// fewer than Last of f.Profiler among them, all are read.
	limit := 0
	if lim, ok := c.db.d.(dialects.RowLimiter); ok && f.Last > 0 {
		limit = f.Last
		out, unknown, enough, err := c.selectRows(ctx, lim.Limit(q, limit), args, f, identity, counter != nil, limit)
		if err != nil || enough {
			return c.selected(ctx, f, out, unknown, err)
		}
	}
	out, unknown, _, err := c.selectRows(ctx, q, args, f, identity, counter != nil, 0)
	return c.selected(ctx, f, out, unknown, err)
}

// selectRows runs Select's query q and reads its rows, newest first, until
// Last of f's are surely read. unknown are the listings whose profiler the
// ledger does not name. enough is false when the query, capped at limit
// rows (0: not capped), returned that many without Last of f's among them.
func (c *Catalog) selectRows(ctx context.Context, q string, args []any, f Filter, identity, counter bool, limit int) (out []Listing, unknown []int, enough bool, err error) {
	led := profilers.ResultSetsTable
	rows, err := c.q.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, nil, false, fmt.Errorf("read %s: %w", led, err)
	}
	defer rows.Close()
	known := 0 // listings of f.Profiler by the ledger's word
	read := 0
	for rows.Next() {
		read++
		var l Listing
		var when, host, input, version, caption, prof sql.NullString
		var id runColumns
		var cname, cdesc sql.NullString
		var freq any
		dest := []any{&l.InstID, &when, &host, &input, &version, &caption}
		if identity {
			dest = append(append(dest, &prof), id.dest()...)
		}
		if counter {
			dest = append(dest, &cname, &cdesc, &freq)
		}
		if err := rows.Scan(dest...); err != nil {
			return nil, nil, false, fmt.Errorf("read %s: %w", led, err)
		}
		if l.Counter, err = counterOf(l.InstID, cname, cdesc, freq); err != nil {
			return nil, nil, false, err
		}
		l.ExportedAt, l.Host, l.Input, l.Version, l.Caption = when.String, host.String, input.String, version.String, caption.String
		l.Tables = map[string]int64{}
		l.Profiler = prof.String
		l.Run = id.run()
		if f.Profiler != "" && l.Profiler != "" && l.Profiler != f.Profiler {
			continue
		}
		if l.Profiler == "" {
			unknown = append(unknown, len(out))
		} else {
			known++
		}
		out = append(out, l)
		// Newest first: once Last result sets are surely of the profiler,
		// no older one can be among the newest Last.
		if f.Last > 0 && (f.Profiler == "" && len(out) == f.Last || known == f.Last) {
			return out, unknown, true, nil
		}
	}
	if err := rows.Err(); err != nil {
		return nil, nil, false, fmt.Errorf("read %s: %w", led, err)
	}
	return out, unknown, limit == 0 || read < limit, nil
}

// selected completes Select's listings out: the profiler of those the
// ledger does not name (unknown), from RELATIONS, the count, the labels
// and the row counts, oldest first.
func (c *Catalog) selected(ctx context.Context, f Filter, out []Listing, unknown []int, err error) ([]Listing, error) {
	if err != nil {
		return nil, err
	}
	if len(unknown) > 0 {
		// Written by a profdb that did not record the profiler: RELATIONS
		// tells it, read in one query (by INST_ID unless they are many).
		ids := make([]int64, len(unknown))
		for j, i := range unknown {
			ids[j] = out[i].InstID
		}
		rels, err := c.relations(ctx, ids)
		if err != nil {
			return nil, err
		}
		for _, i := range unknown {
			if def, ok := profilerOf(rels[out[i].InstID]); ok {
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
	if f.Counted {
		if err := c.count(ctx, out); err != nil {
			return nil, err
		}
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
	var only []int64
	if f.InstID > 0 {
		only = []int64{f.InstID}
	}
	all, err := c.list(ctx, false, only)
	var nrs *NoResultSetError
	if errors.As(err, &nrs) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []Listing
	for _, l := range all {
		if (f.Profiler == "" || l.Profiler == f.Profiler) && (f.Before == 0 || l.InstID < f.Before) && captionHas(l.Caption, f.Caption) {
			out = append(out, l)
		}
	}
	if f.Last > 0 && len(out) > f.Last {
		out = out[len(out)-f.Last:]
	}
	if f.Counted {
		if err := c.count(ctx, out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// countEach is the most result sets whose rows count reads one by one (a
// query each, by INST_ID, single-shard on Citus); more are counted in one
// pass over the table, as List counts.
const countEach = 64

// count fills in the row counts of the listed result sets, reading each
// profiler table by INST_ID for those result sets only.
func (c *Catalog) count(ctx context.Context, out []Listing) error {
	byTable := map[string][]int64{}
	for _, l := range out {
		def, err := profilers.Lookup(l.Profiler)
		if err != nil {
			continue
		}
		for _, t := range def.Tables {
			if c.Has(t.Name) {
				byTable[t.Name] = append(byTable[t.Name], l.InstID)
			}
		}
	}
	tables := make([]string, 0, len(byTable))
	for t := range byTable {
		tables = append(tables, t)
	}
	if err := c.inspect(ctx, tables...); err != nil {
		return err
	}
	// On a server that spreads tables over nodes (Citus), a count by one
	// INST_ID runs on the one node holding it; elsewhere one query per
	// table counts them all.
	oneByOne := false
	if d, ok := c.db.d.(dialects.Distributor); ok && len(byTable) > 0 {
		var err error
		if oneByOne, err = d.Distributes(ctx, c.q); err != nil {
			return err
		}
	}
	counts := map[string]map[int64]int64{}
	for t, ids := range byTable {
		var m map[int64]int64
		var err error
		switch {
		case len(ids) > countEach:
			m, err = c.countByInst(ctx, t, nil) // one GROUP BY of the table costs less than this many counts
		case oneByOne:
			m, err = c.countByInst(ctx, t, ids)
		default:
			m, err = c.countIn(ctx, t, ids)
		}
		if err != nil {
			return err
		}
		counts[t] = m
	}
	for i := range out {
		if out[i].Tables == nil {
			out[i].Tables = map[string]int64{}
		}
		def, err := profilers.Lookup(out[i].Profiler)
		if err != nil {
			continue
		}
		for _, t := range def.Tables {
			if m, ok := counts[t.Name]; ok {
				out[i].Tables[t.Name] = m[out[i].InstID]
				out[i].Rows += m[out[i].InstID]
			}
		}
	}
	return nil
}

// countIn counts the rows of table of each of ids (at most countEach) in
// one query.
func (c *Catalog) countIn(ctx context.Context, table string, ids []int64) (map[int64]int64, error) {
	inst, err := c.col(ctx, table, ddl.InstID)
	if err != nil {
		return nil, err
	}
	marks := make([]string, len(ids))
	args := make([]any, len(ids))
	for i, id := range ids {
		marks[i], args[i] = c.db.d.Placeholder(i+1), id
	}
	rows, err := c.q.QueryContext(ctx, fmt.Sprintf("SELECT %s, COUNT(*) FROM %s WHERE %s IN (%s) GROUP BY %s",
		inst, c.qualified(table), inst, strings.Join(marks, ", "), inst), args...)
	if err != nil {
		return nil, fmt.Errorf("count rows of %s: %w", table, err)
	}
	defer rows.Close()
	m := make(map[int64]int64, len(ids))
	for rows.Next() {
		var id, n int64
		if err := rows.Scan(&id, &n); err != nil {
			return nil, fmt.Errorf("count rows of %s: %w", table, err)
		}
		m[id] = n
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("count rows of %s: %w", table, err)
	}
	return m, nil
}

// inspect reads the columns of those of tables (documented names) the
// database has and the catalogue has not read yet, in one query where the
// dialect can (dialects.TablesInspector); others are read on first use.
func (c *Catalog) inspect(ctx context.Context, tables ...string) error {
	ti, ok := c.db.d.(dialects.TablesInspector)
	if !ok {
		return nil
	}
	var real, docs []string
	for _, t := range tables {
		key := strings.ToUpper(t)
		if _, done := c.cols[key]; done || !c.Has(t) || c.db.kept.has(c.tables[key]) {
			continue
		}
		real, docs = append(real, c.tables[key]), append(docs, key)
	}
	if len(real) < 2 {
		return nil
	}
	m, err := ti.ColumnsOf(ctx, c.q, c.db.opts.Schema, real)
	if err != nil {
		return fmt.Errorf("inspect tables: %w", err)
	}
	for i, key := range docs {
		cols := map[string]string{}
		for _, ci := range m[real[i]] {
			cols[strings.ToUpper(ci.Name)] = ci.Name
		}
		c.setCols(key, cols)
	}
	return nil
}

// Commits returns the commits recorded for the result sets the database
// holds, of the profiler named (or of any when it is ""; a result set
// whose row names no profiler counts as any profiler's), in one query of
// PROFDB_RESULT_SETS. A database without identity columns records none.
func (db *DB) Commits(ctx context.Context, profiler string) (map[string]bool, error) {
	var out map[string]bool
	err := db.inSnapshot(ctx, allSets, func(s *snapshot) error {
		c, err := db.Catalog(ctx, s.q)
		if err != nil {
			return err
		}
		out, err = c.Commits(ctx, profiler)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Commits is DB.Commits through the catalogue's querier.
func (c *Catalog) Commits(ctx context.Context, profiler string) (map[string]bool, error) {
	out := map[string]bool{}
	err := func() error {
		if !c.Has(profilers.ResultSetsTable) {
			return nil
		}
		led := profilers.ResultSetsTable
		identity, err := c.hasCols(ctx, led, profilers.IdentityColumns...)
		if err != nil || !identity {
			return err
		}
		cols, err := c.mustCols(ctx, led, profilers.ColCommit, profilers.ColProfiler, profilers.ColDeletedAt)
		if err != nil {
			return err
		}
		q := fmt.Sprintf("SELECT DISTINCT %s FROM %s WHERE %s IS NULL AND %s IS NOT NULL", cols[0], c.qualified(led), cols[2], cols[0])
		var args []any
		if profiler != "" {
			q += fmt.Sprintf(" AND (%s = %s OR %s IS NULL)", cols[1], c.db.d.Placeholder(1), cols[1])
			args = append(args, profiler)
		}
		rows, err := c.q.QueryContext(ctx, q, args...)
		if err != nil {
			return fmt.Errorf("read %s: %w", led, err)
		}
		defer rows.Close()
		for rows.Next() {
			var commit string
			if err := rows.Scan(&commit); err != nil {
				return fmt.Errorf("read %s: %w", led, err)
			}
			out[strings.ToLower(commit)] = true
		}
		if err := rows.Err(); err != nil {
			return fmt.Errorf("read %s: %w", led, err)
		}
		return nil
	}()
	if err != nil {
		return nil, fmt.Errorf("recorded commits: %w", err)
	}
	return out, nil
}

// labelBatch is how many INST_IDs one read of PROFDB_LABELS names.
const labelBatch = 200

// labels fills in the labels of the listed result sets, reading
// PROFDB_LABELS by INST_ID (labelBatch of them a query), when the database
// has that table.
func (c *Catalog) labels(ctx context.Context, out []Listing) error {
	return c.labelsOf(ctx, out, false)
}

// labelsOf is labels; every says that out lists every result set of the
// database, whose labels are then read in one pass over PROFDB_LABELS
// rather than by INST_ID in batches.
func (c *Catalog) labelsOf(ctx context.Context, out []Listing, every bool) error {
	if !c.Has(profilers.LabelsTable) || len(out) == 0 {
		return nil
	}
	lc, err := c.mustCols(ctx, profilers.LabelsTable, ddl.InstID, profilers.ColLabelKey, profilers.ColLabelValue)
	if err != nil {
		return err
	}
	at := make(map[int64]int, len(out))
	for i, l := range out {
		at[l.InstID] = i
	}
	if every {
		q := fmt.Sprintf("SELECT %s, %s, %s FROM %s", lc[0], lc[1], lc[2], c.qualified(profilers.LabelsTable))
		return c.readLabels(ctx, q, nil, out, at)
	}
	for from := 0; from < len(out); from += labelBatch {
		batch := out[from:min(from+labelBatch, len(out))]
		marks := make([]string, len(batch))
		args := make([]any, len(batch))
		for i, l := range batch {
			marks[i] = c.db.d.Placeholder(i + 1)
			args[i] = l.InstID
		}
		q := fmt.Sprintf("SELECT %s, %s, %s FROM %s WHERE %s IN (%s)", lc[0], lc[1], lc[2],
			c.qualified(profilers.LabelsTable), lc[0], strings.Join(marks, ", "))
		if err := c.readLabels(ctx, q, args, out, at); err != nil {
			return err
		}
	}
	return nil
}

// readLabels runs q, a read of PROFDB_LABELS, and files each label under
// its result set in out (at: index by INST_ID).
func (c *Catalog) readLabels(ctx context.Context, q string, args []any, out []Listing, at map[int64]int) error {
	rows, err := c.q.QueryContext(ctx, q, args...)
	if err != nil {
		return fmt.Errorf("read %s: %w", profilers.LabelsTable, err)
	}
	defer rows.Close()
	for rows.Next() {
		var inst int64
		var k, v sql.NullString
		if err := rows.Scan(&inst, &k, &v); err != nil {
			return fmt.Errorf("read %s: %w", profilers.LabelsTable, err)
		}
		i, ok := at[inst]
		if !ok {
			continue
		}
		run := out[i].run()
		if run.Labels == nil {
			run.Labels = map[string]string{}
		}
		run.Labels[k.String] = v.String
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read %s: %w", profilers.LabelsTable, err)
	}
	return nil
}

// captionMatch is the condition that the column col contains the text of
// param (a bound parameter), case-blind as far as the database's LOWER
// folds case: both are lower-cased by it, so that text in the caption's
// own case matches wherever LOWER stops. It asks whether removing the
// text changes the caption, with REPLACE, which every dialect has and
// which knows no wildcard: no character of the text is special (LIKE's
// escapes differ between the dialects, and Babelfish ignores an escaped
// '['). On SQL Server, whose comparison pads with spaces, text that ends
// a caption in spaces alone is not found.
func captionMatch(col, param string) string {
	return "REPLACE(LOWER(" + col + "), LOWER(" + param + "), '') <> LOWER(" + col + ")"
}

// captionHas is captionMatch in Go, for captions read from INSTANCES
// alone (a database without the ledger), with Go's case folding.
func captionHas(caption, text string) bool {
	return text == "" || strings.Contains(strings.ToLower(caption), strings.ToLower(text))
}

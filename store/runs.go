package store

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/profdb/profdb/ddl"
	"github.com/profdb/profdb/profilers"
	"github.com/profdb/profdb/resultset"
)

// Runs returns the identity profdb recorded of each result set ids names
// (docs/layout.md, "A run's identity"), by INST_ID: commit, branch, dirty
// flag, CI and build from PROFDB_RESULT_SETS, the labels from
// PROFDB_LABELS (as Select reads them) and, for a result set merge wrote,
// the INST_IDs it combined from PROFDB_MERGE_SOURCES (Run.MergedFrom,
// ascending). Each table is read by INST_ID, one query each: what show,
// compare and report print of a result set costs three small reads,
// whatever the database holds. A result set with nothing recorded (one
// AQTime or an earlier profdb wrote, an export with --no-identity and no
// flags) has no entry.
func (c *Catalog) Runs(ctx context.Context, ids ...int64) (map[int64]*resultset.Run, error) {
	if len(ids) == 0 || !c.Has(profilers.ResultSetsTable) {
		return nil, nil
	}
	out, err := c.identities(ctx, ids)
	if err != nil {
		return nil, err
	}
	if err := c.labels(ctx, out); err != nil {
		return nil, err
	}
	if err := c.mergeSources(ctx, out); err != nil {
		return nil, err
	}
	runs := map[int64]*resultset.Run{}
	for _, l := range out {
		if l.Run != nil {
			runs[l.InstID] = l.Run
		}
	}
	return runs, nil
}

// identities lists the result sets of ids that PROFDB_RESULT_SETS records
// (not deleted), with the identity its columns hold: every one of ids,
// without, where the table has no identity columns (an earlier profdb's).
func (c *Catalog) identities(ctx context.Context, ids []int64) ([]Listing, error) {
	led := profilers.ResultSetsTable
	has, err := c.hasCols(ctx, led, profilers.IdentityColumns...)
	if err != nil {
		return nil, err
	}
	if !has {
		out := make([]Listing, len(ids))
		for i, id := range ids {
			out[i].InstID = id
		}
		return out, nil
	}
	cols, err := c.mustCols(ctx, led, ddl.InstID, profilers.ColCommit, profilers.ColBranch, profilers.ColDirty,
		profilers.ColCI, profilers.ColBuildID, profilers.ColBuildURL, profilers.ColDeletedAt)
	if err != nil {
		return nil, err
	}
	want := make(map[int64]bool, len(ids))
	for _, id := range ids {
		want[id] = true
	}
	where, args := c.whereInsts(cols[0], ids)
	if where == "" {
		where = " WHERE "
	} else {
		where += " AND "
	}
	q := fmt.Sprintf("SELECT %s, %s, %s, %s, %s, %s, %s FROM %s%s%s IS NULL", cols[0], cols[1], cols[2], cols[3], cols[4],
		cols[5], cols[6], c.qualified(led), where, cols[7])
	rows, err := c.q.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", led, err)
	}
	defer rows.Close()
	var out []Listing
	for rows.Next() {
		var id runColumns
		var inst int64
		if err := rows.Scan(append([]any{&inst}, id.dest()...)...); err != nil {
			return nil, fmt.Errorf("read %s: %w", led, err)
		}
		if want[inst] {
			out = append(out, Listing{InstID: inst, Run: id.run()})
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", led, err)
	}
	return out, nil
}

// runColumns are the identity columns of a PROFDB_RESULT_SETS row as
// scanned: VCS_COMMIT, VCS_BRANCH, VCS_DIRTY, CI_PROVIDER, BUILD_ID,
// BUILD_URL, in that order.
type runColumns struct {
	commit, branch sql.NullString
	dirty          sql.NullInt64
	ci, build, url sql.NullString
}

// dest are the scan destinations of the columns, in order.
func (r *runColumns) dest() []any {
	return []any{&r.commit, &r.branch, &r.dirty, &r.ci, &r.build, &r.url}
}

// run is the identity the columns hold, nil when all are NULL.
func (r *runColumns) run() *resultset.Run {
	if !r.commit.Valid && !r.branch.Valid && !r.dirty.Valid && !r.ci.Valid && !r.build.Valid && !r.url.Valid {
		return nil
	}
	run := &resultset.Run{Commit: r.commit.String, Branch: r.branch.String, CI: r.ci.String, BuildID: r.build.String, BuildURL: r.url.String}
	if r.dirty.Valid {
		d := r.dirty.Int64 != 0
		run.Dirty = &d
	}
	return run
}

// mergeSources fills in the INST_IDs each listed result set's merge
// combined (Run.MergedFrom, ascending), reading PROFDB_MERGE_SOURCES by
// INST_ID when the database has that table.
func (c *Catalog) mergeSources(ctx context.Context, out []Listing) error {
	if !c.Has(profilers.MergeSourcesTable) || len(out) == 0 {
		return nil
	}
	mc, err := c.mustCols(ctx, profilers.MergeSourcesTable, ddl.InstID, profilers.ColSourceInstID)
	if err != nil {
		return err
	}
	at := make(map[int64]int, len(out))
	ids := make([]int64, len(out))
	for i, l := range out {
		at[l.InstID], ids[i] = i, l.InstID
	}
	where, args := c.whereInsts(mc[0], ids)
	q := fmt.Sprintf("SELECT %s, %s FROM %s%s ORDER BY %s, %s", mc[0], mc[1], c.qualified(profilers.MergeSourcesTable), where, mc[0], mc[1])
	rows, err := c.q.QueryContext(ctx, q, args...)
	if err != nil {
		return fmt.Errorf("read %s: %w", profilers.MergeSourcesTable, err)
	}
	defer rows.Close()
	for rows.Next() {
		var inst, src int64
		if err := rows.Scan(&inst, &src); err != nil {
			return fmt.Errorf("read %s: %w", profilers.MergeSourcesTable, err)
		}
		i, ok := at[inst]
		if !ok {
			continue
		}
		run := out[i].run()
		run.MergedFrom = append(run.MergedFrom, src)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read %s: %w", profilers.MergeSourcesTable, err)
	}
	return nil
}

// run is the listing's Run, made empty when it has none, for what is read
// of it from PROFDB_LABELS and PROFDB_MERGE_SOURCES.
func (l *Listing) run() *resultset.Run {
	if l.Run == nil {
		l.Run = &resultset.Run{}
	}
	return l.Run
}

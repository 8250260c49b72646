package postgres

import (
	"context"
	"fmt"

	"github.com/profdb/profdb/dialects"
)

// PostgreSQL plans each statement from the statistics ANALYZE gathered
// last. When a table has grown many times since (autovacuum off, behind,
// or not yet awake), a statement about one result set may be planned for
// millions of rows: a sequential scan of the whole table, parallel workers,
// JIT compilation, whose cost grows with the database instead of the
// result set. profdb keeps such plans off in two ways (docs/performance.md,
// "Plans and statistics"): the transactions that work on a few result sets
// are planned with FewSetsSettings, and an export refreshes the statistics
// of the tables it grew where autovacuum's own rule says they are stale
// (RefreshStats).

var (
	_ dialects.FewSetsPlanner = Dialect{}
	_ dialects.StatsRefresher = Dialect{}
)

// fewSetsSettings sets, for the transaction (set_config's third argument),
// enable_seqscan off, so that a table is scanned whole only where no index
// serves the statement (every profiler table has one on INST_ID; off adds
// a penalty to a sequential scan's cost rather than forbidding it);
// enable_nestloop off, so that two tables of one result set are joined by
// hash or merge, in time linear in the set's rows, and not by a nested
// loop that reads the inner side again for each outer row, which the
// planner picks when stale statistics say each side has a row (a set new
// since the last ANALYZE: 687 routines × 2,152 lines compared, 1–4 s for a
// show); and parallel workers and JIT compilation off, which a statement
// about one result set never repays. Settings the server does not know (jit before
// PostgreSQL 11) are left out. It answers each setting's name and value
// (two columns: a single 0 would tell dialects.ExecAll that it was
// refused).
const fewSetsSettings = `SELECT s.name, pg_catalog.set_config(s.name, s.value, true)
FROM (VALUES ('enable_seqscan', 'off'), ('enable_nestloop', 'off'), ('max_parallel_workers_per_gather', '0'), ('jit', 'off')) AS s (name, value)
WHERE s.name IN (SELECT name FROM pg_catalog.pg_settings)`

// FewSetsSettings returns the statement that plans the rest of a
// transaction for statements that select rows by INST_ID: no sequential
// scan where an index serves, no nested loop where a hash or merge join
// serves, no parallel workers, no JIT. The settings end
// with the transaction, so a connection pool in transaction mode
// (PgBouncer) hands none of them on. It implements
// dialects.FewSetsPlanner.
//
// On Citus they apply to the coordinator's plans; each worker plans the
// statements it runs on its shards with its own settings and statistics
// (docs/clusters.md).
func (Dialect) FewSetsSettings() []string { return []string{fewSetsSettings} }

// staleStats answers, for the table $1 (a qualified name) after an export
// wrote $2 rows into it: whether its statistics are stale by autovacuum's
// rule, with the server's autovacuum_analyze_threshold and
// autovacuum_analyze_scale_factor (never analysed, or changed in more rows
// than the threshold plus the scale factor times the rows it held when last
// analysed; the export's own rows are added, as the server may not have
// counted them yet); whether the login may ANALYZE it (a member of its
// owner's role, or a superuser); whether the server knows ANALYZE's
// SKIP_LOCKED (PostgreSQL 12); and whether the database has Citus.
const staleStats = `SELECT c.reltuples < 0
    OR COALESCE(s.n_mod_since_analyze, 0) + $2 >
       current_setting('autovacuum_analyze_threshold')::float8
       + current_setting('autovacuum_analyze_scale_factor')::float8 * GREATEST(c.reltuples, 0),
  pg_catalog.pg_has_role(c.relowner, 'USAGE'),
  current_setting('server_version_num')::int >= 120000,
  EXISTS (SELECT 1 FROM pg_catalog.pg_extension WHERE extname = 'citus')
FROM pg_catalog.pg_class c LEFT JOIN pg_catalog.pg_stat_all_tables s ON s.relid = c.oid
WHERE c.oid = $1::regclass`

// citusTable asks whether the table $1 is a Citus table (distributed, or
// a reference table).
const citusTable = `SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_dist_partition WHERE logicalrelid = $1::regclass)`

// RefreshStats runs ANALYZE on table, which an export has just written
// written rows into, when its statistics are stale by autovacuum's own rule
// (see staleStats), so that the next command is planned with estimates
// that know those rows, whether autovacuum runs or not. It implements
// dialects.StatsRefresher.
//
// It does nothing for a table the login does not own (ANALYZE is the
// owner's, or a superuser's: an export with a login that may only insert
// leaves the statistics to autovacuum), nor for a Citus table, whose rows
// and statistics are the workers' shards', kept by the workers'
// autovacuum (an ANALYZE on the coordinator would read every shard). From
// PostgreSQL 12 ANALYZE skips a table that another session holds locked
// (a VACUUM, an ANALYZE, an index being built) instead of waiting.
//
// ANALYZE reads a sample of at most 300 × default_statistics_target rows
// (30,000), so it costs about the same on every table over that size:
// 0.3 s for a table of a million CALL_TRACE rows on the machine of
// docs/performance.md. By the rule, a table growing by similar result sets
// is analysed each time it has grown by a tenth.
func (d Dialect) RefreshStats(ctx context.Context, q dialects.DBTX, schema, table string, written int64) (bool, error) {
	name := dialects.Qualify(d, schema, table)
	var stale, owner, skipLocked, citus bool
	if err := q.QueryRowContext(ctx, staleStats, name, written).Scan(&stale, &owner, &skipLocked, &citus); err != nil {
		return false, fmt.Errorf("postgres: statistics of %s: %w", name, err)
	}
	if !stale || !owner {
		return false, nil
	}
	if citus {
		var distributed bool
		if err := q.QueryRowContext(ctx, citusTable, name).Scan(&distributed); err != nil {
			return false, fmt.Errorf("postgres: statistics of %s: %w", name, err)
		}
		if distributed {
			return false, nil
		}
	}
	stmt := "ANALYZE " + name
	if skipLocked {
		stmt = "ANALYZE (SKIP_LOCKED) " + name
	}
	if _, err := q.ExecContext(ctx, stmt); err != nil {
		return false, fmt.Errorf("postgres: %s: %w", stmt, err)
	}
	return true, nil
}

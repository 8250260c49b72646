package postgres

import (
	"context"
	"fmt"
	"strings"

	"github.com/profdb/profdb/ddl"
	"github.com/profdb/profdb/dialects"
)

// Citus shards PostgreSQL: a coordinator routes each query, workers hold
// the shards of the distributed tables, and tables distributed by columns
// of the same type are co-located (docs/clusters.md, "Citus"). profdb's
// data shards by INST_ID: every query profdb runs for a result set names
// its INST_ID, so with the tables laid out as Distribute lays them out,
// each such query runs on one worker, and a result set never spans two.
//
//   - The profiler tables are distributed by INST_ID (hash), all in
//     Citus's default co-location group for bigint columns: the rows of one
//     result set, in every table, live on one worker, and verify's joins of
//     child and parent on INST_ID stay there.
//   - The tables with a primary key, INSTANCES, RELATIONS and
//     PROFDB_RESULT_SETS, are reference tables: a copy on every node. Citus
//     demands that a distributed table's primary key include its
//     distribution column, which RELATIONS' key (ID, unique across result
//     sets) does not; and all three are read across result sets (the
//     largest INST_ID and ID when one is allocated, list), which on a
//     reference table is one task on one node, where on a distributed table
//     it would ask every shard. They are small: one row per result set, or
//     per table of one. Joined with a profiler table on INST_ID, a reference
//     table is read on the worker that holds the result set.

var _ dialects.Distributor = Dialect{}

// Distributes reports whether the server has the citus extension and at
// least one active worker node: a coordinator alone keeps every table
// whole, and distributing there would gain nothing. The first query never
// fails, so a transaction open on q stays usable on a plain server.
func (Dialect) Distributes(ctx context.Context, q dialects.DBTX) (bool, error) {
	var citus bool
	if err := q.QueryRowContext(ctx, citusInstalled).Scan(&citus); err != nil {
		return false, fmt.Errorf("postgres: ask for the citus extension: %w", err)
	}
	if !citus {
		return false, nil
	}
	var workers int64
	if err := q.QueryRowContext(ctx, citusWorkers).Scan(&workers); err != nil {
		return false, fmt.Errorf("postgres: ask Citus for its worker nodes: %w", err)
	}
	return workers > 0, nil
}

// citusInstalled asks whether the database has the citus extension.
const citusInstalled = "SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_extension WHERE extname = 'citus')"

// citusWorkers counts the active worker nodes.
const citusWorkers = "SELECT count(*) FROM pg_catalog.citus_get_active_worker_nodes()"

// Distribute returns the Citus call that spreads t, a table profdb
// created in schema under its stored name: create_reference_table for a
// table with a primary key (INSTANCES, RELATIONS, PROFDB_RESULT_SETS),
// create_distributed_table by INST_ID, co-located with the other profiler
// tables, for the others. With a guard the call is made only as the guard
// says (see guardDistribution).
func (d Dialect) Distribute(schema string, t ddl.Table, guard *dialects.ScriptGuard) []string {
	table := dialects.Qualify(d, schema, d.StoredName(t.Name))
	var call string
	if IsReferenceTable(t) {
		call = ReferenceTableCall(table)
	} else {
		call = DistributedTableCall(table, d.StoredName(ddl.InstID))
	}
	if guard != nil {
		anchor := ""
		if guard.Anchor != t.Name {
			anchor = dialects.Qualify(d, schema, d.StoredName(guard.Anchor))
		}
		call = guardDistribution(table, anchor, call)
	}
	return []string{call}
}

// Distributed reports whether pg_dist_partition lists table: distributed,
// or a reference table.
func (d Dialect) Distributed(ctx context.Context, q dialects.DBTX, schema, table string) (bool, error) {
	var yes bool
	if err := q.QueryRowContext(ctx, "SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_dist_partition WHERE logicalrelid = $1::regclass)",
		dialects.Qualify(d, schema, table)).Scan(&yes); err != nil {
		return false, fmt.Errorf("postgres: ask Citus whether %s is distributed: %w", dialects.Qualify(d, schema, table), err)
	}
	return yes, nil
}

// IsReferenceTable reports whether profdb makes t a reference table on
// Citus (a copy on every node) rather than distributing it by INST_ID: a
// table with a primary key (the shared tables), a small table of profdb's
// own (ddl.Table.Lookup), or one without INST_ID.
func IsReferenceTable(t ddl.Table) bool {
	_, hasInstID := t.Column(ddl.InstID)
	return t.Key != "" || t.Lookup != nil || !hasInstID
}

// DistributedTableCall returns the call that distributes table (quoted
// and qualified) by column (its real name) in Citus's default co-location
// group: SELECT create_distributed_table('"s"."t"', 'inst_id',
// colocate_with => 'default').
func DistributedTableCall(table, column string) string {
	return "SELECT create_distributed_table(" + textLiteral(table) + ", " + textLiteral(column) +
		", colocate_with => 'default')"
}

// ReferenceTableCall returns the call that makes table (quoted and
// qualified) a reference table: SELECT create_reference_table('"s"."t"').
func ReferenceTableCall(table string) string {
	return "SELECT create_reference_table(" + textLiteral(table) + ")"
}

// guardDistribution makes call, a SELECT of a Citus function on table, do
// nothing when table is in pg_dist_partition already (distributed or a
// reference table), when it holds a row, or, unless anchor is "", when the
// anchor table is not in pg_dist_partition; in a DO block so that psql
// prints nothing.
func guardDistribution(table, anchor, call string) string {
	listed := func(t string) string {
		return "EXISTS (SELECT 1 FROM pg_catalog.pg_dist_partition WHERE logicalrelid = pg_catalog.to_regclass(" + textLiteral(t) + "))"
	}
	cond := "NOT " + listed(table) + " AND NOT EXISTS (SELECT 1 FROM " + table + ")"
	if anchor != "" {
		cond += " AND " + listed(anchor)
	}
	body := "BEGIN IF " + cond + " THEN PERFORM " + strings.TrimPrefix(call, "SELECT ") + "; END IF; END"
	const tag = "$profdb_citus$"
	if strings.Contains(body, tag) {
		// Cannot be dollar-quoted with the tag: the same test in SQL.
		return call + " WHERE " + cond
	}
	return "DO " + tag + body + tag
}

// textLiteral quotes s as a string literal (standard_conforming_strings).
func textLiteral(s string) string { return dialects.QuoteWith('\'', '\'', s) }

package sqlserver

import "github.com/profdb/profdb/dialects"

// SQL Server keeps its statistics itself: with AUTO_UPDATE_STATISTICS on
// (the default), a query that finds the statistics of a table stale, by
// the number of rows changed since they were made, has them updated before
// it is compiled. profdb refreshes none (the dialect is no
// dialects.StatsRefresher) and sets nothing on SQL Server.
//
// Babelfish is PostgreSQL underneath: PostgreSQL's planner plans every
// T-SQL statement from the statistics PostgreSQL's ANALYZE gathered, which
// Babelfish's autovacuum (on by default) keeps, but no T-SQL statement can
// ask for (UPDATE STATISTICS is not supported: error 33557097). So on
// Babelfish the transactions that work on a few result sets are planned as
// on PostgreSQL (FewSetsSettings).

var _ dialects.FewSetsPlanner = Dialect{}

// babelfishFewSets sets, on Babelfish only, what the postgres dialect's
// FewSetsSettings sets, for the transaction (set_config's third argument):
// no sequential scan where an index serves, no nested loop where a hash or
// merge join serves, no parallel workers, no JIT. SQL Server answers NULL for the property 'Babelfish' and runs nothing;
// the statement it would not know is compiled only when executed
// (sp_executesql). On Babelfish it answers one row of four columns (a
// single 0 would tell dialects.ExecAll that it was refused).
const babelfishFewSets = "IF CAST(SERVERPROPERTY('Babelfish') AS int) = 1 EXEC sp_executesql " +
	"N'SELECT set_config(''enable_seqscan'', ''off'', true), set_config(''enable_nestloop'', ''off'', true), set_config(''max_parallel_workers_per_gather'', ''0'', true), set_config(''jit'', ''off'', true)'"

// FewSetsSettings returns the statement that, on Babelfish, plans the rest
// of a transaction for statements that select rows by INST_ID, as on
// PostgreSQL; on SQL Server it does nothing. It implements
// dialects.FewSetsPlanner.
func (Dialect) FewSetsSettings() []string { return []string{babelfishFewSets} }

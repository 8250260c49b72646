package main

import (
	"errors"
	"io"
	"slices"
	"strings"
	"unicode"

	"github.com/spf13/cobra"

	"github.com/profdb/profdb/dialects"
	"github.com/profdb/profdb/exporter/sqlscript"
	"github.com/profdb/profdb/profilers"
	"github.com/profdb/profdb/store"
)

// ddlOptions are the flags of "profdb ddl".
type ddlOptions struct {
	dialect   string
	profilers []string
	schema    string
	output    string
	rowKey    bool // --primary-key
	citus     bool // --citus
	upgrade   bool // --upgrade
	dsn       string
	conn      connOptions
}

func newDDLCmd(rep *ledger) *cobra.Command {
	var o ddlOptions
	cmd := &cobra.Command{
		Use:   "ddl --dialect D [--profiler NAME]... [--schema S] [--primary-key] [--citus] [-o FILE] | ddl --upgrade --db DSN [--schema S] [-o FILE]",
		Short: "Print the SQL script that creates the AQTime tables",
		Long: `ddl prints the SQL script that creates the tables of AQTime's documented
layout for one SQL dialect: INSTANCES and RELATIONS, shared by every profiler,
then the tables of the chosen profilers (all of them by default), each parent
table before its children, with their indexes.

The script runs as it is in the dialect's own client: sqlite3, psql,
mariadb/mysql or sqlcmd (SQL Server batches are separated by GO lines). Every
statement is idempotent (CREATE ... IF NOT EXISTS or its equivalent), so the
script can be run again on a database that already has the tables.

With --primary-key (mysql), every profiler table gets a primary key of its
own, PROFDB_ROW_ID, an invisible auto-numbered column that readers never see
(MariaDB 10.3+, MySQL 8.0.23+): for servers that demand a primary key on
every table (innodb_force_primary_key, sql_require_primary_key, Galera and
Percona XtraDB Cluster). export does the same by itself on such a server.

With --citus (postgres), each table is followed by the Citus call that
spreads it over the cluster: the profiler tables distributed by INST_ID and
co-located, INSTANCES, RELATIONS and PROFDB_RESULT_SETS made reference
tables (docs/clusters.md). Each call is skipped for a table that
pg_dist_partition lists already, that holds rows, or whose INSTANCES is a
plain table, so the script can be run again and leaves tables with data
as they are. export does the same by itself when it creates the tables on
a Citus coordinator with workers.

The output is deterministic: the same flags give the same script. The
scripts for all profilers are checked in as ddl/sql/DIALECT.sql.

With --upgrade --db DSN, ddl reads the catalogue of that database and prints
what profdb's own tables there lack, for a DBA to run where profdb may not
create tables (export --no-create, a role without CREATE): CREATE TABLE for
a missing PROFDB_RESULT_SETS, PROFDB_LABELS or PROFDB_MERGE_SOURCES (on a
Citus cluster with the call that makes it a reference table), ALTER TABLE
... ADD for each column a PROFDB_RESULT_SETS made by an earlier profdb lacks
(the run's identity: docs/layout.md). It alters nothing; AQTime's tables are
never changed. A database that needs nothing gets a script of comments only.
export, where it may create tables, makes the same changes by itself.`,
		Example: `  profdb ddl --dialect sqlite | sqlite3 profdb.db
  profdb ddl --dialect postgres --profiler function-trace -o function-trace.sql
  profdb ddl --dialect sqlserver --schema aqtime -o aqtime.sql && sqlcmd -b -i aqtime.sql
  profdb ddl --dialect mysql --primary-key | mariadb prof
  profdb ddl --dialect postgres --citus --schema aqtime | psql -v ON_ERROR_STOP=1 -d prof
  profdb ddl --upgrade --db postgres://reader@db.example.com/prof -o upgrade.sql`,
		Args:                  usageArgs(cobra.NoArgs),
		DisableFlagsInUseLine: true,
		RunE:                  o.run,
	}
	f := cmd.Flags()
	f.StringVarP(&o.dialect, "dialect", "d", "",
		"SQL `dialect`: "+orList(dialects.Names())+" (required)")
	f.StringSliceVarP(&o.profilers, "profiler", "p", nil,
		"`NAME` of a profiler whose tables to create; repeat or separate with commas (default: all)\none of: "+strings.Join(profilers.Names(), ", "))
	f.StringVar(&o.schema, "schema", "",
		"create the tables in the existing schema `NAME` (a database on MySQL) instead of the default")
	f.StringVarP(&o.output, "output", "o", "", "write the script to `FILE` instead of standard output")
	f.BoolVar(&o.rowKey, "primary-key", false,
		"give every profiler table a primary key of its own, an invisible auto-numbered column "+dialects.RowKeyColumn+", for servers that demand one (mysql only)")
	f.BoolVar(&o.citus, "citus", false,
		"distribute the tables over a Citus cluster: the profiler tables by INST_ID, the shared ones as reference tables (postgres only)")
	f.BoolVar(&o.upgrade, "upgrade", false,
		"print what profdb's own tables in the database of --db lack (CREATE TABLE, ALTER TABLE ... ADD); reads the catalogue, alters nothing")
	f.StringVar(&o.dsn, "db", "", "with --upgrade: the database `DSN` whose tables to read")
	connFlags(cmd, &o.conn, rep)
	return cmd
}

// run prints the script, or writes it to the file of -o.
func (o *ddlOptions) run(cmd *cobra.Command, _ []string) error {
	var script string
	var err error
	if o.upgrade || cmd.Flags().Changed("db") {
		script, err = o.upgradeScript(cmd)
	} else {
		script, err = o.script()
	}
	if err != nil {
		return err
	}
	if o.output == "" || o.output == "-" {
		_, err = io.WriteString(cmd.OutOrStdout(), script)
		return err
	}
	return writeFileAtomic(o.output, func(w io.Writer) error {
		_, err := io.WriteString(w, script)
		return err
	})
}

// upgradeScript is "profdb ddl --upgrade --db DSN": the statements that
// bring profdb's own tables there up to date, read from its catalogue.
func (o *ddlOptions) upgradeScript(cmd *cobra.Command) (string, error) {
	switch {
	case !o.upgrade:
		return "", usageErrorf("--db is for --upgrade: ddl prints the script for a dialect (--dialect) without reading a database")
	case o.dsn == "":
		return "", usageErrorf("--upgrade needs --db DSN: the database whose tables to read")
	case o.dialect != "":
		return "", usageErrorf("--upgrade takes the dialect from the --db DSN: leave out --dialect")
	case len(o.profilers) > 0 || o.citus:
		return "", usageErrorf("--upgrade adds profdb's own tables and columns only (Citus found by itself): leave out --profiler and --citus")
	}
	if strings.ContainsFunc(o.schema, unicode.IsControl) {
		return "", usageErrorf("--schema %q: control characters are not allowed", o.schema)
	}
	ctx := cmd.Context()
	db, err := o.conn.open(ctx, o.dsn, store.Options{Schema: o.schema, ReadOnly: true})
	if err != nil {
		return "", err
	}
	defer db.Close()
	if err := scriptFlags(db.Dialect(), o.rowKey, false); err != nil {
		return "", err
	}
	script, _, err := sqlscript.Upgrade(ctx, db, sqlscript.UpgradeOptions{PrimaryKey: o.rowKey,
		Header: []string{"Upgrade of profdb's own tables, generated by profdb (profdb ddl --upgrade) from the catalogue of " + dialects.Redact(o.dsn) + "."}})
	return script, err
}

// script builds the script the options describe.
func (o *ddlOptions) script() (string, error) {
	if o.dialect == "" {
		return "", usageErrorf("--dialect is required: one of %s", orList(dialects.Names()))
	}
	d, err := lookupDialect(o.dialect)
	if err != nil {
		return "", err
	}
	defs, err := selectProfilers(o.profilers)
	if err != nil {
		return "", err
	}
	if strings.ContainsFunc(o.schema, unicode.IsControl) {
		return "", usageErrorf("--schema %q: control characters are not allowed", o.schema)
	}
	if err := scriptFlags(d, o.rowKey, o.citus); err != nil {
		return "", err
	}
	return sqlscript.DDL(d, defs, sqlscript.DDLOptions{Schema: o.schema, PrimaryKey: o.rowKey, Distribute: o.citus,
		Header: []string{"AQTime profiler tables, generated by profdb (profdb ddl). Do not edit."}})
}

// scriptFlags refuses --primary-key and --citus for a dialect that cannot
// serve them (sqlscript.CheckDialect), naming the dialects that can.
func scriptFlags(d dialects.Dialect, rowKey, citus bool) error {
	err := sqlscript.CheckDialect(d, rowKey, citus)
	switch {
	case errors.Is(err, sqlscript.ErrNoRowKey):
		return usageErrorf("--primary-key: %v", err)
	case errors.Is(err, sqlscript.ErrNoDistribute):
		return usageErrorf("--citus: %v", err)
	}
	return err
}

// lookupDialect finds a registered dialect, or fails naming the valid ones.
func lookupDialect(name string) (dialects.Dialect, error) {
	valid := dialects.Names()
	if !slices.Contains(valid, strings.ToLower(name)) {
		return nil, usageErrorf("unknown dialect %q: want one of %s", name, strings.Join(valid, ", "))
	}
	return dialects.Lookup(name)
}

// selectProfilers returns the definitions of the named profilers in registry
// order (so the output does not depend on the order of the flags), each
// once; no names means every registered profiler.
func selectProfilers(names []string) ([]profilers.Definition, error) {
	all := profilers.Names()
	want := make(map[string]bool, len(names))
	for _, n := range names {
		n = strings.ToLower(strings.TrimSpace(n))
		if !slices.Contains(all, n) {
			return nil, usageErrorf("unknown profiler %q: want one of %s", n, strings.Join(all, ", "))
		}
		want[n] = true
	}
	var defs []profilers.Definition
	for _, n := range all {
		if len(want) > 0 && !want[n] {
			continue
		}
		def, err := profilers.Lookup(n)
		if err != nil {
			return nil, err
		}
		defs = append(defs, def)
	}
	return defs, nil
}

// orList formats names as "a, b or c".
func orList(names []string) string {
	switch len(names) {
	case 0:
		return "(none registered)"
	case 1:
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

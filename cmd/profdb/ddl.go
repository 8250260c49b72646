package main

import (
	"io"
	"slices"
	"strings"
	"unicode"

	"github.com/spf13/cobra"

	"github.com/profdb/profdb/dialects"
	"github.com/profdb/profdb/exporter/sqlscript"
	"github.com/profdb/profdb/profilers"
)

// ddlOptions are the flags of "profdb ddl".
type ddlOptions struct {
	dialect   string
	profilers []string
	schema    string
	output    string
	rowKey    bool // --primary-key
	citus     bool // --citus
}

func newDDLCmd() *cobra.Command {
	var o ddlOptions
	cmd := &cobra.Command{
		Use:   "ddl --dialect D [--profiler NAME]... [--schema S] [--primary-key] [--citus] [-o FILE]",
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
scripts for all profilers are checked in as ddl/sql/DIALECT.sql.`,
		Example: `  profdb ddl --dialect sqlite | sqlite3 profdb.db
  profdb ddl --dialect postgres --profiler function-trace -o function-trace.sql
  profdb ddl --dialect sqlserver --schema aqtime -o aqtime.sql && sqlcmd -b -i aqtime.sql
  profdb ddl --dialect mysql --primary-key | mariadb prof
  profdb ddl --dialect postgres --citus --schema aqtime | psql -v ON_ERROR_STOP=1 -d prof`,
		Args:                  usageArgs(cobra.NoArgs),
		DisableFlagsInUseLine: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			script, err := o.script()
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
		},
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
	return cmd
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
	if _, canKey := d.(dialects.RowKeyer); o.rowKey && !canKey {
		return "", usageErrorf("--primary-key: the %s dialect has no hidden primary key; only mysql has", d.Name())
	}
	if _, ok := d.(dialects.Distributor); o.citus && !ok {
		return "", usageErrorf("--citus: the %s dialect has no Citus; only postgres has", d.Name())
	}
	return sqlscript.DDL(d, defs, sqlscript.DDLOptions{Schema: o.schema, PrimaryKey: o.rowKey, Distribute: o.citus,
		Header: []string{"AQTime profiler tables, generated by profdb (profdb ddl). Do not edit."}})
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

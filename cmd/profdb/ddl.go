package main

import (
	"io"
	"os"
	"slices"
	"strings"
	"unicode"

	"github.com/spf13/cobra"

	"github.com/profdb/profdb/ddl"
	"github.com/profdb/profdb/dialects"
	"github.com/profdb/profdb/profilers"
)

// ddlOptions are the flags of "profdb ddl".
type ddlOptions struct {
	dialect   string
	profilers []string
	schema    string
	output    string
	rowKey    bool // --primary-key
}

func newDDLCmd() *cobra.Command {
	var o ddlOptions
	cmd := &cobra.Command{
		Use:   "ddl --dialect D [--profiler NAME]... [--schema S] [--primary-key] [-o FILE]",
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

The output is deterministic: the same flags give the same script. The
scripts for all profilers are checked in as ddl/sql/DIALECT.sql.`,
		Example: `  profdb ddl --dialect sqlite | sqlite3 profdb.db
  profdb ddl --dialect postgres --profiler function-trace -o function-trace.sql
  profdb ddl --dialect sqlserver --schema aqtime -o aqtime.sql && sqlcmd -b -i aqtime.sql
  profdb ddl --dialect mysql --primary-key | mariadb prof`,
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
			if err := os.WriteFile(o.output, []byte(script), 0o644); err != nil {
				return err
			}
			return nil
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
	tables, err := profilers.Tables(defs...)
	if err != nil {
		return "", err
	}
	g := generator(d, o.schema)
	rk, canKey := d.(dialects.RowKeyer)
	if o.rowKey {
		if !canKey {
			return "", usageErrorf("--primary-key: the %s dialect has no hidden primary key; only mysql has", d.Name())
		}
		g = rowKeyGenerator{Generator: g, rk: rk, schema: o.schema}
	}
	header := scriptHeader(d.Name(), defs, o.schema)
	switch {
	case o.rowKey:
		header = append(header,
			"--primary-key: every profiler table has "+dialects.RowKeyColumn+", an invisible auto-numbered primary key",
			"that readers never see (MariaDB 10.3+, MySQL 8.0.23+).")
	case canKey:
		header = append(header,
			"On a server that demands a primary key on every table (innodb_force_primary_key,",
			"sql_require_primary_key, Galera, Percona XtraDB Cluster) use profdb ddl --primary-key.")
	}
	return ddl.Script(g, header, tables), nil
}

// rowKeyGenerator creates profiler tables with dialects.RowKeyColumn as
// their invisible primary key (--primary-key).
type rowKeyGenerator struct {
	ddl.Generator
	rk     dialects.RowKeyer
	schema string
}

// CreateTable implements ddl.Generator.
func (g rowKeyGenerator) CreateTable(t ddl.Table) []string {
	if t.Key != "" {
		return g.Generator.CreateTable(t)
	}
	return g.rk.CreateTableWithRowKey(g.schema, t, true)
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

// scriptHeader returns the comment lines that open a script. They hold no
// timestamp, so that the output is deterministic.
func scriptHeader(dialect string, defs []profilers.Definition, schema string) []string {
	names := make([]string, len(defs))
	for i, d := range defs {
		names[i] = d.Name
	}
	h := []string{
		"AQTime profiler tables, generated by profdb (profdb ddl). Do not edit.",
		"dialect: " + dialect,
		"profilers: " + strings.Join(names, ", "),
	}
	if schema != "" {
		h = append(h, "schema: "+schema)
	}
	if hint, ok := runHints[dialect]; ok {
		h = append(h, "run: "+hint)
	}
	h = append(h, "Every statement is idempotent: the script can be run again.")
	return h
}

// runHints say how each dialect's client runs a script.
var runHints = map[string]string{
	"sqlite":    "sqlite3 profdb.db < FILE",
	"postgres":  "psql -v ON_ERROR_STOP=1 -d DATABASE -f FILE",
	"mysql":     "mariadb DATABASE < FILE (or mysql)",
	"sqlserver": "sqlcmd -b -d DATABASE -i FILE",
}

// generator returns the generator that creates tables in schema ("" for the
// default), keeping the dialect's batch separator.
func generator(d dialects.Dialect, schema string) ddl.Generator {
	if schema == "" {
		return d
	}
	return schemaGenerator{d: d, schema: schema}
}

// schemaGenerator creates tables in a named schema.
type schemaGenerator struct {
	d      dialects.Dialect
	schema string
}

// CreateTable implements ddl.Generator.
func (g schemaGenerator) CreateTable(t ddl.Table) []string { return g.d.CreateTableIn(g.schema, t) }

// Preamble implements ddl.Preamble; nil when the dialect has none.
func (g schemaGenerator) Preamble() []string {
	if p, ok := g.d.(ddl.Preamble); ok {
		return p.Preamble()
	}
	return nil
}

// BatchSeparator implements ddl.BatchSeparator; "" when the dialect has none.
func (g schemaGenerator) BatchSeparator() string {
	if bs, ok := g.d.(ddl.BatchSeparator); ok {
		return bs.BatchSeparator()
	}
	return ""
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

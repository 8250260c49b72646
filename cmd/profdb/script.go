package main

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/profdb/profdb/dialects"
	"github.com/profdb/profdb/input"
)

func newScriptCmd() *cobra.Command {
	o := scriptOptions{command: "profdb script"}
	cmd := &cobra.Command{
		Use:   "script --dialect D [-o FILE] [flags] FILE...",
		Short: "Write profiler results as a SQL script",
		Long: `script reads profiler results as export does and writes a SQL script for one
dialect instead of touching a database: the tables' DDL (as profdb ddl
prints it), then every result set as INSERTs in one transaction, with
INST_IDs assigned by the script when it runs, so that it appends to a
database that already holds result sets. The script runs as it is in the
dialect's own client (sqlite3 -bail, psql -v ON_ERROR_STOP=1,
mariadb/mysql, sqlcmd -b).

Nothing is written unless every input is read without error; -o FILE is then
replaced whole. Without -o the script goes to standard output and the lines
about the result sets to standard error.

"profdb export --sql-out FILE --dialect D" is the same command.`,
		Example: `  profdb script --dialect postgres -o run.sql run.json && psql -v ON_ERROR_STOP=1 -d prof -f run.sql
  profdb script --dialect sqlite run.json | sqlite3 -bail profdb.db`,
		Args: usageArgs(cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			switch {
			case o.dialect == "":
				return usageErrorf("--dialect is required: one of %s", orList(dialects.Names()))
			case o.rowKey && o.noCreate:
				return usageErrorf("--primary-key shapes the tables the script creates, and --no-create creates none: choose one")
			case o.citus && o.noCreate:
				return usageErrorf("--citus distributes the tables the script creates, and --no-create creates none: choose one")
			case o.output == "-" && o.asJSON:
				return usageErrorf("--json prints to standard output, where the script goes without -o FILE: choose one")
			}
			return o.run(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), cmd.InOrStdin(), args)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&o.dialect, "dialect", "d", "", "SQL `dialect` of the script: "+orList(dialects.Names())+" (required)")
	f.StringVarP(&o.output, "output", "o", "-", "write the script to `FILE` (\"-\": standard output)")
	f.StringVar(&o.schema, "schema", "", "existing schema (a database on MySQL) the script writes into (default: the connection's)")
	f.StringVar(&o.caption, "caption", "", "caption of every result set, in place of the input's (all get the same one)")
	f.BoolVar(&o.noCreate, "no-create", false, "leave out the DDL: the tables must exist when the script runs")
	f.BoolVar(&o.rowKey, "primary-key", false,
		"(mysql) give every profiler table the script creates a primary key of its own, an invisible auto-numbered column "+
			dialects.RowKeyColumn+", for servers that demand one")
	f.BoolVar(&o.citus, "citus", false,
		"(postgres) distribute the tables the script creates over a Citus cluster, as profdb ddl --citus does")
	f.BoolVar(&o.asJSON, "json", false, "print the result sets as JSON (with -o FILE)")
	f.BoolVarP(&o.quiet, "quiet", "q", false, "print nothing about the result sets")
	f.StringVar(&o.format, "format", "", "input format: "+strings.Join(input.Names(), ", ")+" (default: detected)")
	f.StringVar(&o.sourceRoot, "source-root", "", "where Go coverage profiles find their sources (default: the module in the current folder)")
	f.BoolVar(&o.skipMissing, "skip-missing", false, "warn about, instead of failing on, missing source files of a Go coverage profile")
	maxInflateFlag(cmd, &o.maxInflate)
	identityFlags(cmd, &o.identity, false)
	return cmd
}

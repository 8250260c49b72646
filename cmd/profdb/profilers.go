package main

import (
	"github.com/spf13/cobra"

	"github.com/profdb/profdb/profilers"
)

func newProfilersCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "profilers [--json] [NAME]...",
		Short: "List the profiler plugins with their tables and columns",
		Long: `profilers lists the registered profiler plugins (all of them, or the ones
named) with their tables as a tree, each child table under its parent (the
table its PARENT_ID points into, as RELATIONS records it), and each table's
columns in documented order with their logical types: String, Integer,
Decimal or Float. INSTANCES and RELATIONS, shared by every profiler, come
first.

--json prints the same as one JSON object:

  {"shared": [TABLE...], "profilers": [{"name": NAME, "tables": [TABLE...]}]}

  TABLE = {"name": NAME, "parent": NAME or null,
           "columns": [{"name": NAME, "type": "String|Integer|Decimal|Float"}]}

Table and column names are upper case, exactly as documented.`,
		Example: `  profdb profilers
  profdb profilers function-trace
  profdb profilers --json | jq '.profilers[].tables[].name'`,
		Args:                  usageArgs(cobra.ArbitraryArgs),
		DisableFlagsInUseLine: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			defs, err := selectProfilers(args)
			if err != nil {
				return err
			}
			if asJSON {
				return profilers.Layout{Profilers: defs}.WriteJSON(cmd.OutOrStdout())
			}
			return profilers.Layout{Profilers: defs}.WriteText(cmd.OutOrStdout())
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON instead of a tree")
	return cmd
}

package main

import (
	"fmt"

	"github.com/profdb/profdb/exporter"
	"github.com/spf13/cobra"
)

func newCopyCmd() *cobra.Command {
	var from, to, fromSchema, toSchema, bulk string
	var insts []int64
	var noCreate, asJSON bool
	cmd := &cobra.Command{
		Use:   "copy --from DSN --to DSN [--inst N]...",
		Short: "Copy result sets between databases",
		Long: `copy reads result sets from one database and exports each into another, of
any dialects. Every copied result set gets a new INST_ID at the target, its
tables and parent links are preserved, and it is written in one transaction
like any export: a failure leaves no trace of it at the target. Without
--inst every result set of the source is copied.`,
		Example: `  profdb copy --from sqlite:profdb.db --to postgres://user@db/prof
  profdb copy --from mysql://u:p@h/prof --to sqlite:local.db --inst 3 --inst 7`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if from == "" || to == "" {
				return usageErrorf("--from and --to are required")
			}
			mode, err := exporter.ParseBulkMode(bulk)
			if err != nil {
				return usageErrorf("--bulk: want auto or off, got %q", bulk)
			}
			ctx := cmd.Context()
			src, err := exporter.Open(ctx, from, exporter.Options{Schema: fromSchema})
			if err != nil {
				return err
			}
			defer src.Close()
			dst, err := exporter.Open(ctx, to, exporter.Options{Schema: toSchema, NoCreate: noCreate, Bulk: mode})
			if err != nil {
				return err
			}
			defer dst.Close()
			if len(insts) == 0 {
				list, err := src.List(ctx)
				if err != nil {
					return err
				}
				for _, l := range list {
					insts = append(insts, l.InstID)
				}
			}
			var results []exporter.Result
			for _, inst := range insts {
				rs, err := src.Read(ctx, inst)
				if err != nil {
					return err
				}
				res, err := exporter.Export(ctx, dst, rs)
				if err != nil {
					return fmt.Errorf("copy INST_ID %d: %w", inst, err)
				}
				results = append(results, res)
				if !asJSON {
					fmt.Fprintf(cmd.OutOrStdout(), "INST_ID %d -> %s\n", inst, resultLine(res))
				}
			}
			if asJSON {
				return writeJSON(cmd.OutOrStdout(), results)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&from, "from", "", "source database `DSN`")
	f.StringVar(&to, "to", "", "target database `DSN`")
	f.StringVar(&fromSchema, "from-schema", "", "schema (database on MySQL) of the source tables")
	f.StringVar(&toSchema, "to-schema", "", "schema (database on MySQL) to write into")
	f.Int64SliceVar(&insts, "inst", nil, "INST_ID to copy; repeat for several (default: all)")
	f.BoolVar(&noCreate, "no-create", false, "never create tables at the target")
	f.StringVar(&bulk, "bulk", "auto", "write path at the target: auto or off")
	f.BoolVar(&asJSON, "json", false, "print the results as JSON")
	return cmd
}

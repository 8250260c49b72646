package main

import (
	"context"

	"github.com/dustin/go-humanize/english"
	"github.com/spf13/cobra"

	"github.com/profdb/profdb/store"
)

func newVerifyCmd(rep *ledger) *cobra.Command {
	var dsn, schema string
	var inst *instFlag
	var asJSON bool
	var conn connOptions
	cmd := &cobra.Command{
		Use:   "verify [--db DSN] [--inst N|A-B]...",
		Short: "Check result sets against the profilers' table graph",
		Long: `verify checks result sets (all, or those --inst names): their RELATIONS rows
match the registered parent graph, every child row's PARENT_ID names an
existing parent row of the same INST_ID, top-level rows hold -1 there, no two
rows of a table share an ID, and no table holds rows of a result set
INSTANCES does not list (export refuses a result set that fails these
checks). It prints what it
finds, with the IDs of the rows at fault, and exits 1 if it finds anything,
0 ("ok") if not, and 2 if it cannot verify: a database that cannot be
opened, a schema, database or SQLite file that does not exist, an empty
file, or a database without an INSTANCES table (nothing was exported
there: nothing to verify is not "ok"). --json prints the findings as a JSON array of {"inst_id", "table",
"message", "ids"} ([] when all is well). Everything is read in one
consistent snapshot (with --inst, each result set in one of its own), so
result sets that are being exported or deleted meanwhile are seen whole or
not at all. An INST_ID --inst names that the database does not hold is an
error (exit 2), not a finding.`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if _, err := inst.items(); err != nil {
				return err
			}
			db, err := conn.open(cmd.Context(), dsn, store.Options{Schema: schema, ReadOnly: true})
			if err != nil {
				return err
			}
			defer db.Close()
			findings, err := verifyInsts(cmd.Context(), db, inst)
			if err != nil {
				return err
			}
			write := findings.WriteText
			if asJSON {
				write = findings.WriteJSON
			}
			if err := write(cmd.OutOrStdout()); err != nil {
				return err
			}
			if len(findings) > 0 {
				return no("verify: %s", english.Plural(len(findings), "finding", ""))
			}
			return nil
		},
	}
	dbFlag(cmd, &dsn)
	cmd.Flags().StringVar(&schema, "schema", "", "schema (database on MySQL) holding the tables")
	inst = addInstFlag(cmd, "check", "all")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the findings as JSON")
	connFlags(cmd, &conn, rep)
	return cmd
}

// verifyInsts verifies the result sets --inst selects, or all of them.
func verifyInsts(ctx context.Context, db *store.DB, inst *instFlag) (store.Findings, error) {
	if !inst.given() {
		return db.Verify(ctx, 0)
	}
	ids, err := inst.pick(ctx, db)
	if err != nil {
		return nil, err
	}
	var all store.Findings
	for _, id := range ids {
		findings, err := db.Verify(ctx, id)
		if err != nil {
			return nil, err
		}
		all = append(all, findings...)
	}
	return all, nil
}

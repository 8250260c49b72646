package main

import (
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
)

// newManCmd is "profdb man DIR", hidden from help: it writes the manual
// pages of profdb and of every command (profdb.1, profdb-export.1, …) into
// the folder DIR, made when missing, as cobra/doc renders the commands'
// help. The release's .deb and .rpm packages install them
// (.goreleaser.yaml). The pages are dated with the build's date where it
// is known (a release's commit date), so that a release's pages are the
// same on every build of it.
func newManCmd() *cobra.Command {
	return &cobra.Command{
		Use:    "man DIR",
		Short:  "Write profdb's manual pages into the folder DIR",
		Hidden: true,
		Args:   usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := args[0]
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return fmt.Errorf("man: %w", err)
			}
			// The tree running, with the help, version and completion
			// that cobra adds, as docs/cli describes it.
			root := cmd.Root()
			root.InitDefaultHelpCmd()
			root.InitDefaultVersionFlag()
			root.InitDefaultCompletionCmd()
			b := currentBuild()
			header := &doc.GenManHeader{Title: "PROFDB", Section: "1", Source: "profdb " + b.Version, Manual: "profdb manual"}
			if t, err := time.Parse(time.RFC3339, b.Date); err == nil {
				header.Date = &t
			}
			if err := doc.GenManTree(root, header, dir); err != nil {
				return fmt.Errorf("man: write the pages into %s: %w", dir, err)
			}
			return nil
		},
	}
}

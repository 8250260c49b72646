package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
)

// commands are the constructors of profdb's subcommands, in the order help
// lists them. A subcommand defined in a file of its own is added here; no
// init functions are involved, so every call of newRootCmd builds a fresh,
// independent command tree (tests run many in one process).
var commands = []func() *cobra.Command{
	newExportCmd,
	newListCmd,
	newVerifyCmd,
	newDeleteCmd,
	newCopyCmd,
	newDDLCmd,
	newProfilersCmd,
	newVersionCmd,
}

// version is profdb's version; release builds set it with
// -ldflags "-X main.version=v1.2.3". Otherwise the module version recorded
// by "go install ...@version" is used, or "devel".
var version = ""

// run runs profdb with the command-line arguments args (without the program
// name), writing output to stdout and messages to stderr, and returns the
// exit status: 0 on success, 1 on any error. Errors are printed to stderr
// prefixed "profdb: ".
func run(args []string, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()

	root := newRootCmd()
	root.SetArgs(args)
	root.SetIn(os.Stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	cmd, err := root.ExecuteContextC(ctx)
	if err == nil {
		return 0
	}
	fmt.Fprintf(stderr, "profdb: %v\n", err)
	var ue usageError
	if errors.As(err, &ue) || isFlagError(err) {
		fmt.Fprintf(stderr, "Run '%s --help' for usage.\n", cmd.CommandPath())
	}
	return 1
}

// newRootCmd builds the profdb command with every subcommand in commands.
func newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "profdb",
		Short: "Write AQTime profiler results into SQL databases",
		Long: `profdb writes AQTime profiler results into SQL databases (SQLite, PostgreSQL,
MySQL/MariaDB, SQL Server) using the table layout AQTime documents for its
Light Coverage, Resource, Function Trace and Reference Count profilers.`,
		SilenceUsage:  true, // an error is not a reason to print the usage
		SilenceErrors: true, // run prints errors, prefixed "profdb: "
		Args:          rootArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return cmd.Help() // "profdb" alone prints the help
		},
	}
	root.CompletionOptions.HiddenDefaultCmd = true
	for _, newCmd := range commands {
		root.AddCommand(newCmd())
	}
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error {
		return flagError{err}
	})
	return root
}

// usageError is an error in how a command was called (a missing or unknown
// flag value); run adds a pointer to --help.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usageErrorf(format string, args ...any) error {
	return usageError{fmt.Sprintf(format, args...)}
}

// rootArgs rejects arguments that name no subcommand, suggesting the
// nearest names.
func rootArgs(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	msg := fmt.Sprintf("unknown command %q", args[0])
	if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
		msg += "; did you mean " + strings.Join(s, " or ") + "?"
	}
	return usageError{msg}
}

// usageArgs makes the errors of an argument validator usage errors.
func usageArgs(v cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := v(cmd, args); err != nil {
			return usageError{err.Error()}
		}
		return nil
	}
}

// flagError wraps the errors of flag parsing.
type flagError struct{ err error }

func (e flagError) Error() string { return e.err.Error() }
func (e flagError) Unwrap() error { return e.err }

func isFlagError(err error) bool {
	var fe flagError
	return errors.As(err, &fe)
}

func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print profdb's version",
		Args:  usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := fmt.Fprintf(cmd.OutOrStdout(), "profdb %s (%s, %s/%s)\n",
				versionString(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
			return err
		},
	}
}

// versionString returns version, or the main module's version from the
// build information, or "devel".
func versionString() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "devel"
}

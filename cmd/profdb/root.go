package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/agnivade/levenshtein"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/profdb/profdb/dialects"
	"github.com/profdb/profdb/internal/termtext"
)

// commands are the constructors of profdb's subcommands, in the order help
// lists them, each given the ledger of the run (see ledger) that an
// interrupted command reports from. A subcommand defined in a file of its
// own is added here; no init functions are involved, so every call of
// newRootCmd builds a fresh, independent command tree (tests run many in
// one process).
var commands = []func(rep *ledger) *cobra.Command{
	newExportCmd,
	newListCmd,
	newShowCmd,
	newCompareCmd,
	newTrendCmd,
	newReportCmd,
	newVerifyCmd,
	newCheckCmd,
	newDeleteCmd,
	newCopyCmd,
	newMergeCmd,
	noLedger(newScriptCmd),
	newDDLCmd,
	newServeCmd,
	noLedger(newProfilersCmd),
	noLedger(newVersionCmd),
	noLedger(newManCmd),
}

// noLedger adapts the constructor of a command that opens no database,
// which has nothing for the ledger.
func noLedger(f func() *cobra.Command) func(*ledger) *cobra.Command {
	return func(*ledger) *cobra.Command { return f() }
}

// version, commit and date describe a release build: GoReleaser
// (.goreleaser.yaml) sets them with -ldflags "-X main.version=1.2.3
// -X main.commit=SHA -X main.date=RFC3339". Where they are empty, the build
// information Go records is used: the module version of "go install
// ...@version" (else "devel"), and the vcs.revision and vcs.time of a build
// from a clone.
var (
	version = ""
	commit  = ""
	date    = ""
)

// run runs profdb with the command-line arguments args (without the program
// name), writing output to stdout and messages to stderr, and returns the
// exit status (see exitStatus): 0 when the command did its work, 1 for its
// negative answer, 2 when it could not run, 130 when SIGINT and 143 when
// SIGTERM interrupted it. Errors are printed to stderr prefixed "profdb: ",
// on one line, with any control character in them (names from the input or
// the database) escaped by termtext.Line; an interruption is reported as
// what it left behind.
func run(args []string, stdout, stderr io.Writer) int {
	rep := &ledger{}
	ctx, stop := watchSignals(stderr, rep)
	defer stop()

	root := newRootCmd(rep)
	root.SetArgs(args)
	root.SetIn(os.Stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	cmd, err := root.ExecuteContextC(ctx)
	if err == nil {
		return exitDone
	}
	if in, ok := interruption(ctx); ok {
		fmt.Fprintf(stderr, "profdb: %s\n", termtext.Line(rep.message(in)))
		return in.status()
	}
	fmt.Fprintf(stderr, "profdb: %s\n", termtext.Line(commandError(cmd, phrase(cmd, rep.explain(err))).Error()))
	if isUsageError(err) {
		fmt.Fprintf(stderr, "Run '%s --help' for usage.\n", cmd.CommandPath())
	}
	return exitStatus(err)
}

// The exit statuses of every command (docs/guide.md, "Every command"); an
// interrupted command exits with its signal's (interruption.status).
const (
	// exitDone: the command did its work (a check whose rules all hold, a
	// verify that found nothing, two sets compared).
	exitDone = 0
	// exitNo: the command's negative answer (negativeAnswer): a check rule
	// failed, verify found problems, the sets cannot be compared.
	exitNo = 1
	// exitCannotRun: the command could not do its work: a usage error, a
	// connection refused or lost, bad input, a database, table or result
	// set that is not there, a write refused, anything else that failed.
	exitCannotRun = 2
)

// exitStatus is the exit status of a command that failed with err, the one
// place that maps errors to statuses: exitNo for a negative answer (a
// negativeAnswer: each command says which of its outcomes is its "no"),
// exitCannotRun for every other error.
func exitStatus(err error) int {
	var na negativeAnswer
	if errors.As(err, &na) {
		return exitNo
	}
	return exitCannotRun
}

// negativeAnswer is a command's "no": it did its work, and the answer is
// that something does not hold (a check rule failed, verify found
// problems). It exits exitNo.
type negativeAnswer struct{ err error }

func (e negativeAnswer) Error() string { return e.err.Error() }
func (e negativeAnswer) Unwrap() error { return e.err }

// no returns the negative answer fmt.Errorf(format, args...).
func no(format string, args ...any) error {
	return negativeAnswer{fmt.Errorf(format, args...)}
}

// envDefaults maps flags to the environment variables that give their
// default: a flag given wins, then the variable when set and not empty, then
// the flag's own default. PROFDB_DB keeps a password off the command line.
var envDefaults = map[string]string{
	"db":     "PROFDB_DB",
	"schema": "PROFDB_SCHEMA",
}

// applyEnvDefaults sets the flags of cmd that were not given from their
// environment variables (envDefaults). The flags stay not Changed.
func applyEnvDefaults(cmd *cobra.Command) error {
	for name, env := range envDefaults {
		f := cmd.Flags().Lookup(name)
		v := os.Getenv(env)
		if f == nil || f.Changed || v == "" {
			continue
		}
		if err := f.Value.Set(v); err != nil {
			return fmt.Errorf("$%s: %w", env, err)
		}
	}
	return nil
}

// envFlagHelp names the environment variable in the help of every flag
// envDefaults lists.
func envFlagHelp(c *cobra.Command) {
	for name, env := range envDefaults {
		if f := c.LocalFlags().Lookup(name); f != nil {
			f.Usage += "; $" + env + " when not given"
		}
	}
	for _, sub := range c.Commands() {
		envFlagHelp(sub)
	}
}

// dsnFlags are the flags whose values are DSNs, which may hold passwords.
var dsnFlags = []string{"db", "from", "to"}

// commandError returns err as profdb prints it: prefixed with the name of
// the subcommand that failed (once), with the password of every DSN the
// command was given replaced by "xxxxx".
func commandError(cmd *cobra.Command, err error) error {
	if cmd.HasParent() && !strings.HasPrefix(err.Error(), cmd.Name()+":") {
		err = fmt.Errorf("%s: %w", cmd.Name(), err)
	}
	for _, name := range dsnFlags {
		if f := cmd.Flags().Lookup(name); f != nil && f.Value.String() != "" {
			err = dialects.ScrubError(f.Value.String(), err)
		}
	}
	return err
}

// newRootCmd builds the profdb command with every subcommand in commands,
// which record what they do in rep.
func newRootCmd(rep *ledger) *cobra.Command {
	root := &cobra.Command{
		Use:   "profdb",
		Short: "Write AQTime profiler results into SQL databases",
		Long: `profdb writes AQTime profiler results into SQL databases (SQLite, PostgreSQL,
MySQL/MariaDB, SQL Server) using the table layout AQTime documents for its
Light Coverage, Resource, Function Trace and Reference Count profilers.

Exit status, the same for every command: 0 when it did its work; 1 for its
negative answer (check: a rule failed; compare: the sets cannot be compared;
verify: it found problems); 2 when it could not run (a usage error, a
connection refused or lost, bad input, a result set or database that is not
there); 130 for SIGINT and 143 for SIGTERM.

--inst, in every command that takes it (copy, delete, report, verify), is
an INST_ID, a range A-B of them or a selector (latest, branch:NAME~N, …:
docs/selectors.md), repeated or separated by commas
(--inst 3,5 --inst 10-20 --inst latest).`,
		SilenceUsage:  true, // an error is not a reason to print the usage
		SilenceErrors: true, // run prints errors, prefixed "profdb: "
		Args:          rootArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return cmd.Help() // "profdb" alone prints the help
		},
		// The command reference generated into docs/cli carries no
		// "Auto generated ... on DATE" footer, so that it changes only when
		// the commands do.
		DisableAutoGenTag: true,
	}
	// "profdb --version" prints what "profdb version" prints.
	root.Version = versionLine()
	root.SetVersionTemplate("profdb {{.Version}}\n")
	// Suggest commands within this edit distance of a mistyped one (cobra
	// sets it only for the errors it makes itself; rootArgs makes its own).
	root.SuggestionsMinimumDistance = suggestDistance
	for _, newCmd := range commands {
		root.AddCommand(newCmd(rep))
	}
	envFlagHelp(root)
	root.PersistentPreRunE = func(cmd *cobra.Command, _ []string) error {
		if err := applyEnvDefaults(cmd); err != nil {
			return err
		}
		return checkLimits(cmd)
	}
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		var ne *pflag.NotExistError
		if errors.As(err, &ne) && strings.HasPrefix(err.Error(), "unknown flag: --") {
			if s := suggestFlags(cmd, ne.GetSpecifiedName()); len(s) > 0 {
				err = fmt.Errorf("%w; did you mean %s?", err, strings.Join(s, " or "))
			}
		}
		return flagError{err}
	})
	return root
}

// suggestDistance is the largest edit distance between a mistyped command
// or flag name and the names suggested for it.
const suggestDistance = 2

// suggestFlags returns the long flags of cmd (its own and inherited ones)
// that name could be a typo of: within suggestDistance edits, or starting
// with it, ignoring case; the closest first. Each is returned as "--name".
func suggestFlags(cmd *cobra.Command, name string) []string {
	type cand struct {
		name string
		dist int
	}
	var cands []cand
	typed := strings.ToLower(name)
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if f.Hidden {
			return
		}
		lower := strings.ToLower(f.Name)
		d := levenshtein.ComputeDistance(typed, lower)
		if strings.HasPrefix(lower, typed) {
			d = min(d, 1)
		}
		if d <= suggestDistance {
			cands = append(cands, cand{"--" + f.Name, d})
		}
	})
	// Closest first; VisitAll gives the names sorted.
	slices.SortStableFunc(cands, func(a, b cand) int { return a.dist - b.dist })
	out := make([]string, len(cands))
	for i, c := range cands {
		out[i] = c.name
	}
	return out
}

// usageError is an error in how a command was called (a missing or unknown
// flag value); run adds a pointer to --help.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func usageErrorf(format string, args ...any) error {
	return usageError{fmt.Errorf(format, args...)}
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
	return usageError{errors.New(msg)}
}

// usageArgs makes the errors of an argument validator usage errors.
func usageArgs(v cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := v(cmd, args); err != nil {
			return usageError{err}
		}
		return nil
	}
}

// flagError wraps the errors of flag parsing.
type flagError struct{ err error }

func (e flagError) Error() string { return e.err.Error() }
func (e flagError) Unwrap() error { return e.err }

// isUsageError reports whether err is an error in how profdb was called:
// a usageError, a flag that does not parse.
func isUsageError(err error) bool {
	var ue usageError
	var fe flagError
	return errors.As(err, &ue) || errors.As(err, &fe)
}

func newVersionCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "version [--json]",
		Short: "Print profdb's version, commit and build",
		Long: `version prints profdb's version (the release's, the module version, or
"devel" for a build from a clone), the commit it was built from with the
commit's date (and "modified" when the work tree had changes), the Go version
and the platform. A release build has its version, commit and date stamped
in; any other build takes them from the build information Go records in the
binary. "profdb --version" prints the same line; --json prints the fields
(version, commit, date, modified, go, os, arch), a field that is not known
empty.`,
		Example: `  profdb version
  profdb version --json`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			b := currentBuild()
			if asJSON {
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				return enc.Encode(b)
			}
			_, err := fmt.Fprintln(cmd.OutOrStdout(), "profdb "+b.String())
			return err
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

// build is what "profdb version" says of this binary.
type build struct {
	Version  string `json:"version"`  // "1.2.3", a module version, or "devel"
	Commit   string `json:"commit"`   // the full commit hash, or ""
	Date     string `json:"date"`     // the commit's (release: the build's) date, RFC 3339, or ""
	Modified bool   `json:"modified"` // built from a work tree with changes
	Go       string `json:"go"`       // "go1.26.8"
	OS       string `json:"os"`
	Arch     string `json:"arch"`
}

// versionLine describes this build: version, commit, commit date, Go
// version and platform.
func versionLine() string {
	return currentBuild().String()
}

// currentBuild describes this binary: its stamped version, commit and date,
// else what Go recorded.
func currentBuild() build {
	bi, _ := debug.ReadBuildInfo()
	return describeBuild(bi, version, commit, date)
}

// describeBuild describes the build bi (nil when the binary has no build
// information) whose stamped version, commit and date are v, c and d (each
// "" when not stamped).
func describeBuild(bi *debug.BuildInfo, v, c, d string) build {
	b := build{Version: v, Commit: c, Date: d, Go: runtime.Version(), OS: runtime.GOOS, Arch: runtime.GOARCH}
	if bi == nil {
		bi = &debug.BuildInfo{}
	}
	if b.Version == "" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		b.Version = bi.Main.Version
	}
	if b.Version == "" {
		b.Version = "devel"
	}
	settings := map[string]string{}
	for _, s := range bi.Settings {
		settings[s.Key] = s.Value
	}
	if b.Commit == "" {
		// What Go recorded belongs together: the commit, its date and
		// whether the tree had changes.
		b.Commit, b.Date = settings["vcs.revision"], settings["vcs.time"]
		b.Modified = settings["vcs.modified"] == "true"
		if b.Commit == "" {
			b.Date = d
		}
	}
	return b
}

// String is the version line, e.g. "devel (commit 0123456789ab,
// 2026-11-25T04:00:00Z, modified; go1.26.8 linux/amd64)".
func (b build) String() string {
	var parts []string
	switch {
	case b.Commit != "":
		commit := "commit " + b.Commit[:min(len(b.Commit), 12)]
		if b.Date != "" {
			commit += ", " + b.Date
		}
		if b.Modified {
			commit += ", modified"
		}
		parts = append(parts, commit)
	case b.Date != "":
		parts = append(parts, "built "+b.Date)
	}
	parts = append(parts, b.Go+" "+b.OS+"/"+b.Arch)
	return b.Version + " (" + strings.Join(parts, "; ") + ")"
}

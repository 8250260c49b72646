package launchtest

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"
)

// env carries the command (a JSON array) to the launcher.
const env = "PROFDB_BENCH_LAUNCH"

// Result is what the launched command did.
type Result struct {
	Elapsed time.Duration
	MaxRSS  int64 // bytes; 0 where the system does not say (Windows)
	Stdout  string
	Stderr  string
	Err     string // how the command failed; "" when it exited 0
}

// Main makes this process the launcher when the environment asks for one:
// it runs the command, prints its Result as JSON and exits. Otherwise it
// returns at once.
func Main() {
	spec, ok := os.LookupEnv(env)
	if !ok {
		return
	}
	var args []string
	if err := json.Unmarshal([]byte(spec), &args); err != nil || len(args) == 0 {
		fmt.Fprintf(os.Stderr, "%s: want a JSON array of arguments: %v\n", env, err)
		os.Exit(2)
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Env = slices.DeleteFunc(os.Environ(), func(e string) bool { return strings.HasPrefix(e, env+"=") })
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	start := time.Now()
	err := cmd.Run()
	r := Result{Elapsed: time.Since(start), Stdout: out.String(), Stderr: errOut.String()}
	if err != nil {
		r.Err = err.Error()
	}
	r.MaxRSS = maxRSS(cmd.ProcessState)
	if err := json.NewEncoder(os.Stdout).Encode(r); err != nil {
		os.Exit(2)
	}
	os.Exit(0)
}

// Run runs args through a launcher, with extra (KEY=value) added to the
// environment the command inherits.
func Run(ctx context.Context, extra []string, args ...string) (Result, error) {
	self, err := os.Executable()
	if err != nil {
		return Result{}, fmt.Errorf("launchtest: %w", err)
	}
	spec, err := json.Marshal(args)
	if err != nil {
		return Result{}, fmt.Errorf("launchtest: %w", err)
	}
	cmd := exec.CommandContext(ctx, self)
	cmd.Env = append(append(os.Environ(), extra...), env+"="+string(spec))
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return Result{}, fmt.Errorf("launchtest: the launcher: %w", err)
	}
	var r Result
	if err := json.Unmarshal(out, &r); err != nil {
		return Result{}, fmt.Errorf("launchtest: the launcher said %q: %w", out, err)
	}
	return r, nil
}

// Measure is Run for a test or benchmark: it ends tb when the launcher
// fails (not when the command does: see Result.Err).
func Measure(tb testing.TB, extra []string, args ...string) Result {
	tb.Helper()
	r, err := Run(tb.Context(), extra, args...)
	if err != nil {
		tb.Fatal(err)
	}
	return r
}

package gitexec

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"

	"github.com/profdb/profdb/internal/termtext"
)

// MaxConfig bounds what New reads of git's list of filter settings, in
// bytes: a configuration that defines more is refused (a driver not read
// would not be switched off).
const MaxConfig = 1 << 20

// ErrConfig is wrapped by New's error for a configuration it cannot
// switch every filter driver off in: a driver name holding '=', or more
// than MaxConfig bytes of filter settings.
var ErrConfig = errors.New("a filter driver cannot be switched off")

// Git runs git in one folder, with the options and environment the
// package's documentation lists.
type Git struct {
	prog string
	dir  string
	opts []string // the global options before every command
	env  []string
}

// baseOptions come before every command, New's own git config included.
func baseOptions() []string {
	return []string{"--no-pager", "--no-optional-locks",
		"-c", "core.fsmonitor=false",
		"-c", "core.hooksPath=" + os.DevNull,
		"-c", "log.showSignature=false"}
}

// dropped are the environment variables left out of git's environment:
// those that name a program git may run, and those Git sets itself.
var dropped = []string{
	"GIT_EXTERNAL_DIFF", "GIT_PAGER", "PAGER", "GIT_EDITOR", "GIT_SEQUENCE_EDITOR", "EDITOR", "VISUAL",
	"GIT_SSH", "GIT_SSH_COMMAND", "GIT_ASKPASS", "SSH_ASKPASS", "GIT_PROXY_COMMAND", "GIT_EXEC_PATH",
	"LC_ALL", "GIT_OPTIONAL_LOCKS", "GIT_TERMINAL_PROMPT", "GIT_ALLOW_PROTOCOL", "GIT_NO_LAZY_FETCH",
}

// environ returns environ (KEY=value entries, as os.Environ gives them)
// without the variables Git leaves out, and with those it sets.
func environ(environ []string) []string {
	out := make([]string, 0, len(environ)+5)
	for _, kv := range environ {
		key, _, _ := strings.Cut(kv, "=")
		if !isDropped(key) {
			out = append(out, kv)
		}
	}
	return append(out, "LC_ALL=C", "GIT_OPTIONAL_LOCKS=0", "GIT_TERMINAL_PROMPT=0", "GIT_ALLOW_PROTOCOL=", "GIT_NO_LAZY_FETCH=1")
}

func isDropped(key string) bool {
	for _, d := range dropped {
		if key == d || runtime.GOOS == "windows" && strings.EqualFold(key, d) {
			return true
		}
	}
	return false
}

// New returns a Git for the folder dir ("" for the process's) that runs
// program ("" for git found on the PATH). It runs git config there once,
// under ctx, to read the names of the filter drivers the configuration
// defines; git missing or failing is an error (an *exec.Error when
// program is not found on the PATH), and so is a driver it cannot switch off (ErrConfig).
// A folder outside any repository is not an error: git config reads the
// user's and the system's configuration there.
func New(ctx context.Context, program, dir string) (*Git, error) {
	if program == "" {
		program = "git"
	}
	g := &Git{prog: program, dir: dir, opts: baseOptions(), env: environ(os.Environ())}
	names, err := g.filters(ctx)
	if err != nil {
		return nil, err
	}
	for _, name := range names {
		if strings.Contains(name, "=") {
			return nil, fmt.Errorf("git config: filter driver %s: %w: its name holds '=', which git's -c option cannot name", termtext.Name(name), ErrConfig)
		}
		g.opts = append(g.opts, "-c", "filter."+name+".clean=", "-c", "filter."+name+".smudge=",
			"-c", "filter."+name+".process=", "-c", "filter."+name+".required=false")
	}
	return g, nil
}

// filters returns the names of the filter drivers the configuration git
// reads in g.dir defines (filter.NAME.*), each once.
func (g *Git) filters(ctx context.Context) ([]string, error) {
	cmd := g.Command(ctx, "config", "--null", "--get-regexp", `^filter\.`)
	out, stderr := &Capped{Max: MaxConfig}, &Capped{Max: 4096}
	cmd.Stdout, cmd.Stderr = out, stderr
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit) && exit.ExitCode() == 1 && out.Len() == 0:
		return nil, nil // git config's answer for "none"
	case err != nil:
		if ctx.Err() != nil {
			return nil, fmt.Errorf("git config: %w", ctx.Err())
		}
		if msg := strings.TrimSpace(stderr.String()); msg != "" {
			return nil, fmt.Errorf("git config: %w: %s", err, termtext.Line(msg))
		}
		return nil, fmt.Errorf("git config: %w", err)
	case out.Over():
		return nil, fmt.Errorf("git config: %w: the filter settings are over %d bytes", ErrConfig, MaxConfig)
	}
	var names []string
	seen := map[string]bool{}
	// Each entry is KEY, then a newline and the value unless it has none,
	// then NUL. KEY is filter.NAME.VAR: NAME is what lies between the
	// first dot and the last, and may hold dots itself.
	for _, entry := range strings.Split(out.String(), "\x00") {
		key, _, _ := strings.Cut(entry, "\n")
		rest, ok := strings.CutPrefix(key, "filter.")
		i := strings.LastIndexByte(rest, '.')
		if !ok || i < 0 {
			continue // filter.VAR: no driver
		}
		if name := rest[:i]; !seen[name] {
			seen[name] = true
			names = append(names, name)
		}
	}
	return names, nil
}

// Command returns the command that runs git ARGS in g's folder under ctx,
// with g's options and environment, standard input empty; the caller sets
// its Stdout and Stderr and runs it. When ctx ends git is killed, and Wait
// returns at most a second later even if a program git started still
// holds its output open.
func (g *Git) Command(ctx context.Context, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, g.prog, append(append([]string(nil), g.opts...), args...)...)
	cmd.Dir = g.dir
	cmd.Env = g.env
	cmd.Stdin = nil
	cmd.WaitDelay = time.Second
	return cmd
}

// Capped is a writer for a command's output that keeps the first Max
// bytes written to it and discards the rest, so that the output costs at
// most Max bytes of memory however long it is; Over tells whether it
// discarded any. It has Write only (no ReadFrom, by which io.Copy would
// fill a bytes.Buffer without bound).
type Capped struct {
	Max  int
	buf  bytes.Buffer
	over bool
}

func (c *Capped) Write(p []byte) (int, error) {
	room := c.Max - c.buf.Len()
	if len(p) > room {
		c.over = true
	}
	if room > 0 {
		c.buf.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

// String returns what was kept.
func (c *Capped) String() string { return c.buf.String() }

// Len returns how many bytes were kept.
func (c *Capped) Len() int { return c.buf.Len() }

// Over reports whether more than Max bytes were written.
func (c *Capped) Over() bool { return c.over }

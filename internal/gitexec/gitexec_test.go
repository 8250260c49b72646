package gitexec_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/profdb/profdb/internal/gitexec"
	"github.com/profdb/profdb/internal/gittest"
)

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// run runs git args through a Git for dir and returns its output; git
// failing fails the test.
func run(t *testing.T, dir string, args ...string) string {
	t.Helper()
	ctx := ctxT(t)
	g, err := gitexec.New(ctx, "", dir)
	if err != nil {
		t.Fatal(err)
	}
	cmd := g.Command(ctx, args...)
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return out.String()
}

// TestFiltersOff: git status through a Git runs none of the filter drivers
// that the repository's configuration or the user's names for files it
// must read (gittest.FilterTrap checks that plain git status runs them),
// and still tells a changed file from an unchanged one by its content.
func TestFiltersOff(t *testing.T) {
	for _, where := range []string{gittest.InRepo, gittest.InGlobal, gittest.InHome} {
		t.Run(where, func(t *testing.T) {
			dir, git := gittest.Repo(t, "main")
			markers := gittest.FilterTrap(t, dir, git, where)
			got := run(t, dir, "status", "--porcelain", "--untracked-files=no")
			gittest.Unsprung(t, markers)
			if want := " M clean.dat\n M proc.dat\n"; got != want {
				t.Errorf("git status: %q, want %q", got, want)
			}
			for _, name := range []string{"clean.dat", "proc.dat"} {
				if err := os.WriteFile(filepath.Join(dir, name), []byte("before\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if got := run(t, dir, "status", "--porcelain", "--untracked-files=no"); got != "" {
				t.Errorf("git status with the files as committed: %q, want nothing", got)
			}
			gittest.Unsprung(t, markers)
		})
	}
}

// TestFilterNames: a driver's name is all between "filter." and the last
// dot, dots and capitals included, and each is switched off; one
// holding '=', which -c cannot name, makes New refuse to run git at all.
func TestFilterNames(t *testing.T) {
	dir, git := gittest.Repo(t, "main")
	marker := filepath.Join(t.TempDir(), "ran")
	prog := filepath.Join(t.TempDir(), "clean")
	if err := os.WriteFile(prog, []byte("#!/bin/sh\ntouch '"+marker+"'\nexec cat\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	const name = "a.B-c.d"
	if err := os.WriteFile(filepath.Join(dir, ".gitattributes"), []byte("f.dat filter="+name+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gittest.Commit(t, dir, git, "f.dat", "one\n", "one")
	git("config", "filter."+name+".clean", prog)
	if err := os.WriteFile(filepath.Join(dir, "f.dat"), []byte("two\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("git", "status", "--porcelain")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("plain git status: %v\n%s", err, out)
	}
	if err := os.Remove(marker); err != nil {
		t.Fatalf("plain git status did not run filter %q: the test could not fail: %v", name, err)
	}
	if got := run(t, dir, "status", "--porcelain", "--untracked-files=no"); got != " M f.dat\n" {
		t.Errorf("git status: %q", got)
	}
	gittest.Unsprung(t, []string{marker})

	git("config", "filter.x=y.clean", prog)
	g, err := gitexec.New(ctxT(t), "", dir)
	if !errors.Is(err, gitexec.ErrConfig) || g != nil || !strings.Contains(err.Error(), "x=y") {
		t.Errorf("a driver named x=y: %v, %v; want ErrConfig naming it", g, err)
	}
}

// TestNoLazyFetch: a partial clone's missing object is not fetched, so the
// program its promisor remote's address names does not run
// (gittest.FetchTrap checks that plain git rev-list runs it); rev-list
// fails instead.
func TestNoLazyFetch(t *testing.T) {
	dir, git := gittest.Repo(t, "main")
	gittest.Commit(t, dir, git, "f", "1", "one")
	gittest.Commit(t, dir, git, "f", "2", "two")
	markers := gittest.FetchTrap(t, dir, git)
	ctx := ctxT(t)
	g, err := gitexec.New(ctx, "", dir)
	if err != nil {
		t.Fatal(err)
	}
	if out, err := g.Command(ctx, "rev-list", "HEAD").CombinedOutput(); err == nil {
		t.Errorf("git rev-list through a missing commit succeeded:\n%s", out)
	}
	gittest.Unsprung(t, markers)
}

// TestNoHooks: git status, which refreshes the index of a touched file,
// runs neither the post-index-change hook (plain git status does: the test
// checks it) nor core.fsmonitor's program.
func TestNoHooks(t *testing.T) {
	dir, git := gittest.Repo(t, "main")
	gittest.Commit(t, dir, git, "f", "1", "one")
	marker := filepath.Join(t.TempDir(), "ran")
	hook := "#!/bin/sh\ntouch '" + marker + "'\n"
	if err := os.WriteFile(filepath.Join(dir, ".git", "hooks", "post-index-change"), []byte(hook), 0o755); err != nil {
		t.Fatal(err)
	}
	touch := func() {
		t.Helper()
		old := time.Now().Add(-time.Hour)
		if err := os.Chtimes(filepath.Join(dir, "f"), old, old); err != nil {
			t.Fatal(err)
		}
	}
	touch()
	cmd := exec.Command("git", "status", "--porcelain")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("plain git status: %v\n%s", err, out)
	}
	if err := os.Remove(marker); err != nil {
		t.Fatalf("plain git status did not run post-index-change: the test could not fail: %v", err)
	}
	fsmonitor := filepath.Join(t.TempDir(), "fsmonitor")
	if err := os.WriteFile(fsmonitor, []byte(hook+"exit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	git("config", "core.fsmonitor", fsmonitor)
	touch()
	if got := run(t, dir, "status", "--porcelain"); got != "" {
		t.Errorf("git status: %q, want nothing", got)
	}
	gittest.Unsprung(t, []string{marker})
}

// TestCommandLine: every command, the configuration read included, runs
// with the options and the environment the package promises, whatever the
// environment holds; the filter drivers git config lists are switched
// off. A fake git records what it was given.
func TestCommandLine(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the fake git is a shell script")
	}
	rec := t.TempDir()
	fake := filepath.Join(t.TempDir(), "git")
	script := "#!/bin/sh\nn=$(ls '" + rec + "' | grep -c '^args')\n" +
		"printf '%s\\n' \"$@\" > '" + rec + "'/args$n\nenv > '" + rec + "'/env$n\n" +
		"case \"$*\" in *--get-regexp*) printf 'filter.lfs.clean\\ngit-lfs clean\\000filter.a.b.process\\nx\\000filter.lfs.smudge\\ny\\000filter.required\\000' ;; esac\n"
	if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{"GIT_EXTERNAL_DIFF", "GIT_PAGER", "PAGER", "GIT_SSH", "GIT_SSH_COMMAND", "GIT_ASKPASS", "SSH_ASKPASS",
		"GIT_PROXY_COMMAND", "GIT_EDITOR", "GIT_SEQUENCE_EDITOR", "EDITOR", "VISUAL", "GIT_EXEC_PATH"} {
		t.Setenv(v, "/bin/evil")
	}
	t.Setenv("GIT_ALLOW_PROTOCOL", "ext:file")
	t.Setenv("LC_ALL", "de_DE.UTF-8")
	t.Setenv("GIT_CONFIG_GLOBAL", "/kept")
	ctx := ctxT(t)
	g, err := gitexec.New(ctx, fake, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Command(ctx, "status", "--porcelain").Run(); err != nil {
		t.Fatal(err)
	}
	base := []string{"--no-pager", "--no-optional-locks", "-c", "core.fsmonitor=false", "-c", "core.hooksPath=" + os.DevNull, "-c", "log.showSignature=false"}
	wantArgs := [][]string{
		append(slices.Clone(base), "config", "--null", "--get-regexp", `^filter\.`),
		append(slices.Clone(base),
			"-c", "filter.lfs.clean=", "-c", "filter.lfs.smudge=", "-c", "filter.lfs.process=", "-c", "filter.lfs.required=false",
			"-c", "filter.a.b.clean=", "-c", "filter.a.b.smudge=", "-c", "filter.a.b.process=", "-c", "filter.a.b.required=false",
			"status", "--porcelain"),
	}
	for i, want := range wantArgs {
		got := strings.Split(strings.TrimSuffix(read(t, filepath.Join(rec, "args"+strconv.Itoa(i))), "\n"), "\n")
		if !slices.Equal(got, want) {
			t.Errorf("command %d: git %q\nwant git %q", i, got, want)
		}
		env := strings.Split(read(t, filepath.Join(rec, "env"+strconv.Itoa(i))), "\n")
		for _, kv := range env {
			if strings.HasSuffix(kv, "=/bin/evil") {
				t.Errorf("command %d: git's environment holds %s", i, kv)
			}
		}
		for _, kv := range []string{"LC_ALL=C", "GIT_OPTIONAL_LOCKS=0", "GIT_TERMINAL_PROMPT=0", "GIT_ALLOW_PROTOCOL=", "GIT_NO_LAZY_FETCH=1", "GIT_CONFIG_GLOBAL=/kept"} {
			if !slices.Contains(env, kv) {
				t.Errorf("command %d: git's environment lacks %s", i, kv)
			}
		}
	}
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestNewFails: git not on the PATH is an *exec.Error; a folder outside any
// repository is no error; a configuration listing more filter settings
// than MaxConfig is refused at a bounded cost in memory; a git that hangs
// is given up when the context ends.
func TestNewFails(t *testing.T) {
	ctx := ctxT(t)
	var ee *exec.Error
	if _, err := gitexec.New(ctx, "profdb-test-no-such-git", ""); !errors.As(err, &ee) {
		t.Errorf("git missing: %v, want an *exec.Error", err)
	}
	if _, err := exec.LookPath("git"); err == nil {
		if _, err := gitexec.New(ctx, "", t.TempDir()); err != nil {
			t.Errorf("outside a repository: %v", err)
		}
	}
	if runtime.GOOS == "windows" {
		return
	}
	const outSize = 32 << 20
	big := filepath.Join(t.TempDir(), "git")
	if err := os.WriteFile(big, []byte("#!/bin/sh\nhead -c "+strconv.Itoa(outSize)+" /dev/zero | tr '\\0' M\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := gitexec.New(ctx, big, "")
	runtime.ReadMemStats(&after)
	if !errors.Is(err, gitexec.ErrConfig) {
		t.Errorf("%d bytes of filter settings: %v, want ErrConfig", outSize, err)
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > outSize/4 {
		t.Errorf("New allocated %d bytes for git's %d-byte answer: its output is not bounded", n, outSize)
	}
	slow := filepath.Join(t.TempDir(), "git")
	if err := os.WriteFile(slow, []byte("#!/bin/sh\nexec sleep 30\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	sctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	if _, err := gitexec.New(sctx, slow, ""); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("hanging git: %v, want the context's deadline", err)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("hanging git: New returned after %v, not when its context ended", d)
	}
}

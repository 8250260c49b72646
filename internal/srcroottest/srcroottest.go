package srcroottest

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// Attack is a file name that leads out of the root, or to a file that must
// not be read.
type Attack struct {
	What string // what it tries, for messages
	Name string // the name, as data would give it: relative to the root, or absolute
	// Secret is what the file it leads to holds, a Go identifier (so that
	// a Go parse error would show it); "" when there is nothing to leak.
	Secret string
}

// Tree is a source root and the attacks on it.
type Tree struct {
	Root    string // the source root: it holds go.mod (module Module) and Legit
	Module  string
	Legit   string // a Go file under the root, relative, slash-separated
	Attacks []Attack
	environ string // the longest entry of this process's /proc/self/environ
}

// LegitText is what the file Legit holds: a Go file with one function.
const LegitText = "package pkg\n\n// LegitSourceLine is in the file.\nfunc Legit() {\n\tprintln(\"legit\")\n}\n"

// envSecret is the secret of the attacks on /proc/self/environ: a test
// that runs a command puts Env in its environment. (A process's
// /proc/self/environ holds the environment it started with, so the
// secrets of the test process itself are the longest entry of its own,
// which Leaks looks for too.)
const envSecret = "leakedEnviron7f3a"

// Env is the environment entry that holds envSecret.
const Env = "PROFDB_SRCROOT_SECRET=" + envSecret

// New builds the tree in a temporary folder:
//
//	DIR/outside/…         secrets, each holding its Secret
//	DIR/a/etc/hostname    a secret two folders above the root
//	DIR/a/b/root          the root: go.mod, src/pkg/a.go, links out, a FIFO
//
// Attacks that the system cannot set up (links, FIFOs, /proc) are left out.
func New(t testing.TB) *Tree {
	t.Helper()
	dir := t.TempDir()
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	root := filepath.Join(dir, "a", "b", "root")
	tr := &Tree{Root: root, Module: "ex.org/m", Legit: "src/pkg/a.go"}
	WriteFile(t, filepath.Join(root, "go.mod"), "module ex.org/m\n\ngo 1.22\n")
	WriteFile(t, filepath.Join(root, filepath.FromSlash(tr.Legit)), LegitText)
	secret := func(rel, id string) string {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		WriteFile(t, p, id+"\n")
		return p
	}
	add := func(what, name, id string) {
		tr.Attacks = append(tr.Attacks, Attack{What: what, Name: name, Secret: id})
	}

	secret("outside/dotdot.txt", "leakedDotdot7f3a")
	add("a ../ chain", "../../../outside/dotdot.txt", "leakedDotdot7f3a")
	deep := secret("outside/deep.txt", "leakedDeep7f3a")
	add("a long ../ chain to an absolute path", strings.Repeat("../", 40)+noVolume(deep), "leakedDeep7f3a")
	valid := secret("outside/valid.go", "package leakedValidPackage7f3a\n\nfunc LeakedValid7f3a() {}")
	add("a ../ chain to a Go file", "../../../outside/valid.go", "LeakedValid7f3a")
	abs := secret("outside/abs.txt", "leakedAbsolute7f3a")
	add("an absolute path outside", abs, "leakedAbsolute7f3a")
	add("an absolute path to a Go file outside", valid, "LeakedValid7f3a")
	secret("a/etc/hostname", "leakedHostname7f3a")
	add(`C:\..\..\etc\hostname`, `C:\..\..\etc\hostname`, "leakedHostname7f3a")
	add(`..\..\etc\hostname`, `..\..\etc\hostname`, "leakedHostname7f3a")

	if env, err := os.ReadFile("/proc/self/environ"); err == nil && runtime.GOOS == "linux" {
		for _, e := range strings.Split(string(env), "\x00") {
			if len(e) > len(tr.environ) {
				tr.environ = e
			}
		}
		add("a ../ chain to /proc/self/environ", strings.Repeat("../", 40)+"proc/self/environ", envSecret)
		add("/proc/self/environ", "/proc/self/environ", envSecret)
	}
	link := secret("outside/link.txt", "leakedLink7f3a")
	if symlink(link, filepath.Join(root, "link.go")) {
		add("a link in the root pointing out", "link.go", "leakedLink7f3a")
	}
	secret("outside/dir/linkdir.go", "leakedLinkDir7f3a")
	if symlink(filepath.Join("..", "..", "..", "outside", "dir"), filepath.Join(root, "ext")) {
		add("a linked folder in the root pointing out", "ext/linkdir.go", "leakedLinkDir7f3a")
	}
	if runtime.GOOS == "linux" && symlink("/proc/self", filepath.Join(root, "self")) {
		add("a linked folder in the root pointing to /proc/self", "self/environ", envSecret)
	}
	if mkfifo(filepath.Join(root, "fifo.go")) == nil {
		add("a FIFO in the root", "fifo.go", "")
	}
	return tr
}

// symlink makes the link link to target and reports whether it is there:
// Wine 8's CreateSymbolicLink reports success and makes nothing.
func symlink(target, link string) bool {
	if os.Symlink(target, link) != nil {
		return false
	}
	_, err := os.Lstat(link)
	return err == nil
}

// noVolume is an absolute path without its volume and leading separator,
// slash-separated: what follows a ../ chain.
func noVolume(p string) string {
	return strings.TrimLeft(filepath.ToSlash(strings.TrimPrefix(p, filepath.VolumeName(p))), "/")
}

// WriteFile writes s to the file p, making its folders.
func WriteFile(t testing.TB, p, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Leaks returns the secrets of the attacks that s shows, and this
// process's environment.
func (tr *Tree) Leaks(s string) []string {
	var out []string
	if tr.environ != "" && strings.Contains(s, tr.environ) {
		out = append(out, "/proc/self/environ: "+tr.environ)
	}
	for _, a := range tr.Attacks {
		if a.Secret != "" && strings.Contains(s, a.Secret) {
			out = append(out, a.What+": "+a.Secret)
		}
	}
	return out
}

package srcroot

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/profdb/profdb/internal/srcroottest"
)

// marker is what the files outside the root hold: it must never come back.
const marker = "SECRET-MARKER-7f3a"

// tree makes a temporary folder holding root/ and, beside it, outside/
// with secret.txt (the marker); files are written under root/ as given
// (slash-separated name: contents). It returns the folder.
func tree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	srcroottest.WriteFile(t, filepath.Join(dir, "outside", "secret.txt"), marker)
	if err := os.MkdirAll(filepath.Join(dir, "root"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, s := range files {
		srcroottest.WriteFile(t, filepath.Join(dir, "root", filepath.FromSlash(name)), s)
	}
	return dir
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	// Wine 8's CreateSymbolicLink reports success and makes nothing.
	if _, err := os.Lstat(link); err != nil {
		t.Skipf("no symbolic links here: os.Symlink made no %s (%v)", link, err)
	}
}

func open(t *testing.T, dir string, o Options) *Root {
	t.Helper()
	r, err := Open(dir, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := r.Close(); err != nil {
			t.Error(err)
		}
	})
	return r
}

// refused checks that looking name up is refused (outside says whether
// for leading out of the root), and that nothing of the secret shows.
func refused(t *testing.T, r *Root, name string, outside bool) {
	t.Helper()
	f, err := r.Find(context.Background(), name)
	if f != nil {
		t.Fatalf("Find(%q) read %s: %q", name, f.Path, f.Data)
	}
	var re *RefusedError
	if !errors.Is(err, ErrRefused) || !errors.As(err, &re) || re.Outside != outside {
		t.Fatalf("Find(%q): %v (%#v), want a refusal (outside: %v)", name, err, re, outside)
	}
	if strings.Contains(err.Error(), marker) {
		t.Errorf("Find(%q): the error shows the file: %v", name, err)
	}
	if !strings.Contains(err.Error(), name) {
		t.Errorf("Find(%q): the error does not name the name: %v", name, err)
	}
}

// notFound checks that name is not found, and nothing of the secret shows.
func notFound(t *testing.T, r *Root, name string) {
	t.Helper()
	f, err := r.Find(context.Background(), name)
	if f != nil {
		t.Fatalf("Find(%q) read %s: %q", name, f.Path, f.Data)
	}
	if !errors.Is(err, fs.ErrNotExist) || errors.Is(err, ErrRefused) {
		t.Fatalf("Find(%q): %v, want not found", name, err)
	}
	if strings.Contains(err.Error(), marker) {
		t.Errorf("Find(%q): the error shows the file: %v", name, err)
	}
}

// found checks that name is found as the file rel under the root, holding
// want.
func found(t *testing.T, r *Root, name, rel, want string) {
	t.Helper()
	f, err := r.Find(context.Background(), name)
	if err != nil {
		t.Fatalf("Find(%q): %v", name, err)
	}
	if f.Rel != rel || string(f.Data) != want || f.Path != filepath.Join(r.Dir(), filepath.FromSlash(rel)) {
		t.Errorf("Find(%q) = %s (%s) holding %q, want %s holding %q", name, f.Rel, f.Path, f.Data, rel, want)
	}
}

func TestCandidates(t *testing.T) {
	for _, c := range []struct {
		name string
		want []string
	}{
		{"src/pkg/a.go", []string{"src/pkg/a.go", "pkg/a.go", "a.go"}},
		{"./src//a.go", []string{"src/a.go", "a.go"}},
		{`src\pkg\a.go`, []string{"src/pkg/a.go", "pkg/a.go", "a.go"}},
		{"/home/ci/src/a.go", []string{"home/ci/src/a.go", "ci/src/a.go", "src/a.go", "a.go"}},
		{`C:\build\src\a.go`, []string{"build/src/a.go", "src/a.go", "a.go"}},
		{`c:/build/a.go`, []string{"build/a.go", "a.go"}},
		{`C:a.go`, []string{"a.go"}},
		{`\\server\share\src\a.go`, []string{"server/share/src/a.go", "share/src/a.go", "src/a.go", "a.go"}},
		{`\\?\C:\src\a.go`, []string{"src/a.go", "a.go"}},
		{`\\?\UNC\server\share\a.go`, []string{"server/share/a.go", "share/a.go", "a.go"}},
		{`\\.\D:\a.go`, []string{"a.go"}},
		// ".." of an absolute name stops at its "/".
		{`C:\..\..\etc\hostname`, []string{"etc/hostname", "hostname"}},
		{"/../../etc/passwd", []string{"etc/passwd", "passwd"}},
		{"/home/ci/../x/a.go", []string{"home/x/a.go", "x/a.go", "a.go"}},
		// A relative name is tried as it is (the root refuses it if it
		// leads out), then by the tails past its last "..".
		{"../../etc/passwd", []string{"../../etc/passwd", "etc/passwd", "passwd"}},
		{"a/../b/c.go", []string{"a/../b/c.go", "b/c.go", "c.go"}},
		{"..", []string{".."}},
		{"", nil},
		{"/", nil},
		{`C:\`, nil},
	} {
		if got := Candidates(c.name); !reflect.DeepEqual(got, c.want) {
			t.Errorf("Candidates(%q) = %q, want %q", c.name, got, c.want)
		}
	}
}

func TestFindsFilesUnderTheRoot(t *testing.T) {
	dir := tree(t, map[string]string{
		"src/pkg/a.go":     "package pkg // src",
		"pkg/a.go":         "package pkg // top",
		"b.go":             "package b",
		"sample/conf.cpp":  "int x;",
		"deep/x/y/z/w.txt": "w",
	})
	r := open(t, filepath.Join(dir, "root"), Options{})
	found(t, r, "src/pkg/a.go", "src/pkg/a.go", "package pkg // src")
	found(t, r, `src\pkg\a.go`, "src/pkg/a.go", "package pkg // src")
	found(t, r, "other/pkg/a.go", "pkg/a.go", "package pkg // top")
	found(t, r, "src/../b.go", "src/../b.go", "package b")
	// Absolute names by their tail, the longest first.
	found(t, r, "/home/ci/build/src/pkg/a.go", "src/pkg/a.go", "package pkg // src")
	found(t, r, "/home/ci/build/lib/pkg/a.go", "pkg/a.go", "package pkg // top")
	found(t, r, `C:\src\sample\conf.cpp`, "sample/conf.cpp", "int x;")
	found(t, r, `\\server\share\sample\conf.cpp`, "sample/conf.cpp", "int x;")
	found(t, r, `\\?\D:\work\deep\x\y\z\w.txt`, "deep/x/y/z/w.txt", "w")
	// The absolute name of the very file under the root.
	found(t, r, filepath.Join(dir, "root", "b.go"), "b.go", "package b")
	// An exact relative name with ReadFile: no tails.
	f, err := r.ReadFile(context.Background(), "src/pkg/a.go")
	if err != nil || string(f.Data) != "package pkg // src" {
		t.Errorf("ReadFile: %v", err)
	}
	if _, err := r.ReadFile(context.Background(), "x/src/pkg/a.go"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadFile of a missing file: %v", err)
	}
	notFound(t, r, "nowhere/c.go")
	notFound(t, r, "b.go/c.go") // through a file
	notFound(t, r, "")
}

func TestLinksInsideTheRootAreFollowed(t *testing.T) {
	dir := tree(t, map[string]string{"real/a.go": "package a"})
	root := filepath.Join(dir, "root")
	symlink(t, "real", filepath.Join(root, "rel"))
	symlink(t, filepath.Join(root, "real"), filepath.Join(root, "abs"))
	symlink(t, "a.go", filepath.Join(root, "real", "b.go"))
	r := open(t, root, Options{})
	found(t, r, "rel/a.go", "rel/a.go", "package a")
	found(t, r, "abs/a.go", "abs/a.go", "package a")
	found(t, r, "real/b.go", "real/b.go", "package a")
	// The root itself may be a link.
	symlink(t, "root", filepath.Join(dir, "link"))
	found(t, open(t, filepath.Join(dir, "link"), Options{}), "real/a.go", "real/a.go", "package a")
}

func TestDotDotOutOfTheRootIsRefused(t *testing.T) {
	dir := tree(t, nil)
	r := open(t, filepath.Join(dir, "root"), Options{})
	refused(t, r, "../outside/secret.txt", true)
	refused(t, r, `..\outside\secret.txt`, true)
	refused(t, r, "a/../../outside/secret.txt", true)
	refused(t, r, "../../../../../../../../../../etc/passwd", true)
	refused(t, r, "../../../../../../../../../../proc/self/environ", true)
	if _, err := r.ReadFile(context.Background(), "../outside/secret.txt"); !errors.Is(err, ErrRefused) {
		t.Errorf("ReadFile: %v", err)
	}
}

func TestAbsoluteNamesAreNeverOpenedAsTheyAre(t *testing.T) {
	dir := tree(t, nil)
	r := open(t, filepath.Join(dir, "root"), Options{})
	secret := filepath.Join(dir, "outside", "secret.txt")
	notFound(t, r, secret)
	notFound(t, r, "/proc/self/environ")
	notFound(t, r, "/etc/passwd")
	notFound(t, r, `C:\..\..\etc\hostname`)
	notFound(t, r, `C:`+strings.ReplaceAll(secret, "/", `\`))
	if _, err := r.ReadFile(context.Background(), secret); !errors.Is(err, ErrRefused) {
		t.Errorf("ReadFile(%s): %v", secret, err)
	}
	// A file of the same tail under the root is the one read.
	srcroottest.WriteFile(t, filepath.Join(dir, "root", "outside", "secret.txt"), "inside")
	srcroottest.WriteFile(t, filepath.Join(dir, "root", "etc", "hostname"), "inside too")
	found(t, r, secret, "outside/secret.txt", "inside")
	found(t, r, `C:\..\..\etc\hostname`, "etc/hostname", "inside too")
}

func TestLinksOutOfTheRootAreRefused(t *testing.T) {
	dir := tree(t, nil)
	root := filepath.Join(dir, "root")
	secret := filepath.Join(dir, "outside", "secret.txt")
	symlink(t, secret, filepath.Join(root, "abs.txt"))
	symlink(t, filepath.Join("..", "outside", "secret.txt"), filepath.Join(root, "rel.txt"))
	symlink(t, filepath.Join(dir, "outside"), filepath.Join(root, "absdir"))
	symlink(t, filepath.Join("..", "outside"), filepath.Join(root, "reldir"))
	if err := os.Mkdir(filepath.Join(root, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	symlink(t, filepath.Join("..", "..", "outside"), filepath.Join(root, "sub", "up"))
	r := open(t, root, Options{})
	for _, name := range []string{"abs.txt", "rel.txt", "absdir/secret.txt", "reldir/secret.txt", "sub/up/secret.txt",
		`C:\ci\reldir\secret.txt`, "/home/ci/absdir/secret.txt"} {
		refused(t, r, name, true)
	}
	if _, err := r.ReadFile(context.Background(), "reldir/secret.txt"); !errors.Is(err, ErrRefused) {
		t.Errorf("ReadFile: %v", err)
	}
	// A name whose tail is under the root and not behind a link is read.
	srcroottest.WriteFile(t, filepath.Join(root, "secret.txt"), "inside")
	found(t, r, "absdir/secret.txt", "secret.txt", "inside")
}

func TestOnlyRegularFilesOfBoundedSizeAreRead(t *testing.T) {
	dir := tree(t, map[string]string{"ten.txt": "0123456789", "eleven.txt": "0123456789A", "d/x": ""})
	r := open(t, filepath.Join(dir, "root"), Options{MaxSize: 10})
	found(t, r, "ten.txt", "ten.txt", "0123456789")
	refused(t, r, "eleven.txt", false)
	refused(t, r, "d", false)
	// A refused candidate decides: no shorter tail is tried.
	srcroottest.WriteFile(t, filepath.Join(dir, "root", "big", "ten.txt"), "0123456789A")
	refused(t, r, "big/ten.txt", false)
	if r2 := open(t, filepath.Join(dir, "root"), Options{}); r2.max != DefaultMaxSize {
		t.Errorf("default limit %d", r2.max)
	}
}

func TestOpenChecksTheRoot(t *testing.T) {
	dir := tree(t, map[string]string{"f": "x"})
	for _, d := range []string{"", filepath.Join(dir, "root", "f"), filepath.Join(dir, "none")} {
		if r, err := Open(d, Options{}); err == nil {
			r.Close()
			t.Errorf("Open(%q) opened", d)
		}
	}
}

func TestCancelled(t *testing.T) {
	dir := tree(t, map[string]string{"a.go": "package a"})
	r := open(t, filepath.Join(dir, "root"), Options{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := r.Find(ctx, "a.go"); !errors.Is(err, context.Canceled) {
		t.Errorf("Find: %v", err)
	}
}

// TestAttacks runs srcroottest's attacks: each is refused or not found,
// and no error shows a secret.
func TestAttacks(t *testing.T) {
	tr := srcroottest.New(t)
	r := open(t, tr.Root, Options{})
	for _, a := range tr.Attacks {
		t.Run(a.What, func(t *testing.T) {
			f, err := r.Find(context.Background(), a.Name)
			if f != nil {
				t.Fatalf("Find(%q) read %s: %q", a.Name, f.Path, f.Data)
			}
			if !errors.Is(err, ErrRefused) && !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("Find(%q): %v", a.Name, err)
			}
			if leaks := tr.Leaks(err.Error()); len(leaks) > 0 {
				t.Errorf("Find(%q): %v shows %q", a.Name, err, leaks)
			}
		})
	}
	f, err := r.Find(context.Background(), "/home/ci/build/"+tr.Legit)
	if err != nil || string(f.Data) != srcroottest.LegitText {
		t.Errorf("the legit file: %v", err)
	}
}

package gocover

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/profdb/profdb/input"
	"github.com/profdb/profdb/internal/srcroot"
	"github.com/profdb/profdb/internal/srcroottest"
)

// TestSourcesOnlyUnderTheModule runs srcroottest's attacks through the
// reader: each one's file is refused or not found, never parsed, and no
// error or warning shows a secret; Go files under the module are read by
// import path, and absolute (POSIX or Windows) names by their tail.
func TestSourcesOnlyUnderTheModule(t *testing.T) {
	tr := srcroottest.New(t)
	profileName := func(name string) string {
		if srcroot.IsAbs(name) {
			return name
		}
		return tr.Module + "/" + name
	}
	for _, a := range tr.Attacks {
		t.Run(a.What, func(t *testing.T) {
			file := profileName(a.Name)
			_, err := readString(t, "p.out", "mode: set\n"+file+":4.14,6.2 1 1\n", input.Options{SourceRoot: tr.Root})
			if !errors.Is(err, input.ErrSourceNotFound) {
				t.Fatalf("error %v, want source not found", err)
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, "p.out:2: source file "+file+" ") ||
				!strings.Contains(msg, " refused: ") && !strings.Contains(msg, " not found ") {
				t.Errorf("error %q, want the file refused or not found", msg)
			}
			if leaks := tr.Leaks(msg); len(leaks) > 0 || strings.Contains(msg, "not Go source") || strings.Contains(msg, "expected") {
				t.Errorf("error %q shows the file (%q)", msg, leaks)
			}
		})
	}
	// Skipped with SkipMissing, beside the legit file under three names.
	var prof strings.Builder
	prof.WriteString("mode: set\n")
	legit := []string{tr.Module + "/" + tr.Legit, "/home/ci/build/" + tr.Legit, `C:\build\` + strings.ReplaceAll(tr.Legit, "/", `\`)}
	for _, name := range legit {
		fmt.Fprintf(&prof, "%s:4.14,6.2 1 1\n", name)
	}
	for _, a := range tr.Attacks {
		fmt.Fprintf(&prof, "%s:4.14,6.2 1 1\n", profileName(a.Name))
	}
	var warnings []string
	m, err := readString(t, "p.out", prof.String(), input.Options{SourceRoot: tr.Root, SkipMissing: true,
		Warnf: func(f string, a ...any) { warnings = append(warnings, fmt.Sprintf(f, a...)) }})
	if err != nil {
		t.Fatal(err)
	}
	if leaks := tr.Leaks(strings.Join(warnings, "\n")); len(leaks) > 0 {
		t.Errorf("warnings show %q", leaks)
	}
	if len(warnings) != len(tr.Attacks) {
		t.Errorf("%d warnings for %d attacks: %q", len(warnings), len(tr.Attacks), warnings)
	}
	rs := routines(t, m.Sets[0])
	var got []string
	for k, r := range rs {
		got = append(got, k)
		if r.Name != "Legit" || r.Count != 1 || r.Lines[5] != 1 {
			t.Errorf("routine %s: %+v", k, r)
		}
	}
	slices.Sort(got)
	want := make([]string, 0, len(legit))
	for _, name := range legit {
		want = append(want, name+":4:Legit")
	}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("routines %q, want %q", got, want)
	}
}

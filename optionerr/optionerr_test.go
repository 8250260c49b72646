package optionerr_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/profdb/profdb/optionerr"
)

var errUsage = errors.New("usage")

// A library user reads the Options fields; a command line its flags; both
// match the sentinel through any wrapping.
func TestError(t *testing.T) {
	e := optionerr.New(errUsage, "gate.Options", "%[1]s and %[2]s compare with a baseline: set %[3]s", "MaxDrop", "MaxTimeIncrease", "Baseline")
	err := fmt.Errorf("check: %w", e)
	if got, want := err.Error(), "check: gate.Options.MaxDrop and gate.Options.MaxTimeIncrease compare with a baseline: set gate.Options.Baseline"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	var oe *optionerr.Error
	if !errors.As(err, &oe) || !errors.Is(err, errUsage) {
		t.Fatalf("errors.As/Is do not find the option error in %v", err)
	}
	flags := map[string]string{"MaxDrop": "--max-drop", "MaxTimeIncrease": "--max-time-increase", "Baseline": "--baseline"}
	if got, want := oe.Phrase(func(f string) string { return flags[f] }), "--max-drop and --max-time-increase compare with a baseline: set --baseline"; got != want {
		t.Errorf("Phrase = %q, want %q", got, want)
	}
	if !oe.Names("Baseline") || oe.Names("Top") {
		t.Errorf("Names: Baseline %v, Top %v; want true, false", oe.Names("Baseline"), oe.Names("Top"))
	}
}

// A Field prints as the API names it; a command line swaps it for its flag.
func TestField(t *testing.T) {
	f := optionerr.Field{Type: "exporter.Options", Name: "NoDistribute"}
	if got, want := fmt.Sprintf("(%s keeps them plain)", f), "(exporter.Options.NoDistribute keeps them plain)"; got != want {
		t.Errorf("Sprintf = %q, want %q", got, want)
	}
}

package gate

import (
	"errors"
	"strings"
	"testing"

	"github.com/profdb/profdb/optionerr"
)

// TestOptionErrors: options that make no check are ErrUsage errors that
// name the Options fields at fault (not a command line's flags), and are
// refused before the database is read.
func TestOptionErrors(t *testing.T) {
	pct := func(v float64) *float64 { return &v }
	for _, c := range []struct {
		o      Options
		fields []string
		text   string
	}{
		{Options{}, []string{"MinCoverage", "MaxDrop", "MinPatchCoverage", "MaxTimeIncrease"},
			"check: no rule given: set gate.Options.MinCoverage, gate.Options.MaxDrop, gate.Options.MinPatchCoverage or gate.Options.MaxTimeIncrease"},
		{Options{MaxDrop: pct(1)}, []string{"MaxDrop", "MaxTimeIncrease", "Baseline"},
			"check: gate.Options.MaxDrop and gate.Options.MaxTimeIncrease compare with a baseline: set gate.Options.Baseline"},
		{Options{MinCoverage: pct(1), Baseline: 3}, []string{"Baseline", "MaxDrop", "MaxTimeIncrease"},
			"check: gate.Options.Baseline is for gate.Options.MaxDrop or gate.Options.MaxTimeIncrease"},
		{Options{MinPatchCoverage: pct(1)}, []string{"MinPatchCoverage", "Diff"},
			"check: gate.Options.MinPatchCoverage needs gate.Options.Diff"},
		{Options{MinCoverage: pct(101)}, []string{"MinCoverage"},
			"check: gate.Options.MinCoverage: 101 is not a percentage from 0 to 100"},
	} {
		_, err := Check(t.Context(), nil, 1, c.o) // nil: no database is read
		var oe *optionerr.Error
		if !errors.Is(err, ErrUsage) || !errors.As(err, &oe) || err.Error() != c.text || strings.Join(oe.Fields, ",") != strings.Join(c.fields, ",") || strings.Contains(err.Error(), "--") {
			t.Errorf("%+v: error %v (fields %v); want ErrUsage %q naming %v", c.o, err, oe, c.text, c.fields)
		}
	}
}

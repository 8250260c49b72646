package integration

import "testing"

// TestConformance runs the conformance suite on every target: SQLite
// always, the servers from their environment variables or containers (see
// Lookup).
func TestConformance(t *testing.T) {
	for _, name := range TargetNames {
		t.Run(name, func(t *testing.T) {
			tg := Lookup(t, name)
			t.Logf("%s: %s", name, tg.Origin)
			Conformance(t, tg)
		})
	}
}

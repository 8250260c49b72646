package main

import (
	"testing"
	"time"
)

// TestParseSince: --since takes a date, an RFC 3339 time, or an age as
// delete's --older-than takes it (weeks too), and refuses the rest.
func TestParseSince(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	for in, want := range map[string]time.Time{
		"2026-01-31":           time.Date(2026, 1, 31, 0, 0, 0, 0, time.UTC),
		"2026-01-31T10:00:00Z": time.Date(2026, 1, 31, 10, 0, 0, 0, time.UTC),
		"36h":                  now.Add(-36 * time.Hour),
		"30d":                  now.AddDate(0, 0, -30),
		" 2w ":                 now.AddDate(0, 0, -14),
	} {
		if got, err := parseSince(in, now); err != nil || !got.Equal(want) {
			t.Errorf("parseSince(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"yesterday", "-3h", "1.5d", ""} {
		if got, err := parseSince(in, now); err == nil {
			t.Errorf("parseSince(%q) = %v, want an error", in, got)
		}
	}
}

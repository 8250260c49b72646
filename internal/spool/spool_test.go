package spool

import (
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"
)

func collect(t *testing.T, s *Spool) [][]any {
	t.Helper()
	var out [][]any
	for row, err := range s.Rows() {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, row)
	}
	return out
}

func TestRoundTrip(t *testing.T) {
	for _, limit := range []int{1, 64, 1 << 20} {
		t.Run(fmt.Sprint(limit), func(t *testing.T) {
			dir := t.TempDir()
			s := New(limit, dir)
			want := [][]any{
				{int64(0), int64(-1), nil, "abc", 1.5},
				{},
				{int64(1) << 62, int64(-1) << 63, "", "ünïcode", -0.25},
			}
			for i := 0; i < 100; i++ {
				want = append(want, []any{int64(i), fmt.Sprint("row", i)})
			}
			for _, r := range want {
				if err := s.Append(r); err != nil {
					t.Fatal(err)
				}
			}
			if err := s.Append([]any{3}); err != nil { // int becomes int64
				t.Fatal(err)
			}
			want = append(want, []any{int64(3)})
			if s.Len() != int64(len(want)) {
				t.Errorf("Len %d, want %d", s.Len(), len(want))
			}
			if s.OnDisk() != (limit < 1<<20) {
				t.Errorf("OnDisk %v with limit %d", s.OnDisk(), limit)
			}
			got := collect(t, s)
			for i := range want {
				if len(want[i]) == 0 && len(got[i]) == 0 {
					continue
				}
				if !reflect.DeepEqual(got[i], want[i]) {
					t.Fatalf("row %d: got %#v, want %#v", i, got[i], want[i])
				}
			}
			// A second pass, after more rows, sees them all again.
			if err := s.Append([]any{"late"}); err != nil {
				t.Fatal(err)
			}
			if n := len(collect(t, s)); n != len(want)+1 {
				t.Errorf("second pass %d rows, want %d", n, len(want)+1)
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			ents, err := os.ReadDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			if len(ents) != 0 {
				t.Errorf("temporary file left behind: %v", ents)
			}
			if err := s.Append([]any{int64(1)}); err == nil {
				t.Error("Append after Close succeeded")
			}
		})
	}
}

func TestBadType(t *testing.T) {
	s := New(0, t.TempDir())
	if err := s.Append([]any{[]byte("x")}); err == nil {
		t.Fatal("[]byte accepted")
	}
	if s.Len() != 0 {
		t.Errorf("Len %d after failed Append", s.Len())
	}
}

func TestBreakEarly(t *testing.T) {
	s := New(8, t.TempDir())
	defer s.Close()
	for i := 0; i < 10; i++ {
		if err := s.Append([]any{int64(i)}); err != nil {
			t.Fatal(err)
		}
	}
	n := 0
	for range s.Rows() {
		n++
		if n == 3 {
			break
		}
	}
	if n != 3 {
		t.Errorf("n = %d", n)
	}
}

// TestNumbersAndBools: json.Number keeps its exact text and bools come back,
// from memory and from disk.
func TestNumbersAndBools(t *testing.T) {
	for _, limit := range []int{1 << 20, 1} {
		s := New(limit, t.TempDir())
		want := [][]any{
			{json.Number("18446744073709551615"), true, false, nil},
			{json.Number("-0.12345678e-3"), false, true, int64(-1)},
		}
		for _, r := range want {
			if err := s.Append(r); err != nil {
				t.Fatal(err)
			}
		}
		var got [][]any
		for r, err := range s.Rows() {
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, r)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("limit %d: got %#v, want %#v", limit, got, want)
		}
		if s.OnDisk() != (limit == 1) {
			t.Errorf("limit %d: on disk %v", limit, s.OnDisk())
		}
		s.Close()
	}
}

// TestIntegerDifferences: integers are kept as differences from the last
// integer at the same position; the extremes, rows of other widths and
// other values in between, and a refused row, change nothing of what comes
// back, from memory and from disk.
func TestIntegerDifferences(t *testing.T) {
	const minInt, maxInt = -1 << 63, 1<<63 - 1
	want := [][]any{
		{int64(minInt), int64(maxInt), int64(5)},
		{int64(maxInt), int64(minInt)},
		{int64(minInt), "text", int64(-5), int64(7)},
		{},
		{int64(0), nil, 2.5, int64(1) << 40},
		{int64(1), int64(maxInt), int64(minInt), int64(1)<<40 + 1},
	}
	for i := range 50 {
		want = append(want, []any{int64(1000 + i), int64(-i), int64(i * i * i * i)})
	}
	for _, limit := range []int{1 << 20, 1} {
		s := New(limit, t.TempDir())
		for i, r := range want {
			if err := s.Append(r); err != nil {
				t.Fatal(err)
			}
			if i == 2 {
				// Refused after its first two values: no change to the
				// differences of the rows after it.
				if err := s.Append([]any{int64(42), int64(43), []byte("x")}); err == nil {
					t.Fatal("[]byte accepted")
				}
			}
		}
		got := collect(t, s)
		if len(got) != len(want) {
			t.Fatalf("limit %d: %d rows, want %d", limit, len(got), len(want))
		}
		for i := range want {
			if len(want[i]) == 0 && len(got[i]) == 0 {
				continue
			}
			if !reflect.DeepEqual(got[i], want[i]) {
				t.Errorf("limit %d, row %d: got %#v, want %#v", limit, i, got[i], want[i])
			}
		}
		if s.OnDisk() != (limit == 1) {
			t.Errorf("limit %d: on disk %v", limit, s.OnDisk())
		}
		s.Close()
	}
}

// TestLongValues: strings and numbers from longValue bytes go to the file
// as they are, not through the row's encoding, which stays small, and come
// back whole, between the values around them; a row refused for a value
// of another type leaves nothing behind, long string or not.
func TestLongValues(t *testing.T) {
	long := strings.Repeat("ab", 1<<19) // 1 MiB
	num := json.Number("1" + strings.Repeat("0", longValue))
	s := New(0, t.TempDir())
	defer s.Close()
	want := [][]any{
		{int64(5), strings.Repeat("x", longValue-1), int64(7)},
		{int64(6), long, "after", long[:longValue], 2.5},
		{num, nil, int64(-3)},
	}
	for _, r := range want {
		if err := s.Append(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Append([]any{long, struct{}{}}); err == nil {
		t.Error("a value of another type after a long string was kept")
	}
	if !s.OnDisk() {
		t.Error("a row with a 1 MiB string is still in memory")
	}
	if c := cap(s.scratch); c > 2*longValue {
		t.Errorf("the row's encoding took %d bytes", c)
	}
	got := collect(t, s)
	if len(got) != len(want) {
		t.Fatalf("%d rows, want %d", len(got), len(want))
	}
	for i := range want {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Errorf("row %d differs", i)
		}
	}
}

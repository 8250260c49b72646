package dialecttest

import (
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestBulkRows: the round-trip rows, then one row for each string that
// text-based bulk formats must escape, the long nasty one first, then the
// dialect's own.
func TestBulkRows(t *testing.T) {
	for _, withNUL := range []bool{false, true} {
		base := RoundTripRows(withNUL)
		rows := BulkRows(withNUL, "\x00", "0x09")
		if !reflect.DeepEqual(rows[:len(base)], base) {
			t.Fatalf("withNUL %v: BulkRows does not start with RoundTripRows", withNUL)
		}
		var strs []string
		for i, r := range rows[len(base):] {
			if len(r) != 5 || r[0] != int64(100+i) || r[2] != nil || r[3] != nil || r[4] != nil {
				t.Fatalf("bulk row %d = %.60v, want INST_ID %d, a string and NULLs", i, r, 100+i)
			}
			strs = append(strs, r[1].(string))
		}
		want := []string{`\N`, `\\N`, "NULL", "\t", "\n", "\\", "\r\n", "a\\", " x\t\ty ", "\x00", "0x09"}
		if len(strs) != 1+len(want) || !reflect.DeepEqual(strs[1:], want) {
			t.Fatalf("bulk strings after the first = %q, want %q", strs[min(1, len(strs)):], want)
		}
		nasty := strs[0]
		if len(nasty) <= 1<<20 || !utf8.ValidString(nasty) || utf8.RuneCountInString(nasty) == len(nasty) {
			t.Errorf("the first bulk string is %d bytes: want over 1 MiB of valid non-ASCII text", len(nasty))
		}
		for _, c := range []string{"\t", "\n", "\r", "\\", "'", `"`, "`", `\N`, "NULL"} {
			if !strings.Contains(nasty, c) {
				t.Errorf("the first bulk string holds no %q", c)
			}
		}
	}
}

// TestSliceRows: the rows in order in one reused slice, then Err or
// io.EOF, every call counted.
func TestSliceRows(t *testing.T) {
	boom := errors.New("boom")
	r := &SliceRows{Rows: [][]any{{int64(1), "a"}, {int64(2), "b"}}, Err: boom}
	first, err := r.Next()
	if err != nil || !reflect.DeepEqual(first, []any{int64(1), "a"}) {
		t.Fatalf("first Next = %v, %v", first, err)
	}
	second, err := r.Next()
	if err != nil || !reflect.DeepEqual(second, []any{int64(2), "b"}) || &first[0] != &second[0] {
		t.Fatalf("second Next = %v, %v (reusing the slice: %v)", second, err, &first[0] == &second[0])
	}
	if _, err := r.Next(); err != boom {
		t.Errorf("after the rows: %v, want boom", err)
	}
	if r.Asked != 3 {
		t.Errorf("Asked = %d, want 3", r.Asked)
	}
	if _, err := (&SliceRows{}).Next(); err != io.EOF {
		t.Errorf("no rows: %v, want io.EOF", err)
	}
}

package readback_test

import (
	"reflect"
	"testing"

	"github.com/profdb/profdb/readback"
)

func TestTop(t *testing.T) {
	l := readback.NewTop(3, func(a, b int) bool { return a > b })
	for _, v := range []int{5, 1, 9, 7, 3, 9, 2} {
		l.Add(v)
	}
	if got := l.List(); !reflect.DeepEqual(got.Items, []int{9, 9, 7}) || got.Omitted() != 4 {
		t.Errorf("top %v omitted %d, want [9 9 7] omitted 4", got.Items, got.Omitted())
	}
	// Without an order it keeps the first n as they come.
	f := readback.NewTop[int](2, nil)
	for _, v := range []int{5, 1, 9} {
		f.Add(v)
	}
	if got := f.List(); !reflect.DeepEqual(got.Items, []int{5, 1}) || got.Total != 3 {
		t.Errorf("first %v of %d, want [5 1] of 3", got.Items, got.Total)
	}
	// None kept is an empty list, not a nil one (JSON []).
	if got := readback.NewTop[int](0, nil).List(); got.Items == nil {
		t.Error("an empty list has nil items")
	}
}

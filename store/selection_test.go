package store_test

import (
	"reflect"
	"testing"
	"time"

	"github.com/profdb/profdb/store"
)

func TestSelectionPick(t *testing.T) {
	list := []store.Listing{
		{InstID: 1, ExportedAt: "2026-01-01T00:00:00Z"},
		{InstID: 2},
		{InstID: 4, ExportedAt: "2026-03-01T00:00:00Z"},
		{InstID: 6, ExportedAt: "2026-01-10T12:00:00Z"},
		{InstID: 8},
	}
	cutoff := time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name    string
		sel     store.Selection
		ids     []int64
		undated int
		err     string
	}{
		{"ids", store.Selection{IDs: []int64{4, 2, 4}}, []int64{2, 4}, 0, ""},
		{"range holds only listed", store.Selection{Ranges: []store.Range{{2, 7}}}, []int64{2, 4, 6}, 0, ""},
		{"ids and ranges overlap", store.Selection{IDs: []int64{8, 4}, Ranges: []store.Range{{3, 4}}}, []int64{4, 8}, 0, ""},
		{"older", store.Selection{ExportedBefore: cutoff}, []int64{1, 6}, 2, ""},
		{"older and ids", store.Selection{IDs: []int64{8}, ExportedBefore: cutoff}, []int64{1, 6, 8}, 2, ""},
		{"older none", store.Selection{ExportedBefore: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)}, nil, 2, ""},
		{"id not listed", store.Selection{IDs: []int64{2, 3}}, nil, 0, "no result set 3 in INSTANCES"},
		{"empty range", store.Selection{Ranges: []store.Range{{9, 20}}}, nil, 0, "no result set in 9-20"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ids, undated, err := tc.sel.Pick(list)
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Fatalf("Pick: err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(ids, tc.ids) || undated != tc.undated {
				t.Errorf("Pick = %v, %d undated; want %v, %d", ids, undated, tc.ids, tc.undated)
			}
		})
	}
}

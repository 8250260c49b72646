package store

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Range is a range of INST_IDs, both ends included.
type Range struct{ From, To int64 }

// Selection names result sets by INST_ID, by range and by export time, as
// profdb delete does with --inst and --older-than. A result set is
// selected when any of them names it. profdb's --inst, in every command
// that takes it, is parsed by ParseSelection.
type Selection struct {
	// IDs are INST_IDs, each of which must be listed.
	IDs []int64
	// Ranges select the listed INST_IDs within them; each must hold at
	// least one.
	Ranges []Range
	// ExportedBefore, when not zero, selects the result sets exported
	// before it, by the export time PROFDB_RESULT_SETS records.
	ExportedBefore time.Time
}

// ParseSelection parses INST_IDs ("7") and ranges ("3-7", A <= B) into a
// selection's IDs and Ranges. INST_IDs are positive.
func ParseSelection(specs []string) (Selection, error) {
	var s Selection
	for _, spec := range specs {
		spec = strings.TrimSpace(spec)
		a, b, isRange := strings.Cut(spec, "-")
		from, err1 := strconv.ParseInt(strings.TrimSpace(a), 10, 64)
		to, err2 := from, error(nil)
		if isRange {
			to, err2 = strconv.ParseInt(strings.TrimSpace(b), 10, 64)
		}
		if err1 != nil || err2 != nil || from <= 0 || to < from {
			return Selection{}, fmt.Errorf("%q: want an INST_ID (1, 2, ...) or a range A-B with A <= B", spec)
		}
		if isRange {
			s.Ranges = append(s.Ranges, Range{from, to})
		} else {
			s.IDs = append(s.IDs, from)
		}
	}
	return s, nil
}

// Pick returns the INST_IDs of list that the selection names, ascending,
// each once, and, when ExportedBefore is set, how many listed result sets
// have no export time recorded (those it cannot select by age). It fails
// when an ID is not listed or a range holds no listed result set.
func (s Selection) Pick(list []Listing) (ids []int64, undated int, err error) {
	listed := map[int64]bool{}
	for _, l := range list {
		listed[l.InstID] = true
	}
	for _, id := range s.IDs {
		if !listed[id] {
			return nil, 0, &NoResultSetError{InstID: id}
		}
		ids = append(ids, id)
	}
	for _, r := range s.Ranges {
		found := false
		for _, l := range list {
			if l.InstID >= r.From && l.InstID <= r.To {
				ids = append(ids, l.InstID)
				found = true
			}
		}
		if !found {
			return nil, 0, fmt.Errorf("no result set in %d-%d", r.From, r.To)
		}
	}
	if !s.ExportedBefore.IsZero() {
		for _, l := range list {
			t, err := time.Parse(TimeFormat, l.ExportedAt)
			switch {
			case err != nil:
				undated++
			case t.Before(s.ExportedBefore):
				ids = append(ids, l.InstID)
			}
		}
	}
	slices.Sort(ids)
	return slices.Compact(ids), undated, nil
}

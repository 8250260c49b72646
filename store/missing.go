package store

import (
	"errors"
	"fmt"
)

// ErrMissingTable is matched by errors.Is in every error that says a
// documented table the work needs is not in the database
// (*MissingTableError).
var ErrMissingTable = errors.New("table is missing from the database")

// MissingTableError says that a documented table is not in the database:
// the one error, built here only, that the catalogue, readback, compare,
// check and merge give for it. InstID and Profiler name the result set
// that needs it, when one does (0 and "" otherwise).
type MissingTableError struct {
	Table    string
	InstID   int64
	Profiler string
}

func (e *MissingTableError) Error() string {
	if e.InstID != 0 {
		return fmt.Sprintf("result set %d (%s): table %s is missing from the database", e.InstID, e.Profiler, e.Table)
	}
	return fmt.Sprintf("table %s is missing from the database", e.Table)
}

// Is makes errors.Is(err, ErrMissingTable) hold.
func (e *MissingTableError) Is(target error) bool { return target == ErrMissingTable }

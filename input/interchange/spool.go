package interchange

import (
	"fmt"

	"github.com/profdb/profdb/internal/spool"
)

// A tableSpool holds the rows of a table that came before its parent table
// until they can be written: in memory while small, then in a temporary
// file (see internal/spool). Each spooled row is the line of its object in
// the input (for messages) followed by the row's values.
type tableSpool struct {
	ti        *tableInfo
	line, col int // where the table's name is, for messages
	s         *spool.Spool
	row       []any
}

func newSpool(ti *tableInfo, line, col int) (*tableSpool, error) {
	return &tableSpool{ti: ti, line: line, col: col, s: spool.New(0, "")}, nil
}

// add appends a row.
func (sp *tableSpool) add(row []any, line int) error {
	sp.row = append(append(sp.row[:0], int64(line)), row...)
	if err := sp.s.Append(sp.row); err != nil {
		return fmt.Errorf("spooling table %s: %w", sp.ti.name, err)
	}
	return nil
}

// replay hands every row to fn, in order.
func (sp *tableSpool) replay(fn func(row []any, line int) error) error {
	for row, err := range sp.s.Rows() {
		if err != nil {
			return fmt.Errorf("reading back spooled table %s: %w", sp.ti.name, err)
		}
		line, ok := row[0].(int64)
		if !ok || len(row) != len(sp.ti.cols)+1 {
			return fmt.Errorf("reading back spooled table %s: corrupt row", sp.ti.name)
		}
		if err := fn(row[1:], int(line)); err != nil {
			return err
		}
	}
	return nil
}

// close removes the temporary file, if any.
func (sp *tableSpool) close() { sp.s.Close() }

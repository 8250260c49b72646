package interchange

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"os"
)

// A spool holds the rows of a table that came before its parent table, in a
// temporary file, until they can be written. Each row is the line of its
// object in the input (for messages), then one tagged value per column:
//
//	tagNull | tagInt varint | tagNumber uvarint-length text |
//	tagString uvarint-length bytes | tagTrue | tagFalse
type spool struct {
	ti        *tableInfo
	line, col int // where the table's name is, for messages
	f         *os.File
	w         *bufio.Writer
	rows      int64
	buf       []byte
}

const (
	tagNull byte = iota
	tagInt
	tagNumber
	tagString
	tagTrue
	tagFalse
)

func newSpool(ti *tableInfo, line, col int) (*spool, error) {
	f, err := os.CreateTemp("", "profdb-interchange-*.spool")
	if err != nil {
		return nil, fmt.Errorf("spooling table %s: %w", ti.name, err)
	}
	return &spool{ti: ti, line: line, col: col, f: f, w: bufio.NewWriterSize(f, 64<<10)}, nil
}

// add appends a row.
func (sp *spool) add(row []any, line int) error {
	b := binary.AppendUvarint(sp.buf[:0], uint64(line))
	for _, v := range row {
		switch x := v.(type) {
		case nil:
			b = append(b, tagNull)
		case int64:
			b = binary.AppendVarint(append(b, tagInt), x)
		case json.Number:
			b = binary.AppendUvarint(append(b, tagNumber), uint64(len(x)))
			b = append(b, x...)
		case string:
			b = binary.AppendUvarint(append(b, tagString), uint64(len(x)))
			b = append(b, x...)
		case bool:
			if x {
				b = append(b, tagTrue)
			} else {
				b = append(b, tagFalse)
			}
		default:
			panic(fmt.Sprintf("interchange: spool: unexpected %T", v)) // the decoder produces no other type
		}
	}
	sp.buf = b
	if _, err := sp.w.Write(b); err != nil {
		return fmt.Errorf("spooling table %s: %w", sp.ti.name, err)
	}
	sp.rows++
	return nil
}

// replay hands every row to fn, in order, in one reused slice.
func (sp *spool) replay(fn func(row []any, line int) error) error {
	if err := sp.w.Flush(); err != nil {
		return fmt.Errorf("spooling table %s: %w", sp.ti.name, err)
	}
	if _, err := sp.f.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("spooling table %s: %w", sp.ti.name, err)
	}
	r := bufio.NewReaderSize(sp.f, 64<<10)
	row := make([]any, len(sp.ti.cols))
	bad := func(err error) error {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return fmt.Errorf("reading back spooled table %s: %w", sp.ti.name, err)
	}
	for range sp.rows {
		line, err := binary.ReadUvarint(r)
		if err != nil {
			return bad(err)
		}
		for i := range row {
			tag, err := r.ReadByte()
			if err != nil {
				return bad(err)
			}
			switch tag {
			case tagNull:
				row[i] = nil
			case tagInt:
				v, err := binary.ReadVarint(r)
				if err != nil {
					return bad(err)
				}
				row[i] = boxInt(v)
			case tagNumber, tagString:
				n, err := binary.ReadUvarint(r)
				if err != nil {
					return bad(err)
				}
				if n > 1<<40 {
					return bad(fmt.Errorf("corrupt length %d", n))
				}
				if uint64(cap(sp.buf)) < n {
					sp.buf = make([]byte, n)
				}
				b := sp.buf[:n]
				if _, err := io.ReadFull(r, b); err != nil {
					return bad(err)
				}
				if tag == tagNumber {
					row[i] = json.Number(b)
				} else {
					row[i] = string(b)
				}
			case tagTrue:
				row[i] = true
			case tagFalse:
				row[i] = false
			default:
				return bad(fmt.Errorf("corrupt tag %d", tag))
			}
		}
		if err := fn(row, int(line)); err != nil {
			return err
		}
	}
	return nil
}

// close removes the temporary file.
func (sp *spool) close() {
	sp.f.Close()
	os.Remove(sp.f.Name())
}

package spool

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"math"
	"os"
	"strings"
)

// DefaultMemLimit is the number of encoded bytes a Spool keeps in memory
// before it moves to a temporary file.
const DefaultMemLimit = 1 << 20

// Value tags of the encoding: each value is a tag byte followed by its data.
const (
	tagNil    = 0
	tagInt    = 1 // zig-zag varint of the difference from Spool.prev
	tagString = 2 // uvarint length, bytes
	tagFloat  = 3 // 8 bytes, IEEE 754 bits, little-endian
	tagNumber = 4 // uvarint length, the text of a json.Number
	tagTrue   = 5
	tagFalse  = 6
)

// Spool is an append-only sequence of rows. Each row is a slice of values of
// the types nil, int64, int, string, float64, json.Number and bool; they
// come back as they went in (int as int64). The zero Spool is not
// usable; call New. A Spool is not safe for concurrent use.
type Spool struct {
	memLimit int
	dir      string
	mem      bytes.Buffer
	f        *os.File
	w        *bufio.Writer
	size     int64 // bytes in the file (flushed or buffered)
	rows     int64
	err      error // sticky
	scratch  []byte
	// prev holds, for each position of a row, the last integer kept at
	// that position by any row before (0 for none). An integer is kept as
	// its difference from it: IDs that count up, and times and counts that
	// change little from one row to the next, take a byte or two instead
	// of three or more, which costs less to write and to read back.
	prev []int64
}

// New returns an empty Spool that keeps up to memLimit encoded bytes in
// memory (DefaultMemLimit if memLimit <= 0) and then moves to a temporary
// file in dir (os.TempDir() if dir is "").
func New(memLimit int, dir string) *Spool {
	if memLimit <= 0 {
		memLimit = DefaultMemLimit
	}
	return &Spool{memLimit: memLimit, dir: dir}
}

// Len returns the number of rows appended.
func (s *Spool) Len() int64 { return s.rows }

// OnDisk reports whether the spool has moved to a temporary file.
func (s *Spool) OnDisk() bool { return s.f != nil }

// Err returns the first error the spool met, if any.
func (s *Spool) Err() error { return s.err }

// longValue is the length from which a string or number goes to the
// temporary file as it is, after the bytes of the row before it, instead
// of being copied into the row's encoding first: a row holding a string of
// 16 MiB then takes no buffer of that size.
const longValue = 64 << 10

// Append adds a row. After an error every later Append returns it.
func (s *Spool) Append(row []any) error {
	if s.err != nil {
		return s.err
	}
	long := false
	for _, v := range row {
		switch x := v.(type) {
		case nil, int64, int, float64, bool:
		case string:
			long = long || len(x) >= longValue
		case json.Number:
			long = long || len(x) >= longValue
		default:
			return fmt.Errorf("spool: cannot keep a value of type %T", v)
		}
	}
	if long && s.f == nil {
		if err := s.toDisk(); err != nil {
			s.err = err
			return err
		}
	}
	b := s.scratch[:0]
	b = binary.AppendUvarint(b, uint64(len(row)))
	if len(s.prev) < len(row) {
		s.prev = append(s.prev, make([]int64, len(row)-len(s.prev))...)
	}
	var size int64 // bytes of long values written to the file
	for i, v := range row {
		switch x := v.(type) {
		case nil:
			b = append(b, tagNil)
		case int64:
			b = append(b, tagInt)
			b = binary.AppendVarint(b, x-s.prev[i])
		case int:
			b = append(b, tagInt)
			b = binary.AppendVarint(b, int64(x)-s.prev[i])
		case string:
			b = append(b, tagString)
			b = binary.AppendUvarint(b, uint64(len(x)))
			if len(x) < longValue {
				b = append(b, x...)
				break
			}
			if err := s.writeFile(b); err != nil {
				return err
			}
			if _, err := s.w.WriteString(x); err != nil {
				s.err = fmt.Errorf("spool: %w", err)
				return s.err
			}
			size += int64(len(b) + len(x))
			b = b[:0]
		case float64:
			b = append(b, tagFloat)
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(x))
		case json.Number:
			b = append(b, tagNumber)
			b = binary.AppendUvarint(b, uint64(len(x)))
			b = append(b, x...)
		case bool:
			if x {
				b = append(b, tagTrue)
			} else {
				b = append(b, tagFalse)
			}
		}
	}
	s.scratch = b
	for i, v := range row { // only once the row is whole: a refused row changes nothing
		switch x := v.(type) {
		case int64:
			s.prev[i] = x
		case int:
			s.prev[i] = int64(x)
		}
	}
	if s.f == nil && s.mem.Len()+len(b) > s.memLimit {
		if err := s.toDisk(); err != nil {
			s.err = err
			return err
		}
	}
	if s.f != nil {
		if err := s.writeFile(b); err != nil {
			return err
		}
		s.size += size + int64(len(b))
	} else {
		s.mem.Write(b)
	}
	s.rows++
	return nil
}

// writeFile writes b to the temporary file's buffer.
func (s *Spool) writeFile(b []byte) error {
	if _, err := s.w.Write(b); err != nil {
		s.err = fmt.Errorf("spool: %w", err)
		return s.err
	}
	return nil
}

func (s *Spool) toDisk() error {
	f, err := os.CreateTemp(s.dir, "profdb-spool-*")
	if err != nil {
		return fmt.Errorf("spool: %w", err)
	}
	s.f = f
	s.w = bufio.NewWriterSize(f, 64<<10)
	n, err := s.w.Write(s.mem.Bytes())
	s.size = int64(n)
	s.mem = bytes.Buffer{}
	if err != nil {
		return fmt.Errorf("spool: %w", err)
	}
	return nil
}

// Rows returns an iterator over the rows appended so far, in order. Each
// row is a new slice. Rows may be called any number of times; rows appended
// while an iteration runs are not part of it. A read error ends the
// iteration with that error.
func (s *Spool) Rows() iter.Seq2[[]any, error] {
	return func(yield func([]any, error) bool) {
		if s.err != nil {
			yield(nil, s.err)
			return
		}
		var r *bufio.Reader
		n := s.rows
		if s.f != nil {
			if err := s.w.Flush(); err != nil {
				s.err = fmt.Errorf("spool: %w", err)
				yield(nil, s.err)
				return
			}
			r = bufio.NewReaderSize(io.NewSectionReader(s.f, 0, s.size), 64<<10)
		} else {
			r = bufio.NewReader(bytes.NewReader(s.mem.Bytes()))
		}
		var prev []int64
		for i := int64(0); i < n; i++ {
			row, err := decode(r, &prev)
			if err != nil {
				yield(nil, fmt.Errorf("spool: row %d: %w", i+1, err))
				return
			}
			if !yield(row, nil) {
				return
			}
		}
	}
}

var errCorrupt = errors.New("corrupt spool data")

func decode(r *bufio.Reader, prev *[]int64) ([]any, error) {
	n, err := binary.ReadUvarint(r)
	if err != nil {
		return nil, err
	}
	if n > 1<<16 {
		return nil, errCorrupt
	}
	if len(*prev) < int(n) {
		*prev = append(*prev, make([]int64, int(n)-len(*prev))...)
	}
	p := *prev
	row := make([]any, n)
	for i := range row {
		tag, err := r.ReadByte()
		if err != nil {
			return nil, err
		}
		switch tag {
		case tagNil:
		case tagInt:
			d, err := binary.ReadVarint(r)
			if err != nil {
				return nil, err
			}
			p[i] += d
			row[i] = p[i]
		case tagString, tagNumber:
			l, err := binary.ReadUvarint(r)
			if err != nil {
				return nil, err
			}
			if l > math.MaxInt32 {
				return nil, errCorrupt
			}
			var v string
			if l < longValue {
				buf := make([]byte, l)
				if _, err := io.ReadFull(r, buf); err != nil {
					return nil, err
				}
				v = string(buf)
			} else {
				// Read into the string itself: no buffer of its size.
				var b strings.Builder
				b.Grow(int(l))
				if _, err := io.CopyN(&b, r, int64(l)); err != nil {
					if err == io.EOF {
						err = io.ErrUnexpectedEOF
					}
					return nil, err
				}
				v = b.String()
			}
			if tag == tagNumber {
				row[i] = json.Number(v)
			} else {
				row[i] = v
			}
		case tagTrue:
			row[i] = true
		case tagFalse:
			row[i] = false
		case tagFloat:
			var buf [8]byte
			if _, err := io.ReadFull(r, buf[:]); err != nil {
				return nil, err
			}
			row[i] = math.Float64frombits(binary.LittleEndian.Uint64(buf[:]))
		default:
			return nil, errCorrupt
		}
	}
	return row, nil
}

// Close removes the temporary file, if any. The spool is then empty and
// unusable.
func (s *Spool) Close() error {
	s.mem = bytes.Buffer{}
	if s.f == nil {
		if s.err == nil {
			s.err = errors.New("spool: closed")
		}
		return nil
	}
	name := s.f.Name()
	err := s.f.Close()
	if rerr := os.Remove(name); err == nil {
		err = rerr
	}
	s.f, s.w = nil, nil
	s.err = errors.New("spool: closed")
	return err
}

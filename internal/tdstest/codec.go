package tdstest

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/big"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf16"
)

func isCharType(id byte) bool {
	return id == TypeBigVarChar || id == TypeBigChar || id == TypeNVarChar || id == TypeNChar
}

// reader decodes little-endian TDS data from a message; the first error
// sticks and makes every later read return zero values.
type reader struct {
	b   []byte
	off int
	err error
}

func (r *reader) fail(format string, a ...any) {
	if r.err == nil {
		r.err = fmt.Errorf("tdstest: "+format, a...)
	}
}

func (r *reader) more() bool { return r.err == nil && r.off < len(r.b) }

func (r *reader) next(n int) []byte {
	if r.err != nil {
		return nil
	}
	if n < 0 || len(r.b)-r.off < n {
		r.fail("message truncated: need %d bytes at offset %d of %d", n, r.off, len(r.b))
		return nil
	}
	b := r.b[r.off : r.off+n : r.off+n]
	r.off += n
	return b
}

// uint reads an n-byte little-endian unsigned integer.
func (r *reader) uint(n int) uint64 {
	var v uint64
	for i, c := range r.next(n) {
		v |= uint64(c) << (8 * i)
	}
	return v
}

func (r *reader) u8() byte               { return byte(r.uint(1)) }
func (r *reader) u16() uint16            { return uint16(r.uint(2)) }
func (r *reader) u32() uint32            { return uint32(r.uint(4)) }
func (r *reader) u64() uint64            { return r.uint(8) }
func (r *reader) ucs2(nchars int) string { return decodeUCS2(r.next(2 * nchars)) }
func (r *reader) bvarchar() string       { return r.ucs2(int(r.u8())) }

func decodeUCS2(b []byte) string {
	u := make([]uint16, len(b)/2)
	for i := range u {
		u[i] = binary.LittleEndian.Uint16(b[2*i:])
	}
	return string(utf16.Decode(u))
}

func encodeUCS2(s string) []byte {
	u := utf16.Encode([]rune(s))
	b := make([]byte, 2*len(u))
	for i, c := range u {
		binary.LittleEndian.PutUint16(b[2*i:], c)
	}
	return b
}

// readTypeInfo decodes a TYPE_INFO (MS-TDS 2.2.5.6).
func (r *reader) typeInfo() TypeInfo {
	ti := TypeInfo{ID: r.u8()}
	switch lenClass(ti.ID) {
	case fixedLen:
		ti.Size = typeDescs[ti.ID].size
	case byteLen:
		ti.Size = int(r.u8())
		if ti.ID == TypeDecimalN || ti.ID == TypeNumericN {
			ti.Precision, ti.Scale = r.u8(), r.u8()
		}
	case ushortLen:
		ti.Size = int(r.u16())
		if isCharType(ti.ID) {
			copy(ti.Collation[:], r.next(5))
		}
	default:
		r.fail("unsupported TDS type 0x%02X", ti.ID)
	}
	return ti
}

// value decodes one value of type ti (MS-TDS 2.2.5.5 TYPE_VARBYTE).
func (r *reader) value(ti TypeInfo) any {
	var b []byte
	switch lenClass(ti.ID) {
	case fixedLen:
		if ti.ID == TypeNull {
			return nil
		}
		b = r.next(ti.Size)
	case byteLen:
		n := int(r.u8())
		if n == 0 {
			return nil
		}
		b = r.next(n)
	case ushortLen:
		if ti.Size == MaxSize {
			return r.plp(ti)
		}
		n := r.u16()
		if n == 0xFFFF {
			return nil
		}
		b = r.next(int(n))
	}
	if r.err != nil {
		return nil
	}
	v, err := decodeData(ti, b)
	if err != nil {
		r.fail("%v", err)
	}
	return v
}

// plp decodes a partially length-prefixed value (MS-TDS 2.2.5.2.3).
func (r *reader) plp(ti TypeInfo) any {
	total := r.u64()
	if total == math.MaxUint64 {
		return nil
	}
	var data []byte
	for r.err == nil {
		n := r.u32()
		if n == 0 {
			break
		}
		data = append(data, r.next(int(n))...)
	}
	if r.err != nil {
		return nil
	}
	if total != math.MaxUint64-1 && total != uint64(len(data)) {
		r.fail("PLP length %d announced, %d sent", total, len(data))
	}
	v, _ := decodeData(ti, data)
	return v
}

// decodeData turns the bytes of a non-NULL value into a Go value.
func decodeData(ti TypeInfo, b []byte) (any, error) {
	n := len(b)
	le := binary.LittleEndian
	switch ti.ID {
	case TypeInt1, TypeInt2, TypeInt4, TypeInt8, TypeIntN:
		switch n {
		case 1:
			return int64(b[0]), nil
		case 2:
			return int64(int16(le.Uint16(b))), nil
		case 4:
			return int64(int32(le.Uint32(b))), nil
		case 8:
			return int64(le.Uint64(b)), nil
		}
	case TypeFlt4, TypeFlt8, TypeFltN:
		switch n {
		case 4:
			return float64(math.Float32frombits(le.Uint32(b))), nil
		case 8:
			return math.Float64frombits(le.Uint64(b)), nil
		}
	case TypeDecimalN, TypeNumericN:
		if n >= 2 {
			mag := make([]byte, n-1)
			for i := range mag {
				mag[i] = b[n-1-i] // little-endian magnitude to big-endian
			}
			x := new(big.Int).SetBytes(mag)
			if b[0] == 0 {
				x.Neg(x)
			}
			return formatDecimal(x, int(ti.Scale)), nil
		}
	case TypeBigChar, TypeBigVarChar:
		return string(b), nil
	case TypeNChar, TypeNVarChar:
		return decodeUCS2(b), nil
	}
	return nil, fmt.Errorf("invalid length %d for %s", n, ti)
}

// formatDecimal formats the unscaled integer x with scale digits after the
// decimal point.
func formatDecimal(x *big.Int, scale int) string {
	digits := new(big.Int).Abs(x).String()
	if scale > 0 {
		if len(digits) <= scale {
			digits = strings.Repeat("0", scale-len(digits)+1) + digits
		}
		digits = digits[:len(digits)-scale] + "." + digits[len(digits)-scale:]
	}
	if x.Sign() < 0 {
		return "-" + digits
	}
	return digits
}

// parseDecimal parses a decimal string into an integer scaled by 10^scale.
func parseDecimal(s string, scale int) (*big.Int, error) {
	s = strings.TrimSpace(s)
	intPart, frac, _ := strings.Cut(s, ".")
	frac = strings.TrimRight(frac, "0")
	if len(frac) > scale {
		return nil, fmt.Errorf("decimal %q has more than %d digits after the point", s, scale)
	}
	x, ok := new(big.Int).SetString(intPart+frac+strings.Repeat("0", scale-len(frac)), 10)
	if !ok {
		return nil, fmt.Errorf("invalid decimal %q", s)
	}
	return x, nil
}

// writer builds a TDS message.
type writer struct{ b []byte }

func (w *writer) u8(v byte)      { w.b = append(w.b, v) }
func (w *writer) u16(v uint16)   { w.b = binary.LittleEndian.AppendUint16(w.b, v) }
func (w *writer) u32(v uint32)   { w.b = binary.LittleEndian.AppendUint32(w.b, v) }
func (w *writer) u64(v uint64)   { w.b = binary.LittleEndian.AppendUint64(w.b, v) }
func (w *writer) bytes(b []byte) { w.b = append(w.b, b...) }

func (w *writer) bvarchar(s string) {
	u := encodeUCS2(s)
	w.u8(byte(len(u) / 2))
	w.bytes(u)
}

func (w *writer) usvarchar(s string) {
	u := encodeUCS2(s)
	w.u16(uint16(len(u) / 2))
	w.bytes(u)
}

// typeInfo encodes a TYPE_INFO; it mirrors reader.typeInfo.
func (w *writer) typeInfo(ti TypeInfo) {
	w.u8(ti.ID)
	switch lenClass(ti.ID) {
	case byteLen:
		w.u8(byte(ti.Size))
		if ti.ID == TypeDecimalN || ti.ID == TypeNumericN {
			w.u8(ti.Precision)
			w.u8(ti.Scale)
		}
	case ushortLen:
		w.u16(uint16(ti.Size))
		if isCharType(ti.ID) {
			if ti.Collation == ([5]byte{}) {
				ti.Collation = defaultCollation
			}
			w.bytes(ti.Collation[:])
		}
	}
}

// value encodes one result value of type ti; nil is NULL.
func (w *writer) value(ti TypeInfo, v any) error {
	if v == nil {
		switch {
		case lenClass(ti.ID) == byteLen:
			w.u8(0)
		case ti.Size == MaxSize:
			w.u64(math.MaxUint64)
		case lenClass(ti.ID) == ushortLen:
			w.u16(0xFFFF)
		default:
			return fmt.Errorf("NULL is not supported for %s", ti)
		}
		return nil
	}
	b, err := encodeData(ti, v)
	if err != nil {
		return err
	}
	switch {
	case lenClass(ti.ID) == byteLen:
		w.u8(byte(len(b)))
	case ti.Size == MaxSize:
		w.u64(uint64(len(b)))
		if len(b) > 0 {
			w.u32(uint32(len(b)))
			w.bytes(b)
		}
		w.u32(0)
		return nil
	default:
		if len(b) > ti.Size {
			return fmt.Errorf("value of %d bytes does not fit %s", len(b), ti)
		}
		w.u16(uint16(len(b)))
	}
	w.bytes(b)
	return nil
}

func encodeData(ti TypeInfo, v any) ([]byte, error) {
	le := binary.LittleEndian
	i, isInt := toInt64(v)
	switch ti.ID {
	case TypeIntN:
		if isInt {
			b := le.AppendUint64(nil, uint64(i))
			return b[:ti.Size], nil
		}
	case TypeFltN:
		f, ok := v.(float64)
		if !ok && isInt {
			f, ok = float64(i), true
		}
		if ok && ti.Size == 4 {
			return le.AppendUint32(nil, math.Float32bits(float32(f))), nil
		}
		if ok {
			return le.AppendUint64(nil, math.Float64bits(f)), nil
		}
	case TypeDecimalN, TypeNumericN:
		return encodeDecimal(ti, v)
	case TypeNVarChar, TypeNChar:
		if s, ok := v.(string); ok {
			return encodeUCS2(s), nil
		}
	case TypeBigVarChar, TypeBigChar:
		switch x := v.(type) {
		case []byte:
			return x, nil
		case string:
			return []byte(x), nil
		}
	default:
		return nil, fmt.Errorf("result columns of type %s are not supported", ti)
	}
	return nil, fmt.Errorf("cannot send %T as %s", v, ti)
}

func encodeDecimal(ti TypeInfo, v any) ([]byte, error) {
	s := fmt.Sprint(v) // strings, integers and fmt.Stringers
	if f, ok := v.(float64); ok {
		s = strconv.FormatFloat(f, 'f', -1, 64)
	}
	x, err := parseDecimal(s, int(ti.Scale))
	if err != nil {
		return nil, err
	}
	n := ti.Size - 1
	mag := new(big.Int).Abs(x).Bytes()
	if len(mag) > n || len(new(big.Int).Abs(x).String()) > int(ti.Precision) {
		return nil, fmt.Errorf("decimal %s does not fit %s", s, ti)
	}
	b := make([]byte, 1+n)
	if x.Sign() >= 0 {
		b[0] = 1
	}
	for i, c := range mag {
		b[len(mag)-i] = c // big-endian magnitude to little-endian
	}
	return b, nil
}

func toInt64(v any) (int64, bool) {
	switch rv := reflect.ValueOf(v); {
	case rv.CanInt():
		return rv.Int(), true
	case rv.CanUint():
		return int64(rv.Uint()), rv.Uint() <= math.MaxInt64
	}
	return 0, false
}

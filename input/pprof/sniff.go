package pprof

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"io"
)

// Sniff reports whether head starts like a protobuf pprof profile, gzipped
// (as Go writes them) or not. For gzip it decompresses what head holds
// (up to 4 KiB of output) and checks that instead: a gzipped file of
// another kind is not taken.
//
// The check walks the protobuf fields: every one must be a field of the
// Profile message with its wire type (the last may be cut off by the end of
// head), at least two must be complete, and among them a sample_type whose
// content is a ValueType (two varints). Text files fail at once: their
// bytes make field numbers or wire types a Profile does not have, or
// lengths past the end.
func Sniff(head []byte) bool {
	if isGzip(head) {
		zr, err := gzip.NewReader(bytes.NewReader(head))
		if err != nil {
			return false
		}
		buf := make([]byte, 4096)
		n, _ := io.ReadFull(zr, buf)
		return looksLikeProfile(buf[:n])
	}
	return looksLikeProfile(head)
}

// Wire types of protobuf.
const (
	wireVarint = 0
	wireBytes  = 2
)

// profileWire gives the wire type of each field of the Profile message
// (profile.proto); packed repeated integers (field 13, comment) may come
// either way.
var profileWire = map[uint64]int{
	1: wireBytes, 2: wireBytes, 3: wireBytes, 4: wireBytes, 5: wireBytes, 6: wireBytes,
	7: wireVarint, 8: wireVarint, 9: wireVarint, 10: wireVarint, 11: wireBytes,
	12: wireVarint, 13: -1, 14: wireVarint,
}

func looksLikeProfile(b []byte) bool {
	complete, valueType := 0, false
	for len(b) > 0 {
		tag, n := binary.Uvarint(b)
		if n <= 0 {
			return n == 0 && complete >= 2 && valueType // cut off inside the tag
		}
		b = b[n:]
		field, wt := tag>>3, int(tag&7)
		want, ok := profileWire[field]
		if !ok || (want >= 0 && wt != want) || (want < 0 && wt != wireVarint && wt != wireBytes) {
			return false
		}
		switch wt {
		case wireVarint:
			_, n := binary.Uvarint(b)
			if n < 0 {
				return false
			}
			if n == 0 {
				return complete >= 2 && valueType
			}
			b = b[n:]
		case wireBytes:
			l, n := binary.Uvarint(b)
			if n < 0 {
				return false
			}
			if n == 0 || l > uint64(len(b)-n) {
				return complete >= 2 && valueType
			}
			body := b[n : n+int(l)]
			if field == 1 || field == 11 { // sample_type, period_type: ValueType
				if !isValueType(body) {
					return false
				}
				valueType = valueType || field == 1
			}
			b = b[n+int(l):]
		}
		complete++
	}
	return complete >= 2 && valueType
}

// isValueType reports whether b is a ValueType message: the varint fields
// type (1) and unit (2), string table indexes.
func isValueType(b []byte) bool {
	for len(b) > 0 {
		tag, n := binary.Uvarint(b)
		if n <= 0 || (tag != 1<<3 && tag != 2<<3) {
			return false
		}
		_, m := binary.Uvarint(b[n:])
		if m <= 0 {
			return false
		}
		b = b[n+m:]
	}
	return true
}

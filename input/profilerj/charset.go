package profilerj

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// cp1252 maps the bytes 0x80-0x9F of windows-1252 to runes; the rest of the
// code page is ISO-8859-1.
var cp1252 = [32]rune{
	0x20AC, 0xFFFD, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0xFFFD, 0x017D, 0xFFFD,
	0xFFFD, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0xFFFD, 0x017E, 0x0178,
}

// charsetReader converts the single-byte encodings a Java program may
// declare (ISO-8859-1, windows-1252, US-ASCII) to UTF-8. UTF-8 (and UTF-16
// declared on UTF-8 text, as Go's decoder reads it) needs no conversion.
func charsetReader(charset string, in io.Reader) (io.Reader, error) {
	switch strings.ToLower(strings.TrimSpace(charset)) {
	case "iso-8859-1", "iso8859-1", "iso_8859-1", "latin1", "latin-1", "l1":
		return &singleByte{r: bufio.NewReader(in)}, nil
	case "windows-1252", "cp1252", "x-cp1252":
		return &singleByte{r: bufio.NewReader(in), win: true}, nil
	case "us-ascii", "ascii":
		return &singleByte{r: bufio.NewReader(in), ascii: true}, nil
	}
	return nil, fmt.Errorf("unsupported encoding %q (want UTF-8, ISO-8859-1, windows-1252 or US-ASCII)", charset)
}

type singleByte struct {
	r          *bufio.Reader
	win, ascii bool
	pend       []byte
}

func (s *singleByte) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		if len(s.pend) > 0 {
			c := copy(p[n:], s.pend)
			s.pend = s.pend[c:]
			n += c
			continue
		}
		b, err := s.r.ReadByte()
		if err != nil {
			if n > 0 {
				return n, nil
			}
			return 0, err
		}
		if b < 0x80 {
			p[n] = b
			n++
			continue
		}
		if s.ascii {
			return n, fmt.Errorf("byte 0x%02X in a file declared US-ASCII", b)
		}
		r := rune(b)
		if s.win && b < 0xA0 {
			r = cp1252[b-0x80]
		}
		var buf [utf8.UTFMax]byte
		s.pend = buf[:utf8.EncodeRune(buf[:], r)]
	}
	return n, nil
}

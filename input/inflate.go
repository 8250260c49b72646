package input

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/profdb/profdb/optionerr"
)

// The default limit on what a compressed input inflates to: InflateRatio
// times the compressed bytes read so far, and never less than
// InflateFloor. Real profiles compress 5 to 20 times; deflate's own limit
// is 1032.
const (
	InflateRatio = 100
	InflateFloor = 256 << 20
)

// ErrInflateLimit is matched by errors.Is in the error of a reader whose
// compressed input inflates past its limit (Options.MaxInflate).
var ErrInflateLimit = errors.New("input: inflates past the limit")

// Inflated limits what the decompressing reader inflated yields, the
// compressed bytes being read through the reader compressed (wrap the
// source with it before the decompressor reads it): past the limit, a
// Read fails with an error naming the limit and the option
// (Options.MaxInflate, an *optionerr.Error) that raises it. Nothing is allocated from what a header claims: the
// count is of the bytes actually produced.
func Inflated(compressed *CountingReader, inflated io.Reader, o Options) io.Reader {
	return &inflateLimit{in: compressed, r: inflated, max: o.MaxInflate}
}

// CountingReader counts the bytes read through it.
type CountingReader struct {
	R io.Reader
	N int64
}

func (c *CountingReader) Read(p []byte) (int, error) {
	n, err := c.R.Read(p)
	c.N += int64(n)
	return n, err
}

type inflateLimit struct {
	in  *CountingReader
	r   io.Reader
	max int64 // 0: the default
	out int64
}

// limit returns the limit now, and how it is made and raised for the
// message (a format naming Options.MaxInflate with %[1]s).
func (l *inflateLimit) limit() (int64, string) {
	if l.max > 0 {
		return l.max, "%[1]s); a larger %[1]s raises the limit"
	}
	lim := max(InflateFloor, InflateRatio*l.in.N)
	return lim, fmt.Sprintf("the default: %d times the %s of compressed input read, at least %s); %%[1]s raises the limit", InflateRatio, Size(l.in.N), Size(InflateFloor))
}

func (l *inflateLimit) Read(p []byte) (int, error) {
	lim, _ := l.limit()
	if l.out >= lim {
		// One more byte tells a stream that ends exactly at the limit
		// from one that goes on.
		var b [1]byte
		if n, err := l.r.Read(b[:]); n == 0 {
			return 0, err
		}
		lim, how := l.limit()
		if l.out < lim {
			p[0] = b[0]
			l.out++
			return 1, nil
		}
		return 0, optionerr.New(ErrInflateLimit, "input.Options", "decompresses to more than "+Size(lim)+" ("+how, "MaxInflate")
	}
	if int64(len(p)) > lim-l.out {
		p = p[:lim-l.out]
	}
	n, err := l.r.Read(p)
	l.out += int64(n)
	return n, err
}

// Size writes a number of bytes for a message: "512 bytes", "1.5 MiB",
// "4 GiB".
func Size(n int64) string {
	const unit = 1024
	if n < unit {
		return strconv.FormatInt(n, 10) + " bytes"
	}
	v, u := float64(n)/unit, "KiB"
	for _, next := range []string{"MiB", "GiB", "TiB"} {
		if v < unit {
			break
		}
		v, u = v/unit, next
	}
	s := strconv.FormatFloat(v, 'f', 1, 64)
	return strings.TrimSuffix(s, ".0") + " " + u
}

// ParseSize reads a size as --max-inflate takes it: a number of bytes,
// optionally followed by K, M, G or T (powers of 1024, an optional "iB" or
// "B" after them): "1073741824", "512M", "4GiB".
func ParseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	t = strings.TrimSuffix(strings.TrimSuffix(t, "B"), "i")
	mult := int64(1)
	if t != "" {
		if i := strings.IndexByte("KMGT", t[len(t)-1]&^0x20); i >= 0 {
			mult = 1 << (10 * (i + 1))
			t = t[:len(t)-1]
		}
	}
	n, err := strconv.ParseInt(strings.TrimSpace(t), 10, 64)
	if err != nil || n <= 0 || n > (1<<62)/mult {
		return 0, fmt.Errorf("want a positive number of bytes, optionally with K, M, G or T (1024s) after it, like 512M or 4GiB; got %q", s)
	}
	return n * mult, nil
}

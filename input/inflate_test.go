package input_test

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/profdb/profdb/input"
)

func TestParseSize(t *testing.T) {
	for s, want := range map[string]int64{"1024": 1024, "512M": 512 << 20, "4GiB": 4 << 30, "2k": 2048, "3MB": 3 << 20, " 1G ": 1 << 30} {
		if got, err := input.ParseSize(s); err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", s, got, err, want)
		}
	}
	for _, s := range []string{"", "0", "-1", "1.5G", "G", "12X", "99999999999T"} {
		if n, err := input.ParseSize(s); err == nil {
			t.Errorf("ParseSize(%q) = %d, want an error", s, n)
		}
	}
}

// TestInflatedDefault: without --max-inflate, a stream may inflate to
// InflateRatio times the compressed bytes read, and no less than
// InflateFloor; a byte more is an error naming the limit and the flag.
func TestInflatedDefault(t *testing.T) {
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	zeros := make([]byte, 1<<20)
	for range input.InflateFloor>>20 + 1 {
		w.Write(zeros)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	c := &input.CountingReader{R: &buf}
	zr, err := gzip.NewReader(c)
	if err != nil {
		t.Fatal(err)
	}
	n, err := io.Copy(io.Discard, input.Inflated(c, zr, input.Options{}))
	if !errors.Is(err, input.ErrInflateLimit) || n != input.InflateFloor ||
		!strings.Contains(err.Error(), "decompresses to more than 256 MiB (the default: 100 times the ") ||
		!strings.HasSuffix(err.Error(), "; input.Options.MaxInflate raises the limit") {
		t.Fatalf("%d bytes, %v", n, err)
	}
}

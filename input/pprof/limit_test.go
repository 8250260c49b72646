package pprof_test

import (
	"bytes"
	"compress/gzip"
	"errors"
	"reflect"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/profdb/profdb/input"
	"github.com/profdb/profdb/input/pprof"
	"github.com/profdb/profdb/resultset"
)

// withSamples returns the uncompressed synthetic CPU profile with n more
// samples of the stack a, b of the values 2 and 7 appended.
func withSamples(t testing.TB, n int) []byte {
	t.Helper()
	b := gunzip(t, synthetic(t, "samples/count", "cpu/nanoseconds"))
	return append(b, bytes.Repeat(sampleField(2, 7), n)...)
}

// sampleField is a Profile.sample field of the stack a, b and the values
// v0 and v1.
func sampleField(v0, v1 uint64) []byte {
	var s []byte
	s = protowire.AppendTag(s, 1, protowire.BytesType) // location_id, packed
	s = protowire.AppendBytes(s, []byte{1, 2})
	s = protowire.AppendTag(s, 2, protowire.BytesType) // value, packed
	s = protowire.AppendBytes(s, protowire.AppendVarint(protowire.AppendVarint(nil, v0), v1))
	var field []byte
	field = protowire.AppendTag(field, 2, protowire.BytesType) // Profile.sample
	return protowire.AppendBytes(field, s)
}

func gzipped(t testing.TB, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func readWith(t *testing.T, data []byte, o input.Options) (*resultset.Memory, error) {
	t.Helper()
	m := &resultset.Memory{}
	_, err := pprof.Read(t.Context(), bytes.NewReader(data), "x.pprof", m, o)
	return m, err
}

// TestMaxInflate: a gzipped profile that inflates past Options.MaxInflate is
// refused with an error naming the file, the limit and the option, and
// writes nothing; under a limit that takes it, it reads as it does
// uncompressed.
func TestMaxInflate(t *testing.T) {
	plain := withSamples(t, 200_000) // 3 MB
	data := gzipped(t, plain)
	m, err := readWith(t, data, input.Options{MaxInflate: 1 << 20})
	if err == nil || !errors.Is(err, input.ErrInflateLimit) || len(m.Sets) != 0 ||
		!strings.Contains(err.Error(), "x.pprof: pprof: decompresses to more than 1 MiB (input.Options.MaxInflate); a larger input.Options.MaxInflate raises the limit") {
		t.Fatalf("1 MiB limit: error %v, %d sets", err, len(m.Sets))
	}
	got, err := readWith(t, data, input.Options{MaxInflate: int64(len(plain))})
	if err != nil {
		t.Fatalf("limit of the exact size: %v", err)
	}
	want, err := readWith(t, plain, input.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Sets, want.Sets) {
		t.Error("the gzipped profile reads otherwise than the uncompressed one")
	}
	if _, err := readWith(t, data, input.Options{MaxInflate: int64(len(plain)) - 1}); !errors.Is(err, input.ErrInflateLimit) {
		t.Errorf("limit one byte short: %v", err)
	}
}

// TestSamplesSetAside: samples beyond what is kept in memory wait in a
// temporary file and fold as those in memory do: 18 MB of samples of one
// stack give the figures of one sample of their sum.
func TestSamplesSetAside(t *testing.T) {
	if testing.Short() {
		t.Skip("reads an 18 MB profile")
	}
	const n = 1_200_000 // 15 bytes each
	big, err := readWith(t, withSamples(t, n), input.Options{})
	if err != nil {
		t.Fatal(err)
	}
	plain := gunzip(t, synthetic(t, "samples/count", "cpu/nanoseconds"))
	one, err := readWith(t, append(plain, sampleField(2*n, 7*n)...), input.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(big.Sets, one.Sets) {
		t.Error("the samples set aside fold otherwise than their sum")
	}
}

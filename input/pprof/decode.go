package pprof

import (
	"context"
	"errors"
	"fmt"

	"github.com/google/pprof/profile"
	"google.golang.org/protobuf/encoding/protowire"
)

// sampleField is the number of Profile.sample in profile.proto.
const sampleField = 2

// chunkBytes is how many bytes of sample fields are decoded at a time (at
// least as many as the rest of the profile, which each chunk decodes
// again): about 80,000 samples of a CPU profile.
const chunkBytes = 4 << 20

// decoded is a profile decoded in parts, to bound memory: github.com/
// google/pprof/profile decodes a whole profile into several times its own
// size, most of it samples, which profdb folds and does not keep. So the
// library decodes the profile without its samples once (head), then the
// samples a chunk at a time, each chunk with the rest of the profile they
// refer to. protowire only finds where the top-level fields are.
type decoded struct {
	head *profile.Profile // everything but the samples, checked
	data []byte           // the protobuf (decompressed)
	rest []byte           // its top-level fields other than samples, in order
}

// decode splits data and decodes its head.
func decode(data []byte) (*decoded, error) {
	d := &decoded{data: data}
	if err := walk(data, func(num protowire.Number, field []byte, _ int) error {
		if num != sampleField {
			d.rest = append(d.rest, field...)
		}
		return nil
	}); err != nil {
		return nil, fmt.Errorf("decoding the protobuf profile (%d bytes): %w", len(data), err)
	}
	if len(d.rest) == 0 {
		return nil, errors.New("a profile with no sample types, locations or functions")
	}
	head, err := profile.ParseUncompressed(d.rest)
	if err != nil {
		return nil, fmt.Errorf("decoding the protobuf profile (%d bytes): %w", len(data), err)
	}
	if err := head.CheckValid(); err != nil {
		return nil, fmt.Errorf("malformed profile: %w", err)
	}
	d.head = head
	return d, nil
}

// walk calls fn with each top-level field of the message in data: its
// number, its bytes (key included) and its offset.
func walk(data []byte, fn func(num protowire.Number, field []byte, off int) error) error {
	for off := 0; off < len(data); {
		num, typ, n := protowire.ConsumeTag(data[off:])
		if n < 0 {
			return fmt.Errorf("byte %d: %w", off, protowire.ParseError(n))
		}
		m := protowire.ConsumeFieldValue(num, typ, data[off+n:])
		if m < 0 {
			return fmt.Errorf("byte %d, field %d: %w", off, num, protowire.ParseError(m))
		}
		if err := fn(num, data[off:off+n+m], off); err != nil {
			return err
		}
		off += n + m
	}
	return nil
}

// eachChunk decodes the samples a chunk at a time, in their order, and
// calls fn with each chunk's profile (its samples, and the rest of the
// profile they refer to) and the index of its first sample. Errors name
// the chunk's bytes.
func (d *decoded) eachChunk(ctx context.Context, fn func(p *profile.Profile, first int) error) error {
	size := max(chunkBytes, len(d.rest))
	buf := append([]byte(nil), d.rest...)
	start, end, index := -1, 0, 0
	flush := func() error {
		if start < 0 {
			return nil
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		p, err := profile.ParseUncompressed(buf)
		if err != nil {
			return fmt.Errorf("decoding the samples at bytes %d to %d: %w", start, end, err)
		}
		if err := p.CheckValid(); err != nil {
			return fmt.Errorf("malformed profile: samples at bytes %d to %d: %w", start, end, err)
		}
		if err := fn(p, index); err != nil {
			return err
		}
		index += len(p.Sample)
		buf, start = buf[:len(d.rest)], -1
		return nil
	}
	err := walk(d.data, func(num protowire.Number, field []byte, off int) error {
		if num != sampleField {
			return nil
		}
		if start < 0 {
			start = off
		}
		buf, end = append(buf, field...), off+len(field)
		if len(buf)-len(d.rest) >= size {
			return flush()
		}
		return nil
	})
	if err != nil {
		return err
	}
	return flush()
}

package pprof

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/google/pprof/profile"
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/profdb/profdb/input"
)

// sampleField is the number of Profile.sample in profile.proto.
const sampleField = 2

// chunkBytes is how many bytes of sample fields are decoded at a time (at
// least as many as the rest of the profile, which each chunk decodes
// again): about 80,000 samples of a CPU profile.
const chunkBytes = 4 << 20

// maxRest is the most the fields other than samples (sample types,
// locations, functions, mappings, the string table) may take: they are
// decoded whole, into several times their size. A real profile's take a
// few megabytes.
const maxRest = 32 << 20

// spillBytes is how many bytes of sample fields are kept in memory; the
// rest wait in a temporary file until they are decoded.
const spillBytes = 16 << 20

// decoded is a profile decoded in parts, to bound memory: github.com/
// google/pprof/profile decodes a whole profile into several times its own
// size, most of it samples, which profdb folds and does not keep. So the
// profile is read as a stream of top-level fields (found with protowire):
// the fields other than samples are kept and decoded by the library once
// (head); the samples are set aside (spool) and decoded a chunk at a time,
// each chunk with the rest of the profile they refer to.
type decoded struct {
	head    *profile.Profile // everything but the samples, checked
	rest    []byte           // the top-level fields other than samples, in order
	samples spool            // the sample fields, in order
}

// chunk is a run of whole sample fields in the spool: n bytes, from
// offset start to end of the decompressed profile.
type chunk struct{ start, end, n int64 }

// spool holds the sample fields: the first spillBytes in memory, the rest
// in a temporary file.
type spool struct {
	mem    []byte
	f      *os.File
	w      *bufio.Writer
	chunks []chunk
}

func (s *spool) Write(p []byte) (int, error) {
	if s.f == nil && len(s.mem)+len(p) <= spillBytes {
		s.mem = append(s.mem, p...)
		return len(p), nil
	}
	if s.f == nil {
		f, err := os.CreateTemp("", "profdb-pprof-samples-*")
		if err != nil {
			return 0, fmt.Errorf("setting the samples aside: %w", err)
		}
		s.f, s.w = f, bufio.NewWriterSize(f, 1<<20)
	}
	n, err := s.w.Write(p)
	if err != nil {
		return n, fmt.Errorf("setting the samples aside: %w", err)
	}
	return n, nil
}

// add records a sample field of n bytes at offset off.
func (s *spool) add(off, n int64) {
	if k := len(s.chunks) - 1; k >= 0 && s.chunks[k].n < chunkBytes {
		s.chunks[k].end, s.chunks[k].n = off+n, s.chunks[k].n+n
		return
	}
	s.chunks = append(s.chunks, chunk{start: off, end: off + n, n: n})
}

// reader returns the spool's bytes from the start.
func (s *spool) reader() (io.Reader, error) {
	if s.f == nil {
		return bytes.NewReader(s.mem), nil
	}
	if err := s.w.Flush(); err != nil {
		return nil, fmt.Errorf("setting the samples aside: %w", err)
	}
	if _, err := s.f.Seek(0, io.SeekStart); err != nil {
		return nil, fmt.Errorf("reading the samples set aside: %w", err)
	}
	return io.MultiReader(bytes.NewReader(s.mem), bufio.NewReaderSize(s.f, 1<<20)), nil
}

// close removes the temporary file, if any.
func (d *decoded) close() {
	if f := d.samples.f; f != nil {
		f.Close()
		os.Remove(f.Name())
		d.samples.f = nil
	}
}

// sourceReader remembers the error of the reader it reads, so that a
// failure to read or decompress is told from a malformed protobuf.
type sourceReader struct {
	r   io.Reader
	err error
}

func (s *sourceReader) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	if err != nil && !errors.Is(err, io.EOF) {
		s.err = err
	}
	return n, err
}

// decode reads the protobuf profile r field by field: memory follows
// the bytes read, never a length the data claims. On error the
// temporary file, if any, is removed; otherwise close does it.
func decode(ctx context.Context, r io.Reader) (_ *decoded, err error) {
	src := &sourceReader{r: r}
	d := &decoded{}
	defer func() {
		if err != nil {
			d.close()
			if src.err != nil {
				err = src.err
			}
		}
	}()
	if err := d.split(ctx, bufio.NewReaderSize(src, 64<<10)); err != nil {
		return nil, err
	}
	if len(d.rest) == 0 {
		return nil, errors.New("a profile with no sample types, locations or functions")
	}
	head, err := profile.ParseUncompressed(d.rest)
	if err != nil {
		return nil, fmt.Errorf("decoding the protobuf profile: %w", err)
	}
	if err := head.CheckValid(); err != nil {
		return nil, fmt.Errorf("malformed profile: %w", err)
	}
	d.head = head
	return d, nil
}

// split reads the top-level fields of br: samples to the spool, the
// others to rest.
func (d *decoded) split(ctx context.Context, br *bufio.Reader) error {
	var rest bytes.Buffer
	var off int64
	var key [2 * binaryMaxVarint]byte
	for nfield := 0; ; nfield++ {
		if nfield%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		tag, k, err := readVarint(br, key[:0])
		if err == io.EOF && len(k) == 0 {
			break
		}
		if err != nil {
			return fmt.Errorf("decoding the protobuf profile: byte %d: %w", off, noEOF(err))
		}
		num, typ := protowire.DecodeTag(tag)
		if num < protowire.MinValidNumber || num > protowire.MaxValidNumber {
			return fmt.Errorf("decoding the protobuf profile: byte %d: field number %d out of range", off, num)
		}
		var body int64 // bytes after the key
		switch typ {
		case protowire.VarintType:
			_, k, err = readVarint(br, k)
		case protowire.Fixed32Type:
			body = 4
		case protowire.Fixed64Type:
			body = 8
		case protowire.BytesType:
			var l uint64
			l, k, err = readVarint(br, k)
			if err == nil && l > 1<<62 {
				err = fmt.Errorf("field %d: a length of %d bytes", num, l)
			}
			body = int64(l)
		default:
			err = fmt.Errorf("field %d: wire type %d, which profile.proto does not use", num, typ)
		}
		if err != nil {
			return fmt.Errorf("decoding the protobuf profile: byte %d: %w", off, noEOF(err))
		}
		size := int64(len(k)) + body
		var dst io.Writer = &d.samples
		if num != sampleField {
			if int64(rest.Len())+size > maxRest {
				return fmt.Errorf("the profile's fields other than samples (locations, functions, mappings, strings) take more than %s, the most profdb decodes (at byte %d, field %d)",
					input.Size(maxRest), off, num)
			}
			dst = &rest
		} else {
			d.samples.add(off, size)
		}
		if _, err := dst.Write(k); err != nil {
			return err
		}
		if n, err := copyN(dst, br, body); err != nil {
			if n < body && (err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF)) {
				return fmt.Errorf("decoding the protobuf profile: byte %d, field %d: %d bytes, the file ends after %d (file cut short?)",
					off, num, body, n)
			}
			return err
		}
		off += size
	}
	if off == 0 {
		return errors.New("empty profile")
	}
	d.rest = rest.Bytes()
	return nil
}

const binaryMaxVarint = 10

// copyN copies n bytes from br to dst through br's own buffer.
func copyN(dst io.Writer, br *bufio.Reader, n int64) (int64, error) {
	var done int64
	for done < n {
		p, err := br.Peek(int(min(n-done, int64(br.Size()))))
		if len(p) > 0 {
			if _, werr := dst.Write(p); werr != nil {
				return done, werr
			}
			br.Discard(len(p))
			done += int64(len(p))
		}
		if err != nil && done < n {
			if errors.Is(err, bufio.ErrBufferFull) {
				continue
			}
			return done, err
		}
	}
	return done, nil
}

// readVarint reads a varint, appending its bytes to b.
func readVarint(br *bufio.Reader, b []byte) (uint64, []byte, error) {
	var v uint64
	for i := 0; i < binaryMaxVarint; i++ {
		c, err := br.ReadByte()
		if err != nil {
			if i > 0 && err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return 0, b, err
		}
		b = append(b, c)
		v |= uint64(c&0x7f) << (7 * i)
		if c < 0x80 {
			return v, b, nil
		}
	}
	return 0, b, errors.New("a varint longer than 10 bytes")
}

// noEOF turns the end of the input inside a field into an error that
// says so.
func noEOF(err error) error {
	if err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF) {
		return errors.New("the file ends inside a field (file cut short?)")
	}
	return err
}

// eachChunk decodes the samples a chunk at a time, in their order, and
// calls fn with each chunk's profile (its samples, and the rest of the
// profile they refer to) and the index of its first sample. Errors name
// the chunk's bytes.
func (d *decoded) eachChunk(ctx context.Context, fn func(p *profile.Profile, first int) error) error {
	size := max(chunkBytes, int64(len(d.rest)))
	r, err := d.samples.reader()
	if err != nil {
		return err
	}
	buf := append([]byte(nil), d.rest...)
	index := 0
	for cs := d.samples.chunks; len(cs) > 0; {
		// As many chunks as make size.
		k, n := 0, int64(0)
		for k < len(cs) && n < size {
			n += cs[k].n
			k++
		}
		start, end := cs[0].start, cs[k-1].end
		cs = cs[k:]
		if err := ctx.Err(); err != nil {
			return err
		}
		buf = append(buf[:len(d.rest)], make([]byte, n)...)
		if _, err := io.ReadFull(r, buf[len(d.rest):]); err != nil {
			return fmt.Errorf("reading the samples set aside: %w", err)
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
	}
	return nil
}

package xmlscan

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/profdb/profdb/internal/termtext"
)

// RootTag returns the start of the root element's tag (up to its '>' or
// the end of head) when the root element of the XML document starting
// with head is named name. An optional byte-order mark, XML declaration,
// comments and DOCTYPE may come first.
func RootTag(head []byte, name string) ([]byte, bool) {
	s := bytes.TrimPrefix(head, []byte("\xEF\xBB\xBF"))
	for {
		s = bytes.TrimLeft(s, " \t\r\n")
		var end []byte
		switch {
		case bytes.HasPrefix(s, []byte("<?")):
			end = []byte("?>")
		case bytes.HasPrefix(s, []byte("<!--")):
			end = []byte("-->")
		case bytes.HasPrefix(s, []byte("<!")):
			end = []byte(">")
			if i, j := bytes.IndexByte(s, '['), bytes.IndexByte(s, '>'); i >= 0 && i < j {
				end = []byte("]>")
			}
		default:
			rest, ok := bytes.CutPrefix(s, []byte("<"+name))
			if !ok || len(rest) > 0 && !bytes.ContainsAny(rest[:1], " \t\r\n>/") {
				return nil, false
			}
			if i := bytes.IndexByte(rest, '>'); i >= 0 {
				rest = rest[:i]
			}
			return rest, true
		}
		i := bytes.Index(s, end)
		if i < 0 {
			return nil, false
		}
		s = s[i+len(end):]
	}
}

// maxText is the longest element text Text accepts.
const maxText = 64 << 10

// MaxDepth is the deepest elements may nest (the root being at depth 1):
// Cobertura and JaCoCo reports nest about ten deep; an input nested deeper
// is refused before it costs memory or stack.
const MaxDepth = 256

// Scanner reads an XML document token by token.
type Scanner struct {
	ctx  context.Context
	d    *xml.Decoder
	name string
	open []string // elements open, innermost last
	ntok int
}

// New returns a Scanner of r, named name in errors. Its decoder is strict,
// knows only XML's five predefined entities and reads only UTF-8 (and
// ASCII).
func New(ctx context.Context, r io.Reader, name string) *Scanner {
	d := xml.NewDecoder(r)
	d.Strict = true
	return &Scanner{ctx: ctx, d: d, name: name}
}

// Errf returns an error starting with NAME:LINE, LINE being where the
// decoder is.
func (s *Scanner) Errf(format string, args ...any) error {
	line, _ := s.d.InputPos()
	return fmt.Errorf("%s:%d: %s", s.name, line, fmt.Sprintf(format, args...))
}

// Next returns the next start element, end element or text; io.EOF at the
// end of the document. DOCTYPEs are checked, comments and processing
// instructions dropped.
func (s *Scanner) Next() (xml.Token, error) {
	for {
		if s.ntok++; s.ntok%4096 == 0 {
			if err := s.ctx.Err(); err != nil {
				return nil, err
			}
		}
		tok, err := s.d.Token()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil, err
			}
			var se *xml.SyntaxError
			if errors.As(err, &se) {
				if se.Msg == "unexpected EOF" && len(s.open) > 0 {
					return nil, fmt.Errorf("%s:%d: the file ends inside <%s> (file cut short?)", s.name, se.Line, s.open[len(s.open)-1])
				}
				return nil, fmt.Errorf("%s:%d: %s", s.name, se.Line, se.Msg)
			}
			return nil, s.Errf("%v", err)
		}
		switch t := tok.(type) {
		case xml.Directive:
			if err := checkDirective(t); err != nil {
				return nil, s.Errf("%v", err)
			}
		case xml.Comment, xml.ProcInst:
		case xml.StartElement:
			if len(s.open) >= MaxDepth {
				return nil, s.Errf("elements nested more than %d deep, inside <%s>: profdb reads no deeper", MaxDepth, termtext.Cut(s.open[len(s.open)-1], termtext.ShortRunes))
			}
			s.open = append(s.open, t.Name.Local)
			return tok, nil
		case xml.EndElement:
			s.open = s.open[:len(s.open)-1]
			return tok, nil
		default:
			return tok, nil
		}
	}
}

// checkDirective refuses what could expand: an internal subset, where
// entities are declared. A DOCTYPE naming an external DTD is accepted; the
// DTD is never read.
func checkDirective(d xml.Directive) error {
	if !bytes.HasPrefix(d, []byte("DOCTYPE")) {
		w := d
		if i := bytes.IndexAny(w, " \t\r\n["); i >= 0 {
			w = w[:i]
		}
		return fmt.Errorf("unexpected declaration <!%s>", QuoteShort(string(w)))
	}
	if bytes.Contains(d, []byte("[")) {
		return errors.New("a DOCTYPE with an internal subset (entity declarations) is refused")
	}
	return nil
}

// Document reads the whole document, whose root element must be named
// root, and calls fn for it.
func (s *Scanner) Document(root string, fn func(se xml.StartElement) error) error {
	seen := false
	for {
		tok, err := s.Next()
		if errors.Is(err, io.EOF) {
			if !seen {
				return s.Errf("no <%s> element", root)
			}
			return nil
		}
		if err != nil {
			return err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if seen || t.Name.Local != root {
				return s.Errf("element <%s> where the root <%s> was expected", t.Name.Local, root)
			}
			seen = true
			if err := fn(t); err != nil {
				return err
			}
		case xml.CharData:
			if len(bytes.TrimSpace(t)) != 0 {
				return s.Errf("text outside the root element")
			}
		}
	}
}

// Children calls fn for each child element of the element just opened
// (named parent), up to its end, where fn must read each child to its end;
// text between children must be blank.
func (s *Scanner) Children(parent string, fn func(se xml.StartElement) error) error {
	for {
		tok, err := s.Next()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return s.Errf("the file ends inside <%s> (file cut short?)", parent)
			}
			return err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if err := fn(t); err != nil {
				return err
			}
		case xml.EndElement:
			return nil
		case xml.CharData:
			if len(bytes.TrimSpace(t)) != 0 {
				return s.Errf("text %s in <%s>", QuoteShort(string(bytes.TrimSpace(t))), parent)
			}
		}
	}
}

// Skip reads past the element se, just opened, and its children, however
// deep (no deeper than MaxDepth), without recursion.
func (s *Scanner) Skip(se xml.StartElement) error {
	depth := len(s.open)
	for len(s.open) >= depth {
		tok, err := s.Next()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return s.Errf("the file ends inside <%s> (file cut short?)", se.Name.Local)
			}
			return err
		}
		if t, ok := tok.(xml.CharData); ok && len(bytes.TrimSpace(t)) != 0 {
			return s.Errf("text %s in <%s>", QuoteShort(string(bytes.TrimSpace(t))), s.open[len(s.open)-1])
		}
	}
	return nil
}

// Text reads the text of the element just opened (named elem), which must
// have no children.
func (s *Scanner) Text(elem string) (string, error) {
	var sb strings.Builder
	for {
		tok, err := s.Next()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return "", s.Errf("the file ends inside <%s> (file cut short?)", elem)
			}
			return "", err
		}
		switch t := tok.(type) {
		case xml.CharData:
			if sb.Len()+len(t) > maxText {
				return "", s.Errf("<%s> longer than %d bytes", elem, maxText)
			}
			sb.Write(t)
		case xml.StartElement:
			return "", s.Errf("element <%s> inside <%s>", t.Name.Local, elem)
		case xml.EndElement:
			return sb.String(), nil
		}
	}
}

// Attr returns the attribute name (without a namespace) of se.
func Attr(se xml.StartElement, name string) (string, bool) {
	for _, a := range se.Attr {
		if a.Name.Local == name && a.Name.Space == "" {
			return a.Value, true
		}
	}
	return "", false
}

// IntAttr returns the attribute name of se as an integer of at least min;
// a missing or other value is an error.
func (s *Scanner) IntAttr(se xml.StartElement, name string, min int64) (int64, error) {
	v, ok := Attr(se, name)
	if !ok {
		return 0, s.Errf("<%s> without a %s attribute", se.Name.Local, name)
	}
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil || n < min {
		return 0, s.Errf("<%s> %s=%s is not an integer of at least %d", se.Name.Local, name, QuoteShort(v), min)
	}
	return n, nil
}

// QuoteShort quotes s for a message, cut (termtext.Short).
func QuoteShort(s string) string { return termtext.Short(s) }

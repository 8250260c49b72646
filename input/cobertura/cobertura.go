package cobertura

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/profdb/profdb/input"
	"github.com/profdb/profdb/profilers/lightcoverage"
	"github.com/profdb/profdb/resultset"
)

// FormatName is the name the format is registered under.
const FormatName = "cobertura"

func init() {
	input.Register(input.Format{Name: FormatName, Sniff: Sniff, Read: Read})
}

// Sniff reports whether head starts like a Cobertura report: XML whose root
// element is <coverage> without Clover's clover attribute.
func Sniff(head []byte) bool {
	tag, ok := rootTag(head, "coverage")
	return ok && !bytes.Contains(tag, []byte("clover="))
}

// rootTag returns the start of the root element's tag (up to its '>' or
// the end of head) when the root element of the XML document starting
// with head is named name. An optional byte-order mark, XML declaration,
// comments and DOCTYPE may come first.
func rootTag(head []byte, name string) ([]byte, bool) {
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

// Read reads the Cobertura report r (named name in messages) and writes one
// light-coverage result set to t. A note (o.Notef) gives the report's line
// totals as gcovr --print-summary does. o.SourceRoot, when set, replaces
// the report's <sources> for relative file names.
func Read(ctx context.Context, r io.Reader, name string, t resultset.Target, o input.Options) ([]resultset.Result, error) {
	b := lightcoverage.NewBuilder()
	b.SetSpool(0, "")
	defer b.Close()
	p := &parser{ctx: ctx, d: newDecoder(r), name: name, b: b, root: o.SourceRoot}
	if err := p.document(); err != nil {
		return nil, err
	}
	if o.Notef != nil {
		o.Notef("%s: lines: %s", name, rate(p.covered, p.lines))
	}
	res, err := b.Export(ctx, t, "cobertura: "+filepath.Base(name))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return []resultset.Result{res}, nil
}

func rate(hit, found int64) string {
	if found == 0 {
		return "no lines"
	}
	return fmt.Sprintf("%.1f%% (%d of %d lines)", float64(hit)*100/float64(found), hit, found)
}

// newDecoder returns a strict decoder that knows only XML's own five
// entities; CharsetReader is unset, so only UTF-8 (and ASCII) is read.
func newDecoder(r io.Reader) *xml.Decoder {
	d := xml.NewDecoder(r)
	d.Strict = true
	return d
}

type lineHit struct {
	n, hits int64
}

type method struct {
	name  string
	lines []lineHit
}

type parser struct {
	ctx     context.Context
	d       *xml.Decoder
	name    string
	b       *lightcoverage.Builder
	root    string   // --source-root
	sources []string // <source> folders
	ntok    int
	open    []string // elements open, innermost last
	lines   int64    // lines read, per class
	covered int64
}

func (p *parser) errf(format string, args ...any) error {
	line, _ := p.d.InputPos()
	return fmt.Errorf("%s:%d: %s", p.name, line, fmt.Sprintf(format, args...))
}

// next returns the next token that matters: elements, text. DOCTYPEs are
// checked, comments and processing instructions dropped.
func (p *parser) next() (xml.Token, error) {
	for {
		if p.ntok++; p.ntok%4096 == 0 {
			if err := p.ctx.Err(); err != nil {
				return nil, err
			}
		}
		tok, err := p.d.Token()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil, err
			}
			var se *xml.SyntaxError
			if errors.As(err, &se) {
				if se.Msg == "unexpected EOF" && len(p.open) > 0 {
					return nil, fmt.Errorf("%s:%d: the file ends inside <%s> (file cut short?)", p.name, se.Line, p.open[len(p.open)-1])
				}
				return nil, fmt.Errorf("%s:%d: %s", p.name, se.Line, se.Msg)
			}
			return nil, p.errf("%v", err)
		}
		switch t := tok.(type) {
		case xml.Directive:
			if err := checkDirective(t); err != nil {
				return nil, p.errf("%v", err)
			}
		case xml.Comment, xml.ProcInst:
		case xml.StartElement:
			p.open = append(p.open, t.Name.Local)
			return tok, nil
		case xml.EndElement:
			p.open = p.open[:len(p.open)-1]
			return tok, nil
		default:
			return tok, nil
		}
	}
}

// checkDirective refuses what could expand: entity (and any other markup)
// declarations. A DOCTYPE naming an external DTD is accepted; the DTD is
// never read.
func checkDirective(d xml.Directive) error {
	if !bytes.HasPrefix(d, []byte("DOCTYPE")) {
		return fmt.Errorf("unexpected declaration <!%s>", firstWord(d))
	}
	if bytes.Contains(d, []byte("<!ENTITY")) || bytes.Contains(d, []byte("[")) {
		return errors.New("a DOCTYPE with an internal subset (entity declarations) is refused")
	}
	return nil
}

func firstWord(b []byte) string {
	if i := bytes.IndexAny(b, " \t\r\n["); i >= 0 {
		b = b[:i]
	}
	if len(b) > 20 {
		b = b[:20]
	}
	return strconv.Quote(string(b))
}

// children calls fn for each child element of the element just opened
// (named parent), up to its end; text between children must be blank.
func (p *parser) children(parent string, fn func(se xml.StartElement) error) error {
	for {
		tok, err := p.next()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return p.errf("the file ends inside <%s> (file cut short?)", parent)
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
				return p.errf("text %s in <%s>", quoteShort(string(bytes.TrimSpace(t))), parent)
			}
		}
	}
}

// skip reads past the element just opened.
func (p *parser) skip(se xml.StartElement) error {
	return p.children(se.Name.Local, func(c xml.StartElement) error { return p.skip(c) })
}

func (p *parser) document() error {
	seen := false
	for {
		tok, err := p.next()
		if errors.Is(err, io.EOF) {
			if !seen {
				return p.errf("no <coverage> element")
			}
			return nil
		}
		if err != nil {
			return err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if seen || t.Name.Local != "coverage" {
				return p.errf("element <%s> where the root <coverage> was expected", t.Name.Local)
			}
			seen = true
			if err := p.coverage(); err != nil {
				return err
			}
		case xml.CharData:
			if len(bytes.TrimSpace(t)) != 0 {
				return p.errf("text outside the root element")
			}
		}
	}
}

func (p *parser) coverage() error {
	return p.children("coverage", func(se xml.StartElement) error {
		switch se.Name.Local {
		case "sources":
			return p.children("sources", func(se xml.StartElement) error {
				if se.Name.Local != "source" {
					return p.skip(se)
				}
				text, err := p.text("source")
				if err != nil {
					return err
				}
				if s := strings.TrimSpace(text); s != "" {
					p.sources = append(p.sources, s)
				}
				return nil
			})
		case "packages":
			return p.children("packages", func(se xml.StartElement) error {
				if se.Name.Local != "package" {
					return p.skip(se)
				}
				return p.pkg(se)
			})
		}
		return p.skip(se)
	})
}

// text reads the text of the element just opened, which must have no
// children.
func (p *parser) text(elem string) (string, error) {
	var sb strings.Builder
	for {
		tok, err := p.next()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return "", p.errf("the file ends inside <%s> (file cut short?)", elem)
			}
			return "", err
		}
		switch t := tok.(type) {
		case xml.CharData:
			if sb.Len()+len(t) > 64<<10 {
				return "", p.errf("<%s> longer than 64 KiB", elem)
			}
			sb.Write(t)
		case xml.StartElement:
			return "", p.errf("element <%s> inside <%s>", t.Name.Local, elem)
		case xml.EndElement:
			return sb.String(), nil
		}
	}
}

func attr(se xml.StartElement, name string) (string, bool) {
	for _, a := range se.Attr {
		if a.Name.Local == name && a.Name.Space == "" {
			return a.Value, true
		}
	}
	return "", false
}

func (p *parser) pkg(se xml.StartElement) error {
	module, _ := attr(se, "name")
	if module == "" {
		module = "."
	}
	return p.children("package", func(se xml.StartElement) error {
		if se.Name.Local != "classes" {
			return p.skip(se)
		}
		return p.children("classes", func(se xml.StartElement) error {
			if se.Name.Local != "class" {
				return p.skip(se)
			}
			return p.class(se, module)
		})
	})
}

func (p *parser) class(se xml.StartElement, module string) error {
	cname, _ := attr(se, "name")
	fname, ok := attr(se, "filename")
	if !ok || fname == "" {
		return p.errf("<class> %s without a filename attribute", quoteShort(cname))
	}
	if cname == "" {
		cname = fname
	}
	var methods []method
	var classLines []lineHit
	err := p.children("class", func(se xml.StartElement) error {
		switch se.Name.Local {
		case "methods":
			return p.children("methods", func(se xml.StartElement) error {
				if se.Name.Local != "method" {
					return p.skip(se)
				}
				m := method{}
				m.name, _ = attr(se, "name")
				if m.name == "" {
					return p.errf("<method> without a name in class %s", quoteShort(cname))
				}
				err := p.children("method", func(se xml.StartElement) error {
					if se.Name.Local != "lines" {
						return p.skip(se)
					}
					var err error
					m.lines, err = p.lineList(m.lines)
					return err
				})
				methods = append(methods, m)
				return err
			})
		case "lines":
			var err error
			classLines, err = p.lineList(classLines)
			return err
		}
		return p.skip(se)
	})
	if err != nil {
		return err
	}
	p.addClass(cname, module, p.resolve(fname), methods, classLines)
	return nil
}

// lineList reads the <line> elements of a <lines> element into to.
func (p *parser) lineList(to []lineHit) ([]lineHit, error) {
	err := p.children("lines", func(se xml.StartElement) error {
		if se.Name.Local != "line" {
			return p.skip(se)
		}
		n, err := p.intAttr(se, "number", 1)
		if err != nil {
			return err
		}
		h, err := p.intAttr(se, "hits", 0)
		if err != nil {
			return err
		}
		to = append(to, lineHit{n, h})
		return p.skip(se) // <conditions>: branch data is not kept
	})
	return to, err
}

func (p *parser) intAttr(se xml.StartElement, name string, min int64) (int64, error) {
	s, ok := attr(se, name)
	if !ok {
		return 0, p.errf("<%s> without a %s attribute", se.Name.Local, name)
	}
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil || n < min {
		return 0, p.errf("<%s> %s=%s is not an integer of at least %d", se.Name.Local, name, quoteShort(s), min)
	}
	return n, nil
}

// addClass adds a class's routines: its methods, in document order, then
// the lines of the class no method lists, as a routine named after the
// class.
func (p *parser) addClass(cname, module, file string, methods []method, classLines []lineHit) {
	inMethod := map[int64]bool{}
	for _, m := range methods {
		p.addRoutine(m.name, cname, module, file, m.lines)
		for _, l := range m.lines {
			inMethod[l.n] = true
		}
	}
	var rest []lineHit
	for _, l := range classLines {
		if !inMethod[l.n] {
			rest = append(rest, l)
		}
	}
	if len(rest) > 0 {
		p.addRoutine(cname, cname, module, file, rest)
	}
}

// addRoutine adds a routine with its lines sorted; a line given twice keeps
// the larger count. The routine's count is the hits of its first line.
func (p *parser) addRoutine(name, class, module, file string, lines []lineHit) {
	slices.SortStableFunc(lines, func(a, b lineHit) int {
		switch {
		case a.n < b.n:
			return -1
		case a.n > b.n:
			return 1
		}
		return 0
	})
	info := lightcoverage.RoutineInfo{Name: name, Class: class, Module: module, SourceFile: file, LineLevel: true}
	if len(lines) > 0 {
		info.SourceLine, info.Count = lines[0].n, lines[0].hits
	}
	rt := p.b.AddRoutine(info)
	for i, l := range lines {
		rt.AddLine(l.n, l.hits)
		if i > 0 && lines[i-1].n == l.n {
			continue
		}
		p.lines++
		if max := maxHits(lines[i:], l.n); max > 0 {
			p.covered++
		}
	}
}

// maxHits is the largest count of line n at the start of lines.
func maxHits(lines []lineHit, n int64) int64 {
	var m int64
	for _, l := range lines {
		if l.n != n {
			break
		}
		m = max(m, l.hits)
	}
	return m
}

// resolve gives a class's file name: relative names are joined to
// --source-root, or else to the first <source> folder under which the file
// exists (the first <source> when none has it).
func (p *parser) resolve(fname string) string {
	if isAbs(fname) {
		return fname
	}
	if p.root != "" {
		return join(p.root, fname)
	}
	if len(p.sources) == 0 {
		return fname
	}
	if len(p.sources) > 1 {
		for _, s := range p.sources {
			if _, err := os.Stat(join(s, fname)); err == nil {
				return join(s, fname)
			}
		}
	}
	return join(p.sources[0], fname)
}

// isAbs reports whether a file name is absolute on Unix or Windows.
func isAbs(f string) bool {
	return strings.HasPrefix(f, "/") || strings.HasPrefix(f, `\`) ||
		len(f) >= 3 && f[1] == ':' && (f[2] == '\\' || f[2] == '/')
}

// join joins a folder and a relative file name with the folder's own
// separator; "." and an empty folder add nothing.
func join(dir, f string) string {
	switch {
	case dir == "" || dir == ".":
		return f
	case strings.HasSuffix(dir, "/") || strings.HasSuffix(dir, `\`):
		return dir + f
	case strings.Contains(dir, `\`) && !strings.Contains(dir, "/"):
		return dir + `\` + f
	}
	return dir + "/" + f
}

// quoteShort quotes s for a message, cut to 60 bytes.
func quoteShort(s string) string {
	if len(s) > 60 {
		return strconv.Quote(s[:60]) + "..."
	}
	return strconv.Quote(s)
}

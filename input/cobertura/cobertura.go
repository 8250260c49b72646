package cobertura

import (
	"bytes"
	"context"
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/profdb/profdb/input"
	"github.com/profdb/profdb/internal/xmlscan"
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
	tag, ok := xmlscan.RootTag(head, "coverage")
	return ok && !bytes.Contains(tag, []byte("clover="))
}

// Read reads the Cobertura report r (named name in messages) and writes one
// light-coverage result set to t. A note (o.Notef) gives the report's line
// totals as gcovr --print-summary does. o.SourceRoot, when set, replaces
// the report's <sources> for relative file names. A report with no <line>
// (<coverage/>, or classes without lines) holds no result set: Read writes
// nothing and returns none.
func Read(ctx context.Context, r io.Reader, name string, t resultset.Target, o input.Options) ([]resultset.Result, error) {
	b := lightcoverage.NewBuilder()
	b.SetSpool(0, "")
	defer b.Close()
	p := &parser{s: xmlscan.New(ctx, r, name), b: b, root: o.SourceRoot}
	if err := p.s.Document("coverage", p.coverage); err != nil {
		return nil, err
	}
	if o.Notef != nil {
		o.Notef("%s: lines: %s", name, rate(p.covered, p.lines))
	}
	if p.lines == 0 {
		return nil, nil
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

type lineHit struct {
	n, hits int64
}

type method struct {
	name  string
	lines []lineHit
}

type parser struct {
	s       *xmlscan.Scanner
	b       *lightcoverage.Builder
	root    string   // --source-root
	sources []string // <source> folders
	lines   int64    // lines read, per class
	covered int64
}

func (p *parser) coverage(xml.StartElement) error {
	return p.s.Children("coverage", func(se xml.StartElement) error {
		switch se.Name.Local {
		case "sources":
			return p.s.Children("sources", func(se xml.StartElement) error {
				if se.Name.Local != "source" {
					return p.s.Skip(se)
				}
				text, err := p.s.Text("source")
				if err != nil {
					return err
				}
				if s := strings.TrimSpace(text); s != "" {
					p.sources = append(p.sources, s)
				}
				return nil
			})
		case "packages":
			return p.s.Children("packages", func(se xml.StartElement) error {
				if se.Name.Local != "package" {
					return p.s.Skip(se)
				}
				return p.pkg(se)
			})
		}
		return p.s.Skip(se)
	})
}

func (p *parser) pkg(se xml.StartElement) error {
	module, _ := xmlscan.Attr(se, "name")
	if module == "" {
		module = "."
	}
	return p.s.Children("package", func(se xml.StartElement) error {
		if se.Name.Local != "classes" {
			return p.s.Skip(se)
		}
		return p.s.Children("classes", func(se xml.StartElement) error {
			if se.Name.Local != "class" {
				return p.s.Skip(se)
			}
			return p.class(se, module)
		})
	})
}

func (p *parser) class(se xml.StartElement, module string) error {
	cname, _ := xmlscan.Attr(se, "name")
	fname, ok := xmlscan.Attr(se, "filename")
	if !ok || fname == "" {
		return p.s.Errf("<class> %s without a filename attribute", xmlscan.QuoteShort(cname))
	}
	if cname == "" {
		cname = fname
	}
	var methods []method
	var classLines []lineHit
	err := p.s.Children("class", func(se xml.StartElement) error {
		switch se.Name.Local {
		case "methods":
			return p.s.Children("methods", func(se xml.StartElement) error {
				if se.Name.Local != "method" {
					return p.s.Skip(se)
				}
				m := method{}
				m.name, _ = xmlscan.Attr(se, "name")
				if m.name == "" {
					return p.s.Errf("<method> without a name in class %s", xmlscan.QuoteShort(cname))
				}
				err := p.s.Children("method", func(se xml.StartElement) error {
					if se.Name.Local != "lines" {
						return p.s.Skip(se)
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
		return p.s.Skip(se)
	})
	if err != nil {
		return err
	}
	p.addClass(cname, module, p.resolve(fname), methods, classLines)
	return nil
}

// lineList reads the <line> elements of a <lines> element into to.
func (p *parser) lineList(to []lineHit) ([]lineHit, error) {
	err := p.s.Children("lines", func(se xml.StartElement) error {
		if se.Name.Local != "line" {
			return p.s.Skip(se)
		}
		n, err := p.s.IntAttr(se, "number", 1)
		if err != nil {
			return err
		}
		h, err := p.s.IntAttr(se, "hits", 0)
		if err != nil {
			return err
		}
		to = append(to, lineHit{n, h})
		return p.s.Skip(se) // <conditions>: branch data is not kept
	})
	return to, err
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

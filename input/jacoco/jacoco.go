package jacoco

import (
	"bytes"
	"cmp"
	"context"
	"encoding/xml"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/dustin/go-humanize/english"

	"github.com/profdb/profdb/input"
	"github.com/profdb/profdb/internal/xmlscan"
	"github.com/profdb/profdb/profilers/lightcoverage"
	"github.com/profdb/profdb/resultset"
)

// FormatName is the name the format is registered under.
const FormatName = "jacoco"

func init() {
	input.Register(input.Format{Name: FormatName, Sniff: Sniff, Read: Read})
}

// Sniff reports whether head starts like a JaCoCo report: XML whose root
// element is <report>, after JaCoCo's DOCTYPE or with a <sessioninfo> or
// <package> soon after.
func Sniff(head []byte) bool {
	if _, ok := xmlscan.RootTag(head, "report"); !ok {
		return false
	}
	return bytes.Contains(head, []byte("//JACOCO//DTD")) || bytes.Contains(head, []byte("<sessioninfo")) ||
		bytes.Contains(head, []byte("<package"))
}

// Read reads the JaCoCo report r (named name in messages) and writes one
// light-coverage result set to t. A note (o.Notef) gives the report's line
// and method totals; warnings (o.Warnf) the lines that precede every method
// of their file and are not counted. o.SourceRoot, when set, is put before
// each source file's path. A report with no method and no line (no
// package, or packages without classes) holds no result set: Read writes
// nothing and returns none. One of methods without lines (classes compiled
// without debug information) is read: its methods' coverage is its data.
func Read(ctx context.Context, r io.Reader, name string, t resultset.Target, o input.Options) ([]resultset.Result, error) {
	b := lightcoverage.NewBuilder()
	b.SetSpool(0, "")
	defer b.Close()
	p := &parser{s: xmlscan.New(ctx, r, name), b: b, root: o.SourceRoot}
	caption := "jacoco: " + filepath.Base(name)
	err := p.s.Document("report", func(se xml.StartElement) error {
		if n, _ := xmlscan.Attr(se, "name"); n != "" {
			caption += " (" + n + ")"
		}
		return p.group("report")
	})
	if err != nil {
		return nil, err
	}
	if p.outside > 0 && o.Warnf != nil {
		o.Warnf("%s: %s (first in %s) %s before every method of %s file and %s not counted", name,
			english.Plural(int(p.outside), "line", ""), p.firstOutside, english.PluralWord(int(p.outside), "lies", "lie"),
			english.PluralWord(int(p.outside), "its", "their"), english.PluralWord(int(p.outside), "is", "are"))
	}
	if o.Notef != nil {
		o.Notef("%s: lines: %s, methods: %s", name, rate(p.linesCovered, p.lines, "lines"), rate(p.methodsCovered, p.methods, "methods"))
	}
	if p.lines == 0 && p.methods == 0 {
		return nil, nil
	}
	res, err := b.Export(ctx, t, caption)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return []resultset.Result{res}, nil
}

func rate(hit, found int64, what string) string {
	if found == 0 {
		return "no " + what
	}
	return fmt.Sprintf("%.1f%% (%d of %d %s)", float64(hit)*100/float64(found), hit, found, what)
}

type method struct {
	name    string
	line    int64 // 0: not known
	covered bool
	lines   []line
}

type class struct {
	name, file string // file: the sourcefilename attribute
	methods    []*method
	done       bool // its source file's lines were read and its routines added
}

type line struct {
	nr      int64
	covered bool
}

type parser struct {
	s    *xmlscan.Scanner
	b    *lightcoverage.Builder
	root string // --source-root

	lines, linesCovered     int64
	methods, methodsCovered int64
	outside                 int64
	firstOutside            string
}

// group reads the children of <report> or <group>.
func (p *parser) group(elem string) error {
	return p.s.Children(elem, func(se xml.StartElement) error {
		switch se.Name.Local {
		case "group":
			return p.group("group")
		case "package":
			return p.pkg(se)
		}
		return p.s.Skip(se) // <sessioninfo>, <counter>
	})
}

func (p *parser) pkg(se xml.StartElement) error {
	pname, _ := xmlscan.Attr(se, "name")
	var classes []*class
	err := p.s.Children("package", func(se xml.StartElement) error {
		switch se.Name.Local {
		case "class":
			c, err := p.class(se)
			classes = append(classes, c)
			return err
		case "sourcefile":
			return p.sourceFile(se, pname, classes)
		}
		return p.s.Skip(se)
	})
	if err != nil {
		return err
	}
	for _, c := range classes {
		if !c.done {
			p.addClass(c, pname)
		}
	}
	return nil
}

func (p *parser) class(se xml.StartElement) (*class, error) {
	c := &class{}
	var ok bool
	if c.name, ok = xmlscan.Attr(se, "name"); !ok || c.name == "" {
		return c, p.s.Errf("<class> without a name")
	}
	c.file, _ = xmlscan.Attr(se, "sourcefilename")
	err := p.s.Children("class", func(se xml.StartElement) error {
		if se.Name.Local != "method" {
			return p.s.Skip(se)
		}
		m := &method{}
		if m.name, ok = xmlscan.Attr(se, "name"); !ok || m.name == "" {
			return p.s.Errf("<method> without a name in class %s", xmlscan.QuoteShort(c.name))
		}
		if _, ok := xmlscan.Attr(se, "line"); ok {
			var err error
			if m.line, err = p.s.IntAttr(se, "line", 1); err != nil {
				return err
			}
		}
		c.methods = append(c.methods, m)
		p.methods++
		return p.s.Children("method", func(se xml.StartElement) error {
			if se.Name.Local == "counter" {
				if typ, _ := xmlscan.Attr(se, "type"); typ == "METHOD" {
					n, err := p.s.IntAttr(se, "covered", 0)
					if err != nil {
						return err
					}
					if n > 0 && !m.covered {
						m.covered = true
						p.methodsCovered++
					}
				}
			}
			return p.s.Skip(se)
		})
	})
	return c, err
}

// sourceFile reads a <sourcefile>'s lines, gives each to the method of the
// package's classes in that file that starts last at or before it, and adds
// those classes' routines.
func (p *parser) sourceFile(se xml.StartElement, pname string, classes []*class) error {
	fname, ok := xmlscan.Attr(se, "name")
	if !ok || fname == "" {
		return p.s.Errf("<sourcefile> without a name")
	}
	var lines []line
	err := p.s.Children("sourcefile", func(se xml.StartElement) error {
		if se.Name.Local != "line" {
			return p.s.Skip(se)
		}
		nr, err := p.s.IntAttr(se, "nr", 1)
		if err != nil {
			return err
		}
		ci, err := p.s.IntAttr(se, "ci", 0)
		if err != nil {
			return err
		}
		lines = append(lines, line{nr: nr, covered: ci > 0})
		p.lines++
		if ci > 0 {
			p.linesCovered++
		}
		return p.s.Skip(se)
	})
	if err != nil {
		return err
	}
	var ms []*method
	var mine []*class
	for _, c := range classes {
		if c.file == fname && !c.done {
			mine = append(mine, c)
			for _, m := range c.methods {
				if m.line > 0 {
					ms = append(ms, m)
				}
			}
		}
	}
	slices.SortStableFunc(ms, func(a, b *method) int { return cmp.Compare(a.line, b.line) })
	slices.SortStableFunc(lines, func(a, b line) int { return cmp.Compare(a.nr, b.nr) })
	i := -1
	for _, l := range lines {
		for i+1 < len(ms) && ms[i+1].line <= l.nr {
			i++
		}
		if i < 0 {
			if p.outside == 0 {
				p.firstOutside = path(pname, fname)
			}
			p.outside++
			continue
		}
		// Of methods starting on the same line, the first in the report.
		j := i
		for j > 0 && ms[j-1].line == ms[i].line {
			j--
		}
		ms[j].lines = append(ms[j].lines, l)
	}
	for _, c := range mine {
		p.addClass(c, pname)
	}
	return nil
}

// addClass adds the routines of a class with the lines given to them.
func (p *parser) addClass(c *class, pname string) {
	c.done = true
	module := strings.ReplaceAll(pname, "/", ".")
	if module == "" {
		module = "."
	}
	file := ""
	if c.file != "" {
		file = path(pname, c.file)
		if p.root != "" {
			file = join(p.root, file)
		}
	}
	cname := strings.ReplaceAll(c.name, "/", ".")
	for _, m := range c.methods {
		count := int64(0)
		if m.covered {
			count = 1
		}
		rt := p.b.AddRoutine(lightcoverage.RoutineInfo{Name: m.name, Class: cname, Module: module,
			SourceFile: file, SourceLine: m.line, CodeType: "Byte-code", Count: count, LineLevel: true})
		for _, l := range m.lines {
			hit := int64(0)
			if l.covered {
				hit = 1
			}
			rt.AddLine(l.nr, hit)
		}
		m.lines = nil
	}
}

// path is a source file's path: its package's folder and its name.
func path(pname, fname string) string {
	if pname == "" {
		return fname
	}
	return pname + "/" + fname
}

// join puts a folder before a relative path, with the folder's own
// separator.
func join(dir, f string) string {
	switch {
	case strings.HasSuffix(dir, "/") || strings.HasSuffix(dir, `\`):
		return dir + f
	case strings.Contains(dir, `\`) && !strings.Contains(dir, "/"):
		return dir + `\` + strings.ReplaceAll(f, "/", `\`)
	}
	return dir + "/" + f
}

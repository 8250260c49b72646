package profilerj

import (
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/profdb/profdb/profilers/functiontrace"
	"github.com/profdb/profdb/profilers/lightcoverage"
	"github.com/profdb/profdb/profilers/resource"
	"github.com/profdb/profdb/resultset"
)

// Element names of the format. One of them where the format does not put it
// is an error; any other unknown element is skipped with a warning.
var known = map[string]bool{
	"doc": true, "profile": true, "sampler": true, "memory": true, "coverage": true,
	"thread": true, "class": true, "method": true, "footprints": true,
}

// Counters of the two Function Trace result sets (INSTANCES COUNTER_*).
var (
	profileCounter = resultset.Counter{Name: "Time", Description: "Elapsed Time", Frequency: int64(1000000)}
	// Sampler figures are hit counts: proportional to time, at a sampling
	// rate the snapshot does not record, so no frequency.
	samplerCounter = resultset.Counter{Name: "Time", Description: "Elapsed Time (sampling hits)"}
)

// snapshot is a parsed file: its sections in file order.
type snapshot struct {
	sections []*section
}

func (s *snapshot) close() {
	for _, sec := range s.sections {
		if sec.ft != nil {
			sec.ft.b.Close()
		}
		if sec.lc != nil {
			sec.lc.b.Close()
		}
	}
}

// section is one result set to be.
type section struct {
	kind string // profile, sampler, memory or coverage
	ft   *ftSection
	lc   *lcSection
	res  *resource.Builder
}

func (s *section) resultSet(caption string) *resultset.ResultSet {
	switch {
	case s.ft != nil:
		return s.ft.b.ResultSet(caption)
	case s.lc != nil:
		return s.lc.b.ResultSet(caption)
	}
	return s.res.ResultSet(caption)
}

type ftSection struct {
	b        *functiontrace.Builder
	sampler  bool
	routines map[string]*functiontrace.Routine // by name + "\x00" + signature
	methods  []ftMethod                        // by routine ID
}

type ftMethod struct {
	r   *functiontrace.Routine
	m   javaMethod
	sig string
}

type lcSection struct {
	b       *lightcoverage.Builder
	methods []lcMethod
}

// lcMethod is a covered method, to give the routines of the profile and
// sampler sections their source file and line.
type lcMethod struct {
	class, method, sig, source string
	firstline                  int64
}

type openElem struct {
	name string
	line int
}

type parser struct {
	ctx   context.Context
	d     *xml.Decoder
	file  string
	warnf func(format string, args ...any)
	line  int        // line where the token last returned by next starts
	open  []openElem // elements open, innermost last
	ntok  int
	snap  *snapshot
	spool struct {
		memLimit int
		dir      string
	}
}

// parse reads a whole snapshot. The snapshot it returns must be closed,
// also with an error.
func parse(ctx context.Context, r io.Reader, file string, warnf func(string, ...any)) (*snapshot, error) {
	p := &parser{ctx: ctx, d: xml.NewDecoder(r), file: file, warnf: warnf, snap: &snapshot{}}
	p.d.CharsetReader = charsetReader
	if err := p.document(); err != nil {
		return p.snap, err
	}
	p.snap.linkSources()
	return p.snap, nil
}

func (p *parser) errf(line int, format string, args ...any) error {
	return fmt.Errorf("%s:%d: %s", p.file, line, fmt.Sprintf(format, args...))
}

func (p *parser) warn(line int, format string, args ...any) {
	if p.warnf != nil {
		p.warnf("%s:%d: %s", p.file, line, fmt.Sprintf(format, args...))
	}
}

// next returns the next token, with p.line set to the line where it starts.
// The end of the input is io.EOF only outside every element.
func (p *parser) next() (xml.Token, error) {
	if p.ntok++; p.ntok%1024 == 0 {
		if err := p.ctx.Err(); err != nil {
			return nil, err
		}
	}
	p.line, _ = p.d.InputPos()
	tok, err := p.d.Token()
	if err != nil {
		var se *xml.SyntaxError
		switch {
		case err == io.EOF:
			return nil, io.EOF
		case errors.As(err, &se) && strings.HasPrefix(se.Msg, "unexpected EOF") && len(p.open) > 0:
			top := p.open[len(p.open)-1]
			return nil, p.errf(se.Line, "the file ends inside <%s> (opened at line %d): cut off?", top.name, top.line)
		case errors.As(err, &se):
			msg := visible(se.Msg)
			if strings.Contains(msg, "closed by") {
				msg += " (a missing or extra closing tag: a hand-edited or cut file?)"
			}
			return nil, p.errf(se.Line, "malformed XML: %s", msg)
		}
		line, _ := p.d.InputPos()
		return nil, p.errf(line, "%v", err)
	}
	switch t := tok.(type) {
	case xml.StartElement:
		p.open = append(p.open, openElem{t.Name.Local, p.line})
	case xml.EndElement:
		p.open = p.open[:len(p.open)-1]
	}
	return tok, nil
}

// visible spells out white space other than plain spaces in a message, so
// that a no-break space where the XML syntax wants a space shows.
func visible(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r != ' ' && (unicode.IsSpace(r) || !unicode.IsPrint(r)) {
			fmt.Fprintf(&b, "<U+%04X>", r)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// text fails on character data other than white space: the snapshot has
// none outside <footprints>, and an elided excerpt ("....") is not a
// snapshot.
func (p *parser) text(t xml.CharData, where string) error {
	s := string(t)
	// Any Unicode white space, the no-break spaces of text copied from a
	// web page included.
	trimmed := strings.TrimLeftFunc(s, unicode.IsSpace)
	if trimmed == "" {
		return nil
	}
	line := p.line + strings.Count(s[:len(s)-len(trimmed)], "\n")
	word := strings.Fields(trimmed)[0]
	if len(word) > 20 {
		word = word[:20] + "…"
	}
	return p.errf(line, "unexpected text %q %s (an elided or hand-edited excerpt?)", word, where)
}

// skip consumes the element just opened, through its end tag.
func (p *parser) skip() error {
	for depth := 1; depth > 0; {
		tok, err := p.next()
		if err != nil {
			return err
		}
		switch tok.(type) {
		case xml.StartElement:
			depth++
		case xml.EndElement:
			depth--
		}
	}
	return nil
}

// unexpected handles a child element the context has no use for.
func (p *parser) unexpected(se xml.StartElement, line int, parent string) error {
	if known[se.Name.Local] {
		return p.errf(line, "<%s> is not allowed inside <%s>", se.Name.Local, parent)
	}
	p.warn(line, "skipping unknown element <%s> inside <%s>", se.Name.Local, parent)
	return p.skip()
}

// children calls fn for each child element of the element parent just
// opened, up to its end tag. fn receives the child's start tag and line and
// must consume the child through its end tag.
func (p *parser) children(parent string, fn func(se xml.StartElement, line int) error) error {
	for {
		tok, err := p.next()
		if err != nil {
			return err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if err := fn(t, p.line); err != nil {
				return err
			}
		case xml.EndElement:
			return nil
		case xml.CharData:
			if err := p.text(t, "inside <"+parent+">"); err != nil {
				return err
			}
		}
	}
}

func (p *parser) document() error {
	for {
		tok, err := p.next()
		if err == io.EOF {
			return p.errf(p.line, "no <doc> element: not a ProfilerJ snapshot (empty file?)")
		}
		if err != nil {
			return err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if t.Name.Local != "doc" {
				return p.errf(p.line, "the root element is <%s>; a ProfilerJ snapshot has <doc>", t.Name.Local)
			}
			if err := p.children("doc", p.section); err != nil {
				return err
			}
			return p.trailer()
		case xml.CharData:
			if err := p.text(t, "before <doc>"); err != nil {
				return err
			}
		}
	}
}

// trailer checks that nothing but comments and white space follows </doc>.
func (p *parser) trailer() error {
	for {
		tok, err := p.next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			return p.errf(p.line, "element <%s> after </doc>", t.Name.Local)
		case xml.CharData:
			if err := p.text(t, "after </doc>"); err != nil {
				return err
			}
		}
	}
}

func (p *parser) section(se xml.StartElement, line int) error {
	kind := se.Name.Local
	sec := &section{kind: kind}
	var err error
	switch kind {
	case "profile", "sampler":
		b := functiontrace.NewBuilder()
		b.SetSpool(p.spool.memLimit, p.spool.dir)
		c := profileCounter
		if kind == "sampler" {
			c = samplerCounter
		}
		b.SetCounter(&c)
		sec.ft = &ftSection{b: b, sampler: kind == "sampler", routines: map[string]*functiontrace.Routine{}}
		p.snap.sections = append(p.snap.sections, sec) // closed with the snapshot, also on error
		err = p.children(kind, func(se xml.StartElement, line int) error {
			if se.Name.Local != "thread" {
				return p.unexpected(se, line, kind)
			}
			return p.callThread(sec.ft, se, line)
		})
	case "memory":
		sec.res = resource.NewBuilder()
		p.snap.sections = append(p.snap.sections, sec)
		err = p.children(kind, func(se xml.StartElement, line int) error {
			if se.Name.Local != "thread" {
				return p.unexpected(se, line, kind)
			}
			return p.memoryThread(sec.res, se, line)
		})
	case "coverage":
		b := lightcoverage.NewBuilder()
		b.SetSpool(p.spool.memLimit, p.spool.dir) // a method's lines end before the next method
		sec.lc = &lcSection{b: b}
		p.snap.sections = append(p.snap.sections, sec)
		err = p.children(kind, func(se xml.StartElement, line int) error {
			if se.Name.Local != "class" {
				return p.unexpected(se, line, kind)
			}
			return p.class(sec.lc, se, line)
		})
	default:
		return p.unexpected(se, line, "doc")
	}
	if err != nil {
		return err
	}
	return nil
}

// attrs reads the attributes of a start tag. An attribute with an empty
// value counts as absent.
type attrs struct {
	p    *parser
	se   xml.StartElement
	line int
}

func (a attrs) str(name string) string {
	for _, at := range a.se.Attr {
		if at.Name.Local == name {
			return at.Value
		}
	}
	return ""
}

// int returns the integer attribute name, 0 and false when absent.
func (a attrs) int(name string) (int64, bool, error) {
	s := strings.TrimSpace(a.str(name))
	if s == "" {
		return 0, false, nil
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, false, a.p.errf(a.line, "<%s %s=%q>: not an integer", a.se.Name.Local, name, shorten(a.str(name)))
	}
	return v, true, nil
}

// ints checks that the attributes named, when present, are integers.
func (a attrs) ints(names ...string) error {
	for _, n := range names {
		if _, _, err := a.int(n); err != nil {
			return err
		}
	}
	return nil
}

// bool checks that the attribute name, when present, is true or false.
func (a attrs) bool(name string) error {
	switch s := strings.TrimSpace(a.str(name)); s {
	case "", "true", "false":
		return nil
	default:
		return a.p.errf(a.line, "<%s %s=%q>: want true or false", a.se.Name.Local, name, shorten(s))
	}
}

func shorten(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

// first returns the first of the integer attributes present.
func (a attrs) first(names ...string) (int64, error) {
	for _, n := range names {
		v, ok, err := a.int(n)
		if err != nil || ok {
			return v, err
		}
	}
	return 0, nil
}

// callThread reads a <thread> of the profile or sampler section: a THREADS
// row and its call tree.
func (p *parser) callThread(s *ftSection, se xml.StartElement, line int) error {
	a := attrs{p, se, line}
	if err := a.ints("cpuTime", "elapsedTime", "cumulated", "cumulatedElapsed"); err != nil {
		return err
	}
	if err := a.bool("isAlive"); err != nil {
		return err
	}
	th := s.b.AddThread(functiontrace.ThreadInfo{})
	depth := 0
	for {
		tok, err := p.next()
		if err != nil {
			return err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if t.Name.Local != "profile" {
				parent := "thread"
				if depth > 0 {
					parent = "profile"
				}
				if err := p.unexpected(t, p.line, parent); err != nil {
					return err
				}
				continue
			}
			c, err := s.call(attrs{p, t, p.line})
			if err != nil {
				return err
			}
			if _, err := th.Enter(c); err != nil {
				return p.errf(p.line, "%v", err)
			}
			depth++
		case xml.EndElement:
			if depth == 0 {
				return nil // </thread>
			}
			if err := th.Exit(); err != nil {
				return p.errf(p.line, "%v", err)
			}
			depth--
		case xml.CharData:
			if err := p.text(t, "in a call tree"); err != nil {
				return err
			}
		}
	}
}

// call reads the attributes of a call-tree <profile> node.
func (s *ftSection) call(a attrs) (functiontrace.CallInfo, error) {
	var c functiontrace.CallInfo
	var err error
	if s.sampler {
		if err = a.ints("hits", "elapsed", "cumulated", "cumulatedElapsed"); err != nil {
			return c, err
		}
		c.Time, _ = a.first("elapsed", "hits")
		c.TimeWithChildren, _ = a.first("cumulatedElapsed", "cumulated")
		c.Count = c.Time // samples taken in the method itself
	} else {
		if err = a.ints("count", "methodElapsed", "method", "cumulatedElapsed", "cumulated",
			"overheadCumulated", "overheadMethod", "exceptions"); err != nil {
			return c, err
		}
		c.Count, _, _ = a.int("count")
		c.Time, _ = a.first("methodElapsed", "method")
		c.TimeWithChildren, _ = a.first("cumulatedElapsed", "cumulated")
	}
	c.Routine = s.routine(a.str("name"), a.str("signature"))
	return c, nil
}

// routine returns the routine of a method, adding it on first use. Routines
// are told apart by name and signature.
func (s *ftSection) routine(name, sig string) *functiontrace.Routine {
	key := name + "\x00" + sig
	if r, ok := s.routines[key]; ok {
		return r
	}
	m := parseMethod(name)
	moniker := name
	if sig != "" {
		moniker = m.qualified() + "." + m.method + sig
	}
	r := s.b.AddRoutine(functiontrace.RoutineInfo{
		Name: m.routineName(), Class: m.class, Namespace: m.pkg, Module: moduleOf(m.pkg),
		CodeType: "Byte-code", SymbolMoniker: moniker,
	})
	s.routines[key] = r
	s.methods = append(s.methods, ftMethod{r: r, m: m, sig: sig})
	return r
}

// memoryThread reads a <thread> of the memory section: a THREADS row, and
// per <memory> entry figures added to the entry's class.
func (p *parser) memoryThread(b *resource.Builder, se xml.StartElement, line int) error {
	b.AddThread(resource.ThreadInfo{})
	return p.children("thread", func(se xml.StartElement, line int) error {
		if se.Name.Local != "memory" {
			return p.unexpected(se, line, "thread")
		}
		a := attrs{p, se, line}
		count, hasCount, err := a.int("count")
		if err != nil {
			return err
		}
		peak, hasMax, err := a.int("max")
		if err != nil {
			return err
		}
		full := a.str("class")
		pkg, name := splitClass(full)
		c := b.Class(name, moduleOf(pkg))
		c.SetSymbolMoniker(full)
		st := resource.ClassStats{LiveCount: count, PeakCreated: peak}
		if hasCount {
			st.Known |= resource.LiveCount
		}
		if hasMax {
			st.Known |= resource.PeakCreated
		}
		if st.Known != 0 {
			c.Add(st)
		}
		return p.children("memory", func(se xml.StartElement, line int) error {
			return p.unexpected(se, line, "memory")
		})
	})
}

// class reads a <class> of the coverage section.
func (p *parser) class(s *lcSection, se xml.StartElement, line int) error {
	a := attrs{p, se, line}
	full := a.str("name")
	if full == "" {
		full = a.str("class")
	}
	source := a.str("source")
	pkg, name := splitClass(full)
	return p.children("class", func(se xml.StartElement, line int) error {
		if se.Name.Local != "method" {
			return p.unexpected(se, line, "class")
		}
		return p.method(s, full, pkg, name, source, attrs{p, se, line})
	})
}

// method reads a <method> of the coverage section: a routine and, from its
// footprints, its lines.
func (p *parser) method(s *lcSection, full, pkg, class, source string, a attrs) error {
	first, hasFirst, err := a.int("firstline")
	if err != nil {
		return err
	}
	count, _, err := a.int("count")
	if err != nil {
		return err
	}
	name, sig := a.str("name"), a.str("signature")
	moniker := full + "." + name + sig
	if full == "" {
		moniker = name + sig
	}
	r := s.b.AddRoutine(lightcoverage.RoutineInfo{
		Name: name, Class: class, Namespace: pkg, Module: moduleOf(pkg), SourceFile: source,
		SourceLine: first, CodeType: "Byte-code", Count: count, LineLevel: true, SymbolMoniker: moniker,
	})
	if hasFirst {
		s.methods = append(s.methods, lcMethod{class: full, method: name, sig: sig, source: source, firstline: first})
	}
	seen := false
	return p.children("method", func(se xml.StartElement, line int) error {
		if se.Name.Local != "footprints" {
			return p.unexpected(se, line, "method")
		}
		if seen {
			return p.errf(line, "a second <footprints> in <method name=%q>", shorten(name))
		}
		seen = true
		if !hasFirst {
			p.warn(line, "<method name=%q> has footprints but no firstline: its lines are numbered from 0", shorten(name))
		}
		return p.footprints(r, first)
	})
}

// footprints reads the integers of a <footprints> element: one per source
// line from firstline on; -1 is no code, 0 not reached, n > 0 run n times.
func (p *parser) footprints(r *lightcoverage.Routine, first int64) error {
	idx := int64(0)
	var carry []byte // a number cut by the end of a chunk of text
	line, carryLine := 0, 0
	word := func(w []byte, line int) error {
		v, err := strconv.ParseInt(string(w), 10, 64)
		if err != nil {
			return p.errf(line, "footprint %q is not an integer", shorten(string(w)))
		}
		switch {
		case v >= 0:
			r.AddLine(first+idx, v)
		case v != -1:
			return p.errf(line, "footprint %d: want -1 (no code), 0 (not reached) or a count", v)
		}
		idx++
		return nil
	}
	for {
		tok, err := p.next()
		if err != nil {
			return err
		}
		switch t := tok.(type) {
		case xml.CharData:
			line = p.line
			for i := 0; i < len(t); {
				c, size := utf8.DecodeRune(t[i:])
				if unicode.IsSpace(c) {
					if len(carry) > 0 {
						if err := word(carry, carryLine); err != nil {
							return err
						}
						carry = carry[:0]
					}
					if c == '\n' {
						line++
					}
					i += size
					continue
				}
				if len(carry) == 0 {
					carryLine = line
				}
				if len(carry) > 64 {
					return p.errf(carryLine, "footprint %q… is not an integer", string(carry[:20]))
				}
				carry = append(carry, t[i:i+size]...)
				i += size
			}
		case xml.StartElement:
			if err := p.unexpected(t, p.line, "footprints"); err != nil {
				return err
			}
			if len(carry) > 0 { // text either side of an element is two words
				if err := word(carry, carryLine); err != nil {
					return err
				}
				carry = carry[:0]
			}
		case xml.EndElement:
			if len(carry) > 0 {
				return word(carry, carryLine)
			}
			return nil
		}
	}
}

// linkSources gives the routines of the profile and sampler sections the
// source file and first line of the same method in the coverage section: by
// class, method name and signature, or, for a method without signature (the
// sampler writes none), by class and method name when the coverage section
// has one method of that name in the class.
func (s *snapshot) linkSources() {
	exact := map[string]lcMethod{}
	byName := map[string]*lcMethod{}
	ambiguous := map[string]bool{}
	for _, sec := range s.sections {
		if sec.lc == nil {
			continue
		}
		for i := range sec.lc.methods {
			m := &sec.lc.methods[i]
			if m.source == "" {
				continue
			}
			exact[m.class+"."+m.method+m.sig] = *m
			k := m.class + "." + m.method
			if prev, ok := byName[k]; ok && prev.sig != m.sig {
				ambiguous[k] = true
			}
			byName[k] = m
		}
	}
	if len(exact) == 0 {
		return
	}
	for _, sec := range s.sections {
		if sec.ft == nil {
			continue
		}
		for _, fm := range sec.ft.methods {
			k := fm.m.qualified() + "." + fm.m.method
			var src *lcMethod
			if fm.sig != "" {
				if m, ok := exact[k+fm.sig]; ok {
					src = &m
				}
			} else if m, ok := byName[k]; ok && !ambiguous[k] {
				src = m
			}
			if src != nil {
				fm.r.SetSource(src.source, src.firstline)
			}
		}
	}
}

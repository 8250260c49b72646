package report

import (
	"bufio"
	"context"
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"errors"
	"fmt"
	"html/template"
	"io"
	"io/fs"
	"strconv"
	"strings"
	"sync"

	"github.com/profdb/profdb/internal/srcroot"
	"github.com/profdb/profdb/internal/termtext"
	"github.com/profdb/profdb/readback"
	"github.com/profdb/profdb/resultset"
	"github.com/profdb/profdb/trend"
)

//go:embed assets/report.html.tmpl assets/report.css assets/report.js
var assets embed.FS

// Options say what a report holds and how much of it.
type Options struct {
	Title string  // the page title; "" means "profdb report"
	Inst  []int64 // the result sets; none means all
	// SourceRoot is where coverage sources are looked for; "" shows the
	// line table instead of sources. Only files under it are read (package
	// srcroot says how names are matched and what is refused); a name that
	// is refused is a warning on the page and to Warnf.
	SourceRoot string
	// Warnf, if set, receives the warnings the page shows too.
	Warnf    func(format string, args ...any)
	Top      int // entries per list (0: 200)
	MaxLines int // coverage lines (or source lines) embedded per result set (0: 20000)
	MaxNodes int // call tree and flame graph nodes (0: 1000)
	// MaxDepth is the most calls along a route the call tree and the
	// flame graph show (0: readback.DefaultMaxDepth); deeper calls are
	// folded into one "(deeper calls)" node under the call at that depth.
	MaxDepth int
	// Compare, when set, holds two INST_IDs, A and B: the report adds a
	// page comparing B with A (package compare), and for two function
	// traces a differential flame graph.
	Compare []int64
	// Trend, when set, makes the report the page of a trend (package
	// trend) instead: line charts of its figures over the runs, drawn as
	// inline SVG, each point linking to its run; the runs with their
	// commit, branch and build (linked when the build URL is http or
	// https); the movers. Inst and Compare must then be empty.
	Trend *trend.Options
	// Links, when set, makes the page one of a server's (profdb serve):
	// it links to the server's pages (Links) rather than to sections of
	// its own, and its policy lets its forms send to the server.
	Links Links
	// noLines leaves the coverage lines out of a result set's page (a
	// server's run page links to its sources' pages instead).
	noLines bool
}

// Links are the addresses of a server's pages, each one escaped for a
// URL: a page of the server links there.
type Links interface {
	Runs() string                          // the list of runs
	Run(inst int64) string                 // one run
	Source(inst int64, file string) string // a source file of a run
	Compare(a, b int64) string             // B compared with A
	Trend(profiler, branch string) string  // the trend of a profiler's runs on a branch; "" for none
	// TrendOf is the trend being shown, narrowed to one source file or
	// routine (kind is trend.Item's Kind).
	TrendOf(kind, name string) string
}

func (o *Options) defaults() {
	if o.Title == "" {
		o.Title = "profdb report"
	}
	if o.Top <= 0 {
		o.Top = 200
	}
	if o.MaxLines <= 0 {
		o.MaxLines = 20000
	}
	if o.MaxNodes <= 0 {
		o.MaxNodes = 1000
	}
	if o.MaxDepth <= 0 {
		o.MaxDepth = readback.DefaultMaxDepth
	}
}

type page struct {
	Links  Links // a server's; nil for a file
	Runs   *RunsPage
	Error  string
	Status int
	Title  string
	CSP    string // the Content-Security-Policy: see policy
	CSS    template.CSS
	JS     template.JS
	Top    int
	Sets   []*set
	Cmp    *comparison
	Trend  *trendPage
}

// policy is the page's Content-Security-Policy: nothing may load, and the
// only style and script that may run are the page's own <style> and
// <script>, named by the SHA-256 of their text. No other inline script
// (an event handler attribute, a <script> that a name smuggled in past an
// escaping mistake) and no style attribute is obeyed.
func policy(css, js []byte) string {
	return "default-src 'none'; style-src " + sourceHash(css) + "; script-src " + sourceHash(js) +
		"; base-uri 'none'; form-action 'none'"
}

// sourceHash is the CSP hash source of an inline element's text.
func sourceHash(text []byte) string {
	sum := sha256.Sum256(text)
	return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
}

type set struct {
	Summary      *readback.Summary
	Run          *runView // the run's identity; nil when none is recorded
	Anchor       string
	Sources      []*source
	Lines        []readback.Line
	LinesOmitted int64
	MaxLines     int
	Tree         *readback.Node
	Flame        template.HTML
	TreeCut      bool
	MaxNodes     int
	Folded       int64 // calls folded below MaxDepth
	MaxDepth     int
	Warnings     []string // source files refused, for instance
	Baseline     int64    // a server's run page: the run to compare it with; 0 for none
	SourceOnly   bool     // a server's source page: the source of File only
	File         string
}

// runView is a run's identity as a result set's page shows it: the
// commit's first 12 digits (the whole name in its title), the build
// linked only when its URL is http or https (webURL, as the trend page
// does; another URL is not shown) and within runid.MaxBuildURL, the
// labels as list prints them (readback.LabelText). The page shows its
// text as termtext.Field does, a long value cut.
type runView struct {
	Commit, Full string
	Dirty        bool
	Branch, CI   string
	BuildID      string
	Link         string // the build URL, when http(s)
	Labels       string // readback.LabelText
	MergedFrom   []int64
}

// runViewOf is the view of a run's identity; nil for none.
func runViewOf(r *resultset.Run) *runView {
	if r == nil {
		return nil
	}
	return &runView{Commit: readback.ShortCommit(r.Commit), Full: r.Commit, Dirty: r.Dirty != nil && *r.Dirty, Branch: r.Branch, CI: r.CI,
		BuildID: r.BuildID, Link: webURL(r.BuildURL), Labels: readback.LabelText(r.Labels), MergedFrom: r.MergedFrom}
}

type source struct {
	Name, Path     string
	Covered, Total int64
	Open           bool
	Lines          []srcLine
}

type srcLine struct {
	No    int
	Count string
	Class string // "hit", "miss" or ""
	Text  string
}

// Write reads the result sets through r and writes the report to w.
func Write(ctx context.Context, r *readback.Reader, w io.Writer, o Options) error {
	tmpl, p, err := newPage(&o)
	if err != nil {
		return err
	}
	if o.Trend != nil {
		if len(o.Inst) > 0 || len(o.Compare) > 0 {
			return fmt.Errorf("report: a trend page holds no other result sets or comparison")
		}
		t, err := trend.Compute(ctx, r, *o.Trend)
		if err != nil {
			return fmt.Errorf("report: %w", err)
		}
		p.Trend = trendPageOf(t, o.Links)
		return execute(tmpl, w, p)
	}
	list, err := r.Instances(ctx, o.Inst...)
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	var src *srcroot.Root
	if o.SourceRoot != "" {
		if src, err = srcroot.Open(o.SourceRoot, srcroot.Options{}); err != nil {
			return fmt.Errorf("report: %w", err)
		}
		defer src.Close()
	}
	for _, in := range list {
		s, err := setOf(ctx, r, in, src, o)
		if err != nil {
			return fmt.Errorf("report: %w", err)
		}
		p.Sets = append(p.Sets, s)
	}
	switch len(o.Compare) {
	case 0:
	case 2:
		if p.Cmp, err = compareOf(ctx, r, o); err != nil {
			return fmt.Errorf("report: %w", err)
		}
	default:
		return fmt.Errorf("report: Compare needs two INST_IDs, A and B, not %d", len(o.Compare))
	}
	return execute(tmpl, w, p)
}

// execute writes the page.
func execute(tmpl *template.Template, w io.Writer, p *page) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	if err := tmpl.ExecuteTemplate(bw, "report.html.tmpl", p); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("report: write: %w", err)
	}
	return nil
}

// parse returns the report's template, parsed once: html/template escapes
// it on its first execution, and executes it concurrently after, so the
// pages a server writes one after the other share the work.
var parse = sync.OnceValues(parseTemplate)

func parseTemplate() (*template.Template, error) {
	funcs := template.FuncMap{
		"pct":       readback.Percent,
		"qualified": func(class, name string) string { return readback.FullName("", class, name) },
		"name":      termtext.Name,  // names are shown as the CLI prints them
		"field":     termtext.Field, // and a caption, a branch, a build, a long one cut
		"line":      termtext.Line,  // and messages too
		"args":      func(v ...any) []any { return v },
		"inc":       func(i int) int { return i + 1 },
		"change":    change,
		"pchange":   pointsChange,
		"changev":   changeValue,
		"tchange":   timeChange,
		"num":       func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) },
		"ticks":     func(t *readback.Trace, v float64) string { return t.Format(int64(v)) },
		"tfmt":      trend.Format,
		"tchg":      trend.Change,
	}
	t, err := template.New("report.html.tmpl").Funcs(funcs).ParseFS(assets, "assets/report.html.tmpl")
	if err != nil {
		return nil, fmt.Errorf("report: template: %w", err)
	}
	return t, nil
}

func setOf(ctx context.Context, r *readback.Reader, in readback.Instance, src *srcroot.Root, o Options) (*set, error) {
	sum, err := r.Summarize(ctx, in.InstID, readback.Options{Top: o.Top})
	if err != nil {
		return nil, err
	}
	s := &set{Summary: sum, Run: runViewOf(sum.Instance.Run), Anchor: fmt.Sprintf("inst-%d", in.InstID), MaxLines: o.MaxLines,
		MaxNodes: o.MaxNodes, MaxDepth: o.MaxDepth}
	switch {
	case sum.Coverage != nil && !o.noLines:
		if err := s.coverage(ctx, r, in, src, o); err != nil {
			return nil, err
		}
	case sum.Trace != nil:
		tree, err := r.CallTreeLimited(ctx, in, sum.Trace, readback.TreeLimits{MaxNodes: o.MaxNodes, MaxDepth: o.MaxDepth})
		if err != nil {
			return nil, err
		}
		s.Tree = tree
		s.TreeCut = hasRest(tree)
		s.Folded = tree.Folded
		s.Flame = flame(tree, sum.Trace)
	}
	return s, nil
}

func hasRest(n *readback.Node) bool {
	if n.Rest > 0 {
		return true
	}
	for _, c := range n.Children {
		if hasRest(c) {
			return true
		}
	}
	return false
}

// coverage adds the source view, when sources are found under the source
// root, else the line table; at most MaxLines lines either way.
func (s *set) coverage(ctx context.Context, r *readback.Reader, in readback.Instance, root *srcroot.Root, o Options) error {
	var embedded int
	var cur *source
	var text []string
	var ferr error
	files := map[string]*source{}
	for _, f := range s.Summary.Coverage.Files.Items {
		files[f.Name] = &source{Name: f.Name, Covered: f.Covered, Total: f.Total}
	}
	err := r.Lines(ctx, in, false, func(l readback.Line) bool {
		if embedded >= o.MaxLines {
			s.LinesOmitted++
			return true
		}
		if root != nil {
			if cur == nil || cur.Name != l.File {
				cur, text = nil, nil
				if src := files[l.File]; src != nil {
					delete(files, l.File) // looked up once
					f, err := s.findSource(ctx, root, l.File, o)
					if err != nil {
						ferr = err
						return false
					}
					if f != nil {
						text = strings.Split(strings.ReplaceAll(string(f.Data), "\r\n", "\n"), "\n")
						src.Path, cur = f.Path, src
						src.Open = len(s.Sources) == 0
						s.Sources = append(s.Sources, src)
					}
				}
			}
			if cur != nil {
				cur.mark(l, text)
				embedded++
				return true
			}
		}
		s.Lines = append(s.Lines, l)
		embedded++
		return true
	})
	if err != nil {
		return err
	}
	return ferr
}

// findSource looks a result set's source file name up under the source
// root (srcroot.Root.Find): nil when it is not there, and a warning when
// it is refused.
func (s *set) findSource(ctx context.Context, root *srcroot.Root, name string, o Options) (*srcroot.File, error) {
	f, err := root.Find(ctx, name)
	switch {
	case err == nil:
		return f, nil
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil
	case errors.Is(err, srcroot.ErrRefused):
		s.Warnings = append(s.Warnings, err.Error())
		if o.Warnf != nil {
			o.Warnf("%s", err)
		}
		return nil, nil
	}
	return nil, err
}

// mark records a line's count in a source's view, adding the unmarked
// lines before it. A source shows its lines up to the last one with a
// count.
func (src *source) mark(l readback.Line, text []string) {
	n := int(l.Line)
	if n < 1 {
		return
	}
	for len(src.Lines) < n {
		sl := srcLine{No: len(src.Lines) + 1}
		if len(src.Lines) < len(text) {
			sl.Text = text[len(src.Lines)]
		}
		src.Lines = append(src.Lines, sl)
	}
	sl := &src.Lines[n-1]
	if sl.Class == "hit" { // two routines on one line: covered if either ran
		return
	}
	sl.Count = l.Count.String()
	if l.Count.Float() > 0 {
		sl.Class = "hit"
	} else {
		sl.Class = "miss"
	}
}

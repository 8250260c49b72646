package report

import (
	"context"
	"errors"
	"fmt"
	"html/template"
	"io"
	"io/fs"
	"strings"
	"sync"

	"github.com/profdb/profdb/internal/srcroot"
	"github.com/profdb/profdb/profilers/lightcoverage"
	"github.com/profdb/profdb/readback"
	"github.com/profdb/profdb/store"
)

// The pages of a server (profdb serve): one run, one source file of a
// run, one comparison, a trend (Write with Options.Trend), the list of
// runs and an error, each written with Options.Links set, from the same
// template, CSS and JavaScript as the file and with the same limits.

// ServedPolicy is the Content-Security-Policy header of a server's pages:
// the page's CSS and JavaScript by hash, nothing else loads, forms send
// only to the server itself, and no other site frames the page. The page
// carries the same policy in its meta element, but for frame-ancestors,
// which a browser obeys only in the header (and reports as an error in a
// meta element). The hashes are computed once.
func ServedPolicy() (string, error) {
	meta, err := servedMeta()
	if err != nil {
		return "", err
	}
	return meta + "; frame-ancestors 'none'", nil
}

// servedMeta is the policy of a server's page in its meta element, its
// hashes computed once.
var servedMeta = sync.OnceValues(func() (string, error) {
	css, js, err := styleAndScript()
	if err != nil {
		return "", err
	}
	return servedPolicy(css, js), nil
})

// servedPolicy is the policy of a server's page in its meta element.
func servedPolicy(css, js []byte) string {
	return "default-src 'none'; style-src " + sourceHash(css) + "; script-src " + sourceHash(js) +
		"; base-uri 'none'; form-action 'self'"
}

func styleAndScript() (css, js []byte, err error) {
	if css, err = assets.ReadFile("assets/report.css"); err != nil {
		return nil, nil, fmt.Errorf("report: %w", err)
	}
	if js, err = assets.ReadFile("assets/report.js"); err != nil {
		return nil, nil, fmt.Errorf("report: %w", err)
	}
	return css, js, nil
}

// newPage is the page of o, with its template.
func newPage(o *Options) (*template.Template, *page, error) {
	o.defaults()
	tmpl, err := parse()
	if err != nil {
		return nil, nil, err
	}
	css, js, err := styleAndScript()
	if err != nil {
		return nil, nil, err
	}
	p := &page{CSS: template.CSS(css), JS: template.JS(js), Title: o.Title, Top: o.Top, Links: o.Links}
	if o.Links != nil {
		if p.CSP, err = servedMeta(); err != nil {
			return nil, nil, err
		}
	} else {
		p.CSP = policy(css, js)
	}
	return tmpl, p, nil
}

// served checks that o is a server's.
func served(o Options) error {
	if o.Links == nil {
		return errors.New("report: a server's page needs Options.Links")
	}
	return nil
}

// WriteRun writes the page of result set inst as a server shows it: the
// figures of show, the call tree and flame graph of a trace, its source
// files linked to their pages, and links to its trend and to its
// comparison with baseline (none when 0).
func WriteRun(ctx context.Context, r *readback.Reader, w io.Writer, inst, baseline int64, o Options) error {
	if err := served(o); err != nil {
		return err
	}
	tmpl, p, err := newPage(&o)
	if err != nil {
		return err
	}
	list, err := r.Instances(ctx, inst)
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	o.noLines = true // the sources have pages of their own
	s, err := setOf(ctx, r, list[0], nil, o)
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	s.Baseline = baseline
	p.Sets = []*set{s}
	return execute(tmpl, w, p)
}

// ErrNoSuchFile is the error of WriteSource for a file the result set
// does not hold.
var ErrNoSuchFile = errors.New("the result set holds no such source file")

// WriteSource writes the page of one source file of coverage result set
// inst: its lines marked covered or not in the source found under
// o.SourceRoot (as the report finds it), else its line table; at most
// o.MaxLines lines.
func WriteSource(ctx context.Context, r *readback.Reader, w io.Writer, inst int64, file string, o Options) error {
	if err := served(o); err != nil {
		return err
	}
	tmpl, p, err := newPage(&o)
	if err != nil {
		return err
	}
	in, err := r.Instance(ctx, inst)
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	if in.Profiler != lightcoverage.Name {
		return fmt.Errorf("report: %s: %w", file, ErrNoSuchFile)
	}
	var fc *readback.FilePair
	err = r.FileCoverage(ctx, in, in, func(f readback.FilePair) error {
		if f.Name == file && f.InA {
			fc = &f
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	if fc == nil {
		return fmt.Errorf("report: %s: %w", file, ErrNoSuchFile)
	}
	s := &set{Summary: &readback.Summary{Instance: in}, Run: runViewOf(in.Run), Anchor: fmt.Sprintf("inst-%d", inst), MaxLines: o.MaxLines, SourceOnly: true, File: file}
	src := &source{Name: file, Covered: fc.A.Covered, Total: fc.A.Total, Open: true}
	var text []string
	if o.SourceRoot != "" {
		root, err := srcroot.Open(o.SourceRoot, srcroot.Options{})
		if err != nil {
			return fmt.Errorf("report: %w", err)
		}
		defer root.Close()
		f, err := root.Find(ctx, file)
		switch {
		case err == nil:
			text = strings.Split(strings.ReplaceAll(string(f.Data), "\r\n", "\n"), "\n")
			src.Path = f.Path
			s.Sources = []*source{src}
		case errors.Is(err, fs.ErrNotExist):
		case errors.Is(err, srcroot.ErrRefused):
			s.Warnings = append(s.Warnings, err.Error())
		default:
			return fmt.Errorf("report: %w", err)
		}
	}
	embedded := 0
	err = r.Lines(ctx, in, false, func(l readback.Line) bool {
		if l.File != file {
			return true
		}
		if embedded >= o.MaxLines {
			s.LinesOmitted++
			return true
		}
		embedded++
		if s.Sources != nil {
			src.mark(l, text)
		} else {
			s.Lines = append(s.Lines, l)
		}
		return true
	})
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	p.Sets = []*set{s}
	return execute(tmpl, w, p)
}

// WriteCompare writes the page comparing result set b with a, as a
// server shows it, each linked to its page.
func WriteCompare(ctx context.Context, r *readback.Reader, w io.Writer, a, b int64, o Options) error {
	if err := served(o); err != nil {
		return err
	}
	tmpl, p, err := newPage(&o)
	if err != nil {
		return err
	}
	o.Compare = []int64{a, b}
	if p.Cmp, err = compareOf(ctx, r, o); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	return execute(tmpl, w, p)
}

// RunsPage is the list of runs of a server: the runs of one page, newest
// first, the filter that chose them, and the addresses of the pages
// before and after.
type RunsPage struct {
	Runs []RunRow
	// Filter holds the filter's values as given, by parameter name
	// (profiler, branch, commit, label, since, caption).
	Filter    map[string]string
	Profilers []string
	First     string // the first page's address; "" on the first page
	Next      string // the next page's address; "" on the last
	PageSize  int
}

// RunRow is a run of the list: its listing and its headline figure
// (readback.Figures.Headline).
type RunRow struct {
	store.Listing
	Headline string
}

// View is the run's identity as a result set's page shows it; nil for
// none.
func (r RunRow) View() *runView { return runViewOf(r.Run) }

// WriteRuns writes the list of runs.
func WriteRuns(w io.Writer, rp *RunsPage, o Options) error {
	if err := served(o); err != nil {
		return err
	}
	tmpl, p, err := newPage(&o)
	if err != nil {
		return err
	}
	p.Runs = rp
	return execute(tmpl, w, p)
}

// WriteError writes a server's page for an error: its status and what
// was looked for.
func WriteError(w io.Writer, status int, msg string, o Options) error {
	if err := served(o); err != nil {
		return err
	}
	tmpl, p, err := newPage(&o)
	if err != nil {
		return err
	}
	p.Status, p.Error = status, msg
	return execute(tmpl, w, p)
}

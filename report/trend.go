package report

import (
	"fmt"
	"html/template"
	"math"
	"net/url"
	"strconv"
	"strings"

	"github.com/profdb/profdb/internal/runid"
	"github.com/profdb/profdb/internal/termtext"
	"github.com/profdb/profdb/readback"
	"github.com/profdb/profdb/trend"
)

// trendPage is the page of report --trend: the trend, its charts, and per
// run its identity and a link to its build.
type trendPage struct {
	T      *trend.Trend
	Charts []template.HTML
	Runs   []trendRun
}

type trendRun struct {
	trend.Run
	View   runView // the run's identity as a result set's page shows it; zero when none
	Values []string
}

// Chart geometry, in SVG user units.
const (
	chartW, chartH            = 900.0, 260.0
	chartLeft, chartRight     = 90.0, 20.0
	chartTop, chartBottom     = 16.0, 34.0
	pointRadius               = 3.5
	chartColours          int = 4
)

// chartColour is the stroke of the i-th series of a chart.
func chartColour(i int) string {
	return [chartColours]string{"#1565c0", "#c62828", "#2e7d32", "#6a1b9a"}[i%chartColours]
}

// trendPageOf lays a trend out for the template: the series grouped into
// one chart per unit (line and routine coverage on one, times on
// another), and the runs with the figures as text.
func trendPageOf(t *trend.Trend, links Links) *trendPage {
	p := &trendPage{T: t}
	var units []string
	byUnit := map[string][]trend.Series{}
	for _, s := range t.Series {
		if _, ok := byUnit[s.Unit]; !ok {
			units = append(units, s.Unit)
		}
		byUnit[s.Unit] = append(byUnit[s.Unit], s)
	}
	for _, u := range units {
		p.Charts = append(p.Charts, chart(t, byUnit[u], u, links))
	}
	for i, run := range t.Runs {
		r := trendRun{Run: run}
		if v := runViewOf(run.Identity); v != nil {
			r.View = *v
		}
		for _, s := range t.Series {
			v := "-"
			if x := s.Values[i]; x != nil {
				v = trend.Format(*x, s.Unit)
			}
			r.Values = append(r.Values, v)
		}
		p.Runs = append(p.Runs, r)
	}
	return p
}

// webURL is u when it is an absolute http or https address of at most
// runid.MaxBuildURL bytes, else "".
func webURL(u string) string {
	if len(u) > runid.MaxBuildURL {
		return "" // not one profdb recorded: a cut address would lead elsewhere
	}
	p, err := url.Parse(u)
	if err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
		return ""
	}
	return p.String()
}

// chart draws series of one unit over the runs as an inline SVG line
// chart: a polyline per series (broken where a run lacks the figure), a
// point per run that links to the run's row (#run-INST_ID), or its page
// where links are given, with a title
// naming the run and its value, the value range on the y axis and the
// first and last INST_ID on the x axis. Text is escaped; colours are
// attributes, not style, so the page's CSP holds.
func chart(t *trend.Trend, series []trend.Series, unit string, links Links) template.HTML {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, s := range series {
		for _, v := range s.Values {
			if v != nil {
				lo, hi = math.Min(lo, *v), math.Max(hi, *v)
			}
		}
	}
	if math.IsInf(lo, 1) {
		lo, hi = 0, 1
	}
	if hi == lo {
		lo, hi = lo-1, hi+1
		if unit != "%" && lo < 0 && hi-1 >= 0 {
			lo = 0
		}
	}
	n := len(t.Runs)
	plotW, plotH := chartW-chartLeft-chartRight, chartH-chartTop-chartBottom
	x := func(i int) float64 {
		if n == 1 {
			return chartLeft + plotW/2
		}
		return chartLeft + float64(i)*plotW/float64(n-1)
	}
	y := func(v float64) float64 { return chartTop + (hi-v)/(hi-lo)*plotH }
	esc := template.HTMLEscapeString
	var labels []string
	for _, s := range series {
		labels = append(labels, s.Label)
	}
	title := strings.Join(labels, ", ") + " over " + strconv.Itoa(n) + " runs"
	var b strings.Builder
	fmt.Fprintf(&b, `<figure class="chart"><svg class="trend" xmlns="http://www.w3.org/2000/svg" width="100%%" viewBox="0 0 %.0f %.0f" role="img" aria-label="%s">`,
		chartW, chartH, esc(termtext.Name(title)))
	// Axes and the value range.
	fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#999"/>`, chartLeft, chartTop, chartLeft, chartTop+plotH)
	fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#999"/>`, chartLeft, chartTop+plotH, chartLeft+plotW, chartTop+plotH)
	for _, v := range []float64{lo, hi} {
		fmt.Fprintf(&b, `<text class="axis" x="%.1f" y="%.1f" text-anchor="end">%s</text>`, chartLeft-6, y(v)+4, esc(trend.Format(v, unit)))
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#eee"/>`, chartLeft+1, y(v), chartLeft+plotW, y(v))
	}
	fmt.Fprintf(&b, `<text class="axis" x="%.1f" y="%.1f" text-anchor="start">INST_ID %d</text>`, chartLeft, chartH-10, t.Runs[0].InstID)
	if n > 1 {
		fmt.Fprintf(&b, `<text class="axis" x="%.1f" y="%.1f" text-anchor="end">INST_ID %d</text>`, chartLeft+plotW, chartH-10, t.Runs[n-1].InstID)
	}
	for si, s := range series {
		colour := chartColour(si)
		fmt.Fprintf(&b, `<g class="series" data-series="%s">`, esc(s.Key))
		// The line, broken where a run lacks the figure.
		var pts []string
		flush := func() {
			if len(pts) > 1 {
				fmt.Fprintf(&b, `<polyline fill="none" stroke="%s" stroke-width="2" points="%s"/>`, colour, strings.Join(pts, " "))
			}
			pts = pts[:0]
		}
		for i, v := range s.Values {
			if v == nil {
				flush()
				continue
			}
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", x(i), y(*v)))
		}
		flush()
		for i, v := range s.Values {
			if v == nil {
				continue
			}
			run := t.Runs[i]
			tip := fmt.Sprintf("INST_ID %d", run.InstID)
			if id := run.Identity; id != nil {
				if id.Commit != "" {
					tip += ", commit " + readback.ShortCommit(id.Commit)
				}
				if id.Branch != "" {
					tip += ", branch " + termtext.Field(id.Branch)
				}
				if id.BuildID != "" {
					tip += ", build " + termtext.Field(id.BuildID)
				}
			}
			if run.ExportedAt != "" {
				tip += ", " + run.ExportedAt
			}
			tip += ": " + s.Label + " " + trend.Format(*v, s.Unit)
			href := "#run-" + strconv.FormatInt(run.InstID, 10)
			if links != nil {
				href = links.Run(run.InstID)
			}
			fmt.Fprintf(&b, `<a class="point" href="%s" data-inst="%d"><title>%s</title><circle cx="%.1f" cy="%.1f" r="%.1f" fill="%s"/></a>`,
				esc(href), run.InstID, esc(termtext.Line(tip)), x(i), y(*v), pointRadius, colour)
		}
		b.WriteString(`</g>`)
	}
	b.WriteString(`</svg><figcaption>`)
	for si, s := range series {
		fmt.Fprintf(&b, `<span class="key"><svg class="swatch" width="14" height="10" viewBox="0 0 14 10"><rect width="14" height="10" fill="%s"/></svg> %s</span>`,
			chartColour(si), esc(termtext.Name(s.Label)))
	}
	b.WriteString(`</figcaption></figure>`)
	return template.HTML(b.String())
}

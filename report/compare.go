package report

import (
	"context"
	"fmt"
	"html/template"
	"math"
	"strconv"
	"strings"

	"github.com/profdb/profdb/compare"
	"github.com/profdb/profdb/internal/termtext"
	"github.com/profdb/profdb/internal/textout"
	"github.com/profdb/profdb/readback"
)

// comparison is the report's comparison page: the tables of compare, and
// for two function traces a differential flame graph.
type comparison struct {
	Res   *compare.Result
	Trace *readback.Trace // the counter, to format times
	Flame template.HTML
	Cut   bool // B's call tree was cut to MaxNodes
	Max   int
	// Folded is the number of B's calls folded below MaxDepth.
	Folded   int64
	MaxDepth int
}

// maxBaseNodes caps the call tree of A that the differential flame graph
// looks B's call routes up in: its heaviest routes, not its calls.
// CallTree keeps four times as many nodes while it reads (a few hundred
// bytes each), so this bounds the memory the comparison takes (about
// 40 MB). A route of B that A's tree cut counts from 0.
const maxBaseNodes = 1 << 15

func compareOf(ctx context.Context, r *readback.Reader, o Options) (*comparison, error) {
	a, b := o.Compare[0], o.Compare[1]
	res, err := compare.Compare(ctx, r, a, b, compare.Options{Top: o.Top})
	if err != nil {
		return nil, err
	}
	c := &comparison{Res: res, Max: o.MaxNodes, MaxDepth: o.MaxDepth}
	if res.Trace == nil {
		return c, nil
	}
	c.Trace = &readback.Trace{Counter: res.Trace.Counter, Frequency: res.Trace.Frequency}
	tree := func(in readback.Instance, max int) (*readback.Node, error) {
		s, err := r.Summarize(ctx, in.InstID, readback.Options{Top: 1})
		if err != nil {
			return nil, err
		}
		return r.CallTreeLimited(ctx, in, s.Trace, readback.TreeLimits{MaxNodes: max, MaxDepth: o.MaxDepth})
	}
	ta, err := tree(res.A, maxBaseNodes)
	if err != nil {
		return nil, err
	}
	tb, err := tree(res.B, o.MaxNodes)
	if err != nil {
		return nil, err
	}
	c.Cut = hasRest(tb)
	c.Folded = tb.Folded
	c.Flame = diffFlame(tb, ta, c.Trace)
	return c, nil
}

// routeTimes sums the time with children of every call route of a call
// tree, keyed by the routines from the top of a thread down (threads
// merged, as the routes are what two runs share); the root and the
// threads are keyed by their own names.
func routeTimes(root *readback.Node) map[string]int64 {
	m := map[string]int64{}
	var walk func(n *readback.Node, key string, level int)
	walk = func(n *readback.Node, key string, level int) {
		switch level {
		case 0, 1:
			key = "\x00" + n.Routine
		case 2:
			key = n.Routine
		default:
			key += "\x00" + n.Routine
		}
		if n.Rest == 0 {
			m[key] += n.WithChild
		}
		for _, c := range n.Children {
			walk(c, key, level+1)
		}
	}
	walk(root, "", 0)
	return m
}

// diffFlame draws B's call tree as a flame graph, as flame does, each box
// coloured by the change of its route's time with children from A (Brendan
// Gregg's differential flame graph): red where B is slower, blue where it
// is faster, the deeper the larger the change against the largest one;
// white for no change. A route only in B counts from 0; the boxes that
// stand for cut calls are grey.
func diffFlame(b, a *readback.Node, t *readback.Trace) template.HTML {
	if b == nil || b.WithChild <= 0 {
		return ""
	}
	base := routeTimes(a)
	// The change of each drawn box, and the largest.
	type box struct {
		n     *readback.Node
		delta int64
		known bool
	}
	var boxes []box
	var maxAbs int64
	scale := flameWidth / float64(b.WithChild)
	var collect func(n *readback.Node, key string, level int)
	collect = func(n *readback.Node, key string, level int) {
		if float64(n.WithChild)*scale < 1 {
			return
		}
		switch level {
		case 0, 1:
			key = "\x00" + n.Routine
		case 2:
			key = n.Routine
		default:
			key += "\x00" + n.Routine
		}
		bx := box{n: n, known: n.Rest == 0}
		if bx.known {
			bx.delta = n.WithChild - base[key]
			if level >= 2 {
				maxAbs = max(maxAbs, abs(bx.delta))
			}
		}
		boxes = append(boxes, bx)
		for _, c := range n.Children {
			collect(c, key, level+1)
		}
	}
	collect(b, "", 0)
	delta := map[*readback.Node]box{}
	for _, bx := range boxes {
		delta[bx.n] = bx
	}
	depth := maxDepth(b)
	h := float64(depth) * flameRow
	var sb strings.Builder
	fmt.Fprintf(&sb, `<svg class="flame diff" xmlns="http://www.w3.org/2000/svg" width="100%%" viewBox="0 0 %.0f %.0f" role="img" aria-label="differential flame graph">`,
		flameWidth, h)
	esc := template.HTMLEscapeString
	var draw func(n *readback.Node, x float64, level int)
	draw = func(n *readback.Node, x float64, level int) {
		bx, ok := delta[n]
		if !ok {
			return
		}
		w := float64(n.WithChild) * scale
		y := h - float64(level+1)*flameRow
		name := termtext.Name(n.Routine)
		fill, change := "rgb(200,200,200)", "not compared"
		if bx.known {
			fill = diffColor(bx.delta, maxAbs)
			change = textout.Signed(t.Format(bx.delta), bx.delta) + " from A"
		}
		fmt.Fprintf(&sb, `<g data-delta="%d"><title>%s: %s with children in B, %s</title><rect x="%.1f" y="%.1f" width="%.1f" height="%.0f" fill="%s"/>`,
			bx.delta, esc(name), esc(t.Format(n.WithChild)), esc(change), x, y, w, flameRow-1, fill)
		if label := fit(name, w); label != "" {
			fmt.Fprintf(&sb, `<text x="%.1f" y="%.1f">%s</text>`, x+3, y+flameRow-5, esc(label))
		}
		sb.WriteString("</g>")
		cx := x
		for _, c := range n.Children {
			draw(c, cx, level+1)
			cx += float64(c.WithChild) * scale
		}
	}
	draw(b, 0, 0)
	sb.WriteString("</svg>")
	return template.HTML(sb.String())
}

func abs(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}

// diffColor is white for no change, red (slower) or blue (faster) as
// deep as the change against the largest.
func diffColor(delta, maxAbs int64) string {
	if maxAbs == 0 || delta == 0 {
		return "rgb(255,255,255)"
	}
	f := math.Min(1, float64(abs(delta))/float64(maxAbs))
	v := int(math.Round(255 - 200*f))
	if delta > 0 {
		return fmt.Sprintf("rgb(255,%d,%d)", v, v)
	}
	return fmt.Sprintf("rgb(%d,%d,255)", v, v)
}

// change, pointsChange and timeChange format a figure's change as
// compare prints it (compare.Style.Format): a count, a % covered in
// percentage points, a time in the counter's units.
func change(st compare.Style, f compare.Figure) string { return st.Format(f, textout.Number) }

func pointsChange(st compare.Style, f compare.Figure) string { return st.Format(f, textout.Points) }

func timeChange(st compare.Style, t *readback.Trace, f compare.Figure) string {
	return st.Format(f, func(v float64) string { return t.Format(int64(v)) })
}

// changeValue is a change for sorting (data-v): the change, or the
// difference B − A when the style has none.
func changeValue(f compare.Figure) string {
	if f.Change == nil {
		return strconv.FormatFloat(f.Delta(), 'f', -1, 64)
	}
	return strconv.FormatFloat(*f.Change, 'f', -1, 64)
}

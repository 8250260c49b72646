package report

import (
	"fmt"
	"hash/fnv"
	"html/template"
	"strings"

	"github.com/profdb/profdb/internal/termtext"
	"github.com/profdb/profdb/readback"
)

const (
	flameWidth = 1200.0
	flameRow   = 18.0
	flameChar  = 6.5 // average width of a character at 11px
)

// flame draws the call tree as an SVG flame graph: each node a box as wide
// as its time with children, its callees above it. Boxes narrower than a
// pixel are left out (their time still widens their callers).
func flame(root *readback.Node, t *readback.Trace) template.HTML {
	if root == nil || root.WithChild <= 0 {
		return ""
	}
	depth := maxDepth(root)
	h := float64(depth) * flameRow
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="flame" xmlns="http://www.w3.org/2000/svg" width="100%%" viewBox="0 0 %.0f %.0f" role="img" aria-label="flame graph">`,
		flameWidth, h)
	scale := flameWidth / float64(root.WithChild)
	var draw func(n *readback.Node, x float64, level int)
	draw = func(n *readback.Node, x float64, level int) {
		w := float64(n.WithChild) * scale
		if w < 1 {
			return
		}
		y := h - float64(level+1)*flameRow
		esc := template.HTMLEscapeString
		name := termtext.Name(n.Routine)
		fmt.Fprintf(&b, `<g><title>%s: %s with children, %s own, %d calls</title><rect x="%.1f" y="%.1f" width="%.1f" height="%.0f" fill="%s"/>`,
			esc(name), esc(t.Format(n.WithChild)), esc(t.Format(n.Own)), n.Calls, x, y, w, flameRow-1, color(n.Routine))
		if label := fit(name, w); label != "" {
			fmt.Fprintf(&b, `<text x="%.1f" y="%.1f">%s</text>`, x+3, y+flameRow-5, esc(label))
		}
		b.WriteString("</g>")
		cx := x
		for _, c := range n.Children {
			draw(c, cx, level+1)
			cx += float64(c.WithChild) * scale
		}
	}
	draw(root, 0, 0)
	b.WriteString("</svg>")
	return template.HTML(b.String())
}

func maxDepth(n *readback.Node) int {
	d := 0
	for _, c := range n.Children {
		d = max(d, maxDepth(c))
	}
	return d + 1
}

// fit returns as much of s as fits in a box w pixels wide.
func fit(s string, w float64) string {
	n := int((w - 6) / flameChar)
	if n < 3 {
		return ""
	}
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// color gives a routine a stable warm colour.
func color(name string) string {
	h := fnv.New32a()
	h.Write([]byte(name))
	v := h.Sum32()
	return fmt.Sprintf("rgb(%d,%d,%d)", 205+v%50, 80+(v>>8)%130, 40+(v>>16)%50)
}

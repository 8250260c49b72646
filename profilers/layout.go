package profilers

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/dustin/go-humanize/english"

	"github.com/profdb/profdb/ddl"
)

// Layout is the tables of some profilers, with the tables every profiler
// shares (Shared): what profdb profilers prints, as text (WriteText) or
// JSON (WriteJSON). Table and column names are as documented.
type Layout struct {
	// Profilers are the profilers whose tables the layout holds, in the
	// order given.
	Profilers []Definition
}

// layoutJSON is the document WriteJSON writes.
type layoutJSON struct {
	Shared    []tableJSON    `json:"shared"`
	Profilers []profilerJSON `json:"profilers"`
}

type profilerJSON struct {
	Name   string      `json:"name"`
	Tables []tableJSON `json:"tables"`
}

type tableJSON struct {
	Name    string       `json:"name"`
	Parent  *string      `json:"parent"` // null for a top-level table
	Columns []columnJSON `json:"columns"`
}

type columnJSON struct {
	Name string `json:"name"`
	Type string `json:"type"` // String, Integer, Decimal or Float
}

func toTablesJSON(tables []ddl.Table) []tableJSON {
	out := make([]tableJSON, len(tables))
	for i, t := range tables {
		tj := tableJSON{Name: t.Name, Columns: make([]columnJSON, len(t.Columns))}
		if t.Parent != "" {
			p := t.Parent
			tj.Parent = &p
		}
		for j, c := range t.Columns {
			tj.Columns[j] = columnJSON{Name: c.Name, Type: c.Type.String()}
		}
		out[i] = tj
	}
	return out
}

// WriteJSON writes the layout as one JSON object, indented:
//
//	{"shared": [TABLE...], "profilers": [{"name": NAME, "tables": [TABLE...]}]}
//	TABLE = {"name": NAME, "parent": NAME or null,
//	         "columns": [{"name": NAME, "type": "String|Integer|Decimal|Float"}]}
func (l Layout) WriteJSON(w io.Writer) error {
	doc := layoutJSON{Shared: toTablesJSON(Shared()), Profilers: []profilerJSON{}}
	for _, d := range l.Profilers {
		doc.Profilers = append(doc.Profilers, profilerJSON{Name: d.Name, Tables: toTablesJSON(d.Tables)})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}

// LayoutWidth is the width the column lists of Layout.WriteText wrap at.
const LayoutWidth = 100

// WriteText writes the layout as trees: the shared tables, then each
// profiler's, each child table under its parent with its columns (name and
// logical type) wrapped at LayoutWidth, and a line that counts them.
func (l Layout) WriteText(w io.Writer) error {
	defs := l.Profilers
	var b strings.Builder
	shared := Shared()
	fmt.Fprintf(&b, "shared by every profiler (%s)\n", english.Plural(len(shared), "table", ""))
	writeTree(&b, shared)
	total := 0
	for _, d := range defs {
		total += len(d.Tables)
		fmt.Fprintf(&b, "\n%s (%s)\n", d.Name, english.Plural(len(d.Tables), "table", ""))
		writeTree(&b, d.Tables)
	}
	fmt.Fprintf(&b, "\n%s, %s, plus the %d shared ones\n", english.Plural(len(defs), "profiler", ""), english.Plural(total, "table", ""), len(shared))
	_, err := io.WriteString(w, b.String())
	return err
}

// writeTree writes tables as a tree, each child under its parent, siblings
// in the given order; a table whose parent is not in the set is a root.
func writeTree(b *strings.Builder, tables []ddl.Table) {
	in := make(map[string]bool, len(tables))
	for _, t := range tables {
		in[strings.ToUpper(t.Name)] = true
	}
	children := map[string][]ddl.Table{}
	var roots []ddl.Table
	for _, t := range tables {
		p := strings.ToUpper(t.Parent)
		if t.Parent == "" || !in[p] {
			roots = append(roots, t)
			continue
		}
		children[p] = append(children[p], t)
	}
	var node func(t ddl.Table, prefix string, last bool)
	node = func(t ddl.Table, prefix string, last bool) {
		branch, indent := "├── ", "│   "
		if last {
			branch, indent = "└── ", "    "
		}
		b.WriteString(prefix + branch + t.Name)
		if t.Key != "" {
			b.WriteString("  (key " + t.Key + ")")
		}
		b.WriteByte('\n')
		kids := children[strings.ToUpper(t.Name)]
		colPrefix := prefix + indent + "  "
		if len(kids) > 0 {
			colPrefix = prefix + indent + "│ "
		}
		for _, line := range wrapColumns(t.Columns, LayoutWidth-len([]rune(colPrefix))) {
			b.WriteString(strings.TrimRight(colPrefix+line, " ") + "\n")
		}
		for i, k := range kids {
			node(k, prefix+indent, i == len(kids)-1)
		}
	}
	for i, t := range roots {
		node(t, "", i == len(roots)-1)
	}
}

// wrapColumns lists the columns as "NAME Type" items separated by ", ",
// broken into lines of at most width characters where the items allow.
func wrapColumns(cols []ddl.Column, width int) []string {
	var lines []string
	var line strings.Builder
	for i, c := range cols {
		item := c.Name + " " + c.Type.String()
		if i < len(cols)-1 {
			item += ","
		}
		if line.Len() > 0 && line.Len()+1+len(item) > width {
			lines = append(lines, line.String())
			line.Reset()
		}
		if line.Len() > 0 {
			line.WriteByte(' ')
		}
		line.WriteString(item)
	}
	if line.Len() > 0 {
		lines = append(lines, line.String())
	}
	return lines
}

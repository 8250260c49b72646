// Package report writes one self-contained HTML file about result sets:
// an index with each result set's headline figure, and per result set the
// figures of `profdb show` as sortable, filterable tables, a coverage
// source view (or line table), a call tree and a flame graph (SVG) of a
// function trace, and the class, routine and object tables of the Resource
// and Reference Count profilers.
//
// The page needs no network: its CSS, JavaScript and SVG are inline. Its
// Content-Security-Policy loads nothing and runs only that CSS and
// JavaScript, named by their SHA-256 hashes: no inline handler, style
// attribute or script that a name might smuggle in. Names are escaped by
// html/template and shown as the CLI prints them (termtext.Name). The
// template and assets are files in assets/, embedded into the binary.
// Everything comes from package readback, which aggregates in SQL; what is
// embedded is capped (Options), and the page says what was left out.
package report

// Package report writes one self-contained HTML file about result sets:
// an index with each result set's headline figure, and per result set the
// figures of `profdb show` as sortable, filterable tables, a coverage
// source view (or line table), a call tree and a flame graph (SVG) of a
// function trace, and the class, routine and object tables of the Resource
// and Reference Count profilers.
//
// The page needs no network: its CSS, JavaScript and SVG are inline. The
// template and assets are files in assets/, embedded into the binary.
// Everything comes from package readback, which aggregates in SQL; what is
// embedded is capped (Options), and the page says what was left out.
package report

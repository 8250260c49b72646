// Package textout is the one home of how profdb's figures are put into
// text: lines and aligned tables fitted to a terminal width (Printer,
// Table), left-aligned columns (Columns), indented JSON (WriteJSON), and
// the number formats the text reports share (Number, Percent, Signed).
// Text from data goes through internal/termtext on its way out, so a
// control character in a name never reaches a terminal as itself.
//
// readback (show), compare and gate render their text and JSON with it, so
// a Go user of those packages gets the bytes the command line prints.
package textout

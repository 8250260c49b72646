// Package termtext makes text that came from data safe and legible on a
// terminal. Routine, file, module and class names come from profiler
// output and from databases that others fill: printed raw, a name holding
// ESC ] 0 ; … BEL would set the terminal's title, ESC [ 31 m its colour,
// the 8-bit CSI (U+009B) anything else a CSI can do, and a tab or a
// newline would break a table.
//
// Every human-readable output of profdb passes such text through this
// package, which follows strconv's rules throughout: a character that
// strconv.IsPrint does not accept (C0 controls, DEL, C1 controls such as
// U+009B, format characters such as the bidirectional overrides, and the
// other non-graphic characters), and every byte that is not valid UTF-8,
// is written as the escape strconv.Quote writes for it (\x1b, \t, \u009b,
// \x9b). Name and Quote are reversible (strconv.Unquote reads them back);
// Line, for messages, escapes only what is unsafe.
//
// JSON does the same for JSON text, with \u escapes that leave every value
// as it was. Width, Pad and CutLeft measure text in terminal columns (an
// East Asian wide character takes two), so that tables stay aligned.
package termtext

//go:build !linux

package srcroot

import "os"

// pseudoFS: only Linux has kernel file systems whose files lie about their
// size; elsewhere, no file is on one.
func pseudoFS(*os.File) (string, bool) { return "", false }

//go:build unix

package srcroot

import (
	"os"
	"syscall"
)

// openFlags open a file non-blocking: a FIFO put in place of the file
// between the check and the open must not make the open wait for a writer.
const openFlags = os.O_RDONLY | syscall.O_NONBLOCK

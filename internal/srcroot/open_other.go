//go:build !unix

package srcroot

import "os"

// openFlags: where there are no FIFOs in the file system, a plain open.
const openFlags = os.O_RDONLY

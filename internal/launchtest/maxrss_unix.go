//go:build unix

package launchtest

import (
	"os"
	"runtime"
	"syscall"
)

// maxRSS is the peak RSS of an ended process, in bytes: ru_maxrss, which
// Darwin gives in bytes and Linux and the BSDs in KiB.
func maxRSS(ps *os.ProcessState) int64 {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0
	}
	if runtime.GOOS == "darwin" || runtime.GOOS == "ios" {
		return int64(ru.Maxrss)
	}
	return int64(ru.Maxrss) * 1024
}

//go:build unix

package srcroot

import (
	"path/filepath"
	"syscall"
	"testing"
)

// A FIFO is refused without being opened: opening it would wait for a
// writer, and the test would hang.
func TestFIFOIsRefused(t *testing.T) {
	dir := tree(t, nil)
	root := filepath.Join(dir, "root")
	if err := syscall.Mkfifo(filepath.Join(root, "fifo.go"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	r := open(t, root, Options{})
	refused(t, r, "fifo.go", false)
	refused(t, r, "/home/ci/fifo.go", false)
}

func TestDevicesAreRefused(t *testing.T) {
	r := open(t, "/dev", Options{})
	refused(t, r, "null", false)
	refused(t, r, "/x/zero", false)
}

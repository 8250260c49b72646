package srcroot

import (
	"os"
	"strings"
	"testing"
)

// /proc/self/environ holds this process's environment: the marker, set
// here, must not come back through any name, nor through a root that
// holds /proc itself.
func TestProcIsRefused(t *testing.T) {
	t.Setenv("PROFDB_SRCROOT_TEST", marker)
	if b, err := os.ReadFile("/proc/self/environ"); err != nil || !strings.Contains(string(b), marker) {
		t.Skipf("no /proc/self/environ with the environment: %v", err)
	}
	dir := tree(t, nil)
	root := dir + "/root"
	symlink(t, "/proc/self/environ", root+"/environ")
	symlink(t, "/proc/self", root+"/self")
	symlink(t, "/proc", root+"/proc")
	r := open(t, root, Options{})
	refused(t, r, "environ", true)
	refused(t, r, "self/environ", true)
	refused(t, r, "proc/self/environ", true)
	notFound(t, r, "/proc/self/environ")
	// A root on procfs: the file is under it, and still refused.
	p := open(t, "/proc/self", Options{})
	refused(t, p, "environ", false)
	refused(t, p, "/proc/self/environ", false)
	s := open(t, "/sys/kernel", Options{})
	if _, err := os.Stat("/sys/kernel/uevent_seqnum"); err == nil {
		refused(t, s, "uevent_seqnum", false)
	}
}

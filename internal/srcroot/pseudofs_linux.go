package srcroot

import (
	"os"
	"syscall"
)

// pseudoFS reports whether the open file f lies on one of Linux's kernel
// file systems (procfs, sysfs and the like), whose "regular" files say they
// are empty or 4096 bytes long and hold what the kernel makes up on read
// (/proc/self/environ: the environment, secrets and all), and names it.
func pseudoFS(f *os.File) (string, bool) {
	rc, err := f.SyscallConn()
	if err != nil {
		return "", false
	}
	var st syscall.Statfs_t
	var serr error
	if err := rc.Control(func(fd uintptr) { serr = syscall.Fstatfs(int(fd), &st) }); err != nil || serr != nil {
		return "unknown file system (fstatfs failed)", true
	}
	name := kernelFS(uint32(st.Type))
	return name, name != ""
}

// kernelFS names the kernel's own file system of the magic number (statfs
// f_type) t, or gives "" for any other.
func kernelFS(t uint32) string {
	switch t {
	case 0x9fa0:
		return "procfs"
	case 0x62656572:
		return "sysfs"
	case 0x64626720:
		return "debugfs"
	case 0x74726163:
		return "tracefs"
	case 0x73636673:
		return "securityfs"
	case 0x0027e0eb:
		return "cgroupfs"
	case 0x63677270:
		return "cgroup2fs"
	case 0x00001cd1:
		return "devpts"
	case 0xcafe4a11:
		return "bpffs"
	case 0xde5e81e4:
		return "efivarfs"
	case 0x62656570:
		return "configfs"
	case 0x6165676c:
		return "pstorefs"
	case 0x65735543:
		return "fusectl"
	case 0x42494e4d:
		return "binfmt_misc"
	}
	return ""
}

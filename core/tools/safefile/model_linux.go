//go:build linux

package safefile

import (
	"fmt"
	"io"

	"golang.org/x/sys/unix"
)

// pseudoFS are filesystems whose files describe the system rather than
// hold data (a procfs mounted elsewhere is as dangerous as /proc).
var pseudoFS = map[int64]string{
	unix.PROC_SUPER_MAGIC: "procfs", unix.SYSFS_MAGIC: "sysfs", unix.DEVPTS_SUPER_MAGIC: "devpts",
	unix.DEBUGFS_MAGIC: "debugfs", unix.TRACEFS_MAGIC: "tracefs", unix.SECURITYFS_MAGIC: "securityfs",
	unix.CGROUP_SUPER_MAGIC: "cgroupfs", unix.CGROUP2_SUPER_MAGIC: "cgroup2fs", unix.BPF_FS_MAGIC: "bpffs",
	0x62656570: "configfs", unix.EFIVARFS_MAGIC: "efivarfs", unix.PSTOREFS_MAGIC: "pstorefs",
	unix.SELINUX_MAGIC: "selinuxfs",
}

// readPinned opens real (resolved, symlink-free when checked) refusing any
// symlink on the way, so what is read is what was checked, and reads at
// most limit bytes of a regular file on an ordinary filesystem.
func readPinned(path, real string, limit int64) ([]byte, error) {
	fd, err := openat2(unix.AT_FDCWD, real, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_NOCTTY, 0,
		unix.RESOLVE_NO_SYMLINKS|unix.RESOLVE_NO_MAGICLINKS)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	f := &reader{fd: fd}
	defer f.Close()
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil, fmt.Errorf("stat %s: %w", path, err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		return nil, refused(path, "it is not a regular file ("+kindOf(st.Mode)+")")
	}
	var sfs unix.Statfs_t
	if err := unix.Fstatfs(fd, &sfs); err != nil {
		return nil, fmt.Errorf("statfs %s: %w", path, err)
	}
	if name, bad := pseudoFS[int64(sfs.Type)]; bad {
		return nil, refused(path, "it is on "+name+", a kernel interface, not a file")
	}
	if st.Size > limit {
		return nil, refused(path, fmt.Sprintf("it is %d bytes, over the %d-byte limit", st.Size, limit))
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if int64(len(data)) > limit {
		return nil, refused(path, fmt.Sprintf("it grew over the %d-byte limit while being read", limit))
	}
	return data, nil
}

func kindOf(mode uint32) string {
	switch mode & unix.S_IFMT {
	case unix.S_IFDIR:
		return "a directory"
	case unix.S_IFIFO:
		return "a FIFO"
	case unix.S_IFCHR, unix.S_IFBLK:
		return "a device"
	case unix.S_IFSOCK:
		return "a socket"
	}
	return "not a plain file"
}

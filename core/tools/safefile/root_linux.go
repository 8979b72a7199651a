//go:build linux

package safefile

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"golang.org/x/sys/unix"
)

// Root is a directory opened with O_PATH; see root.go.
type Root struct {
	path string
	fd   int
}

// beneath keeps a lookup under the root fd and off every symlink.
const beneath = unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS

// OpenRoot opens dir, an absolute path without symlinks in it.
func OpenRoot(dir string) (*Root, error) {
	fd, err := openat2(unix.AT_FDCWD, dir, unix.O_PATH|unix.O_DIRECTORY, 0, unix.RESOLVE_NO_SYMLINKS|unix.RESOLVE_NO_MAGICLINKS)
	if err != nil {
		return nil, pathErr("open root", dir, err)
	}
	return &Root{path: dir, fd: fd}, nil
}

// Path is the directory the root was opened at.
func (r *Root) Path() string { return r.path }

// Close releases the directory fd.
func (r *Root) Close() error { return unix.Close(r.fd) }

// open opens rel beneath the root without following any symlink, the
// last name included (RESOLVE_NO_SYMLINKS makes that ELOOP).
func (r *Root) open(rel string, flags int, mode uint32) (int, error) {
	if err := checkRel(rel); err != nil {
		return -1, err
	}
	return openat2(r.fd, rel, flags, mode, beneath)
}

// parent opens rel's directory and returns it with rel's last name.
func (r *Root) parent(op, rel string) (int, string, error) {
	dir, base, err := splitRel(rel)
	if err != nil {
		return -1, "", pathErr(op, joinRoot(r.path, rel), err)
	}
	fd, err := r.open(dir, unix.O_PATH|unix.O_DIRECTORY, 0)
	if err != nil {
		return -1, "", pathErr(op, joinRoot(r.path, rel), err)
	}
	return fd, base, nil
}

// Lstat reports rel's mode without following a final symlink.
func (r *Root) Lstat(rel string) (fs.FileMode, error) {
	dfd, base, err := r.parent("lstat", rel)
	if err != nil {
		return 0, err
	}
	defer unix.Close(dfd)
	var st unix.Stat_t
	if err := unix.Fstatat(dfd, base, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return 0, pathErr("lstat", joinRoot(r.path, rel), err)
	}
	return fileMode(st.Mode), nil
}

func fileMode(m uint32) fs.FileMode {
	mode := fs.FileMode(m & 0o777)
	switch m & unix.S_IFMT {
	case unix.S_IFDIR:
		mode |= fs.ModeDir
	case unix.S_IFLNK:
		mode |= fs.ModeSymlink
	case unix.S_IFREG:
	default:
		mode |= fs.ModeIrregular
	}
	return mode
}

// ReadFile reads the regular file rel without blocking on it.
func (r *Root) ReadFile(rel string) ([]byte, error) { return r.ReadFileMax(rel, -1) }

// ReadFileMax is ReadFile that stops after max bytes (max < 0: no bound)
// with an error wrapping ErrTooLarge: a sparse file of 512 MiB is not
// read into memory to learn that it is too large.
func (r *Root) ReadFileMax(rel string, max int64) ([]byte, error) {
	fd, err := r.open(rel, unix.O_RDONLY|unix.O_NONBLOCK, 0)
	if err != nil {
		return nil, pathErr("read", joinRoot(r.path, rel), err)
	}
	f := &reader{fd: fd}
	defer f.Close()
	b, err := readMax(f, max)
	if err != nil {
		return nil, pathErr("read", joinRoot(r.path, rel), err)
	}
	return b, nil
}

// WriteFile replaces rel atomically with data: a temporary file in the
// same directory, then a rename over rel (a symlink at rel is replaced,
// never followed).
func (r *Root) WriteFile(rel string, data []byte, perm fs.FileMode) error {
	dfd, base, err := r.parent("write", rel)
	if err != nil {
		return err
	}
	defer unix.Close(dfd)
	if err := writeTemp(dfd, base, data, perm); err != nil {
		return pathErr("write", joinRoot(r.path, rel), err)
	}
	return nil
}

// writeTemp writes data to an unnamed file (O_TMPFILE) and only names it
// once it is complete, so a grove killed while writing a large file leaves
// nothing in the workspace (the kernel frees an unnamed file with its
// last descriptor); where the file system has no O_TMPFILE, or /proc
// cannot name it, a named temporary file as before.
func writeTemp(dfd int, base string, data []byte, perm fs.FileMode) error {
	fd, err := unix.Openat(dfd, ".", unix.O_WRONLY|unix.O_TMPFILE|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return writeNamedTemp(dfd, base, data, perm)
	}
	err = writeAll(fd, data)
	if err == nil {
		err = unix.Fchmod(fd, uint32(perm.Perm()))
	}
	if err == nil {
		err = linkTemp(fd, dfd, base)
	}
	_ = unix.Close(fd)
	if errors.Is(err, errNoProcLink) {
		return writeNamedTemp(dfd, base, data, perm)
	}
	return err
}

// errNoProcLink: the unnamed file cannot be named through /proc (not
// mounted, or refused); the caller writes a named temporary file instead.
var errNoProcLink = errors.New("cannot link an O_TMPFILE file through /proc")

// linkTemp gives the complete unnamed file fd a temporary name and renames
// it over base: the name exists only between the two calls.
func linkTemp(fd, dfd int, base string) error {
	for range 100 {
		tmp := tempName()
		err := unix.Linkat(unix.AT_FDCWD, fmt.Sprintf("/proc/self/fd/%d", fd), dfd, tmp, unix.AT_SYMLINK_FOLLOW)
		if errors.Is(err, unix.EEXIST) {
			continue
		}
		if err != nil {
			return fmt.Errorf("%w: %w", errNoProcLink, err)
		}
		if err := unix.Renameat(dfd, tmp, dfd, base); err != nil {
			_ = unix.Unlinkat(dfd, tmp, 0)
			return err
		}
		return nil
	}
	return errors.New("no free temporary file name")
}

func writeNamedTemp(dfd int, base string, data []byte, perm fs.FileMode) error {
	var tmp string
	var fd int
	for range 100 {
		tmp = tempName()
		var err error
		fd, err = unix.Openat(dfd, tmp, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
		if err == nil {
			break
		}
		if !errors.Is(err, unix.EEXIST) {
			return err
		}
		fd = -1
	}
	if fd < 0 {
		return errors.New("no free temporary file name")
	}
	err := writeAll(fd, data)
	if err == nil {
		err = unix.Fchmod(fd, uint32(perm.Perm()))
	}
	if cerr := unix.Close(fd); err == nil {
		err = cerr
	}
	if err == nil {
		err = unix.Renameat(dfd, tmp, dfd, base)
	}
	if err != nil {
		_ = unix.Unlinkat(dfd, tmp, 0)
	}
	return err
}

func writeAll(fd int, data []byte) error {
	for len(data) > 0 {
		n, err := unix.Write(fd, data)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return err
		}
		data = data[n:]
	}
	return nil
}

// Mkdir creates the directory rel.
func (r *Root) Mkdir(rel string, perm fs.FileMode) error {
	dfd, base, err := r.parent("mkdir", rel)
	if err != nil {
		return err
	}
	defer unix.Close(dfd)
	if err := unix.Mkdirat(dfd, base, uint32(perm.Perm())); err != nil {
		return pathErr("mkdir", joinRoot(r.path, rel), err)
	}
	return nil
}

// Readlink returns the target of the symlink rel.
func (r *Root) Readlink(rel string) (string, error) {
	dfd, base, err := r.parent("readlink", rel)
	if err != nil {
		return "", err
	}
	defer unix.Close(dfd)
	buf := make([]byte, unix.PathMax+1)
	n, err := unix.Readlinkat(dfd, base, buf)
	if err == nil && n == len(buf) {
		err = unix.ENAMETOOLONG
	}
	if err != nil {
		return "", pathErr("readlink", joinRoot(r.path, rel), err)
	}
	return string(buf[:n]), nil
}

// Symlink creates rel as a symlink to target (which is not followed).
func (r *Root) Symlink(target, rel string) error {
	dfd, base, err := r.parent("symlink", rel)
	if err != nil {
		return err
	}
	defer unix.Close(dfd)
	if err := unix.Symlinkat(target, dfd, base); err != nil {
		return pathErr("symlink", joinRoot(r.path, rel), err)
	}
	return nil
}

// Remove removes the file, symlink or empty directory rel.
func (r *Root) Remove(rel string) error {
	dfd, base, err := r.parent("remove", rel)
	if err != nil {
		return err
	}
	defer unix.Close(dfd)
	err = unix.Unlinkat(dfd, base, 0)
	if err == unix.EISDIR {
		err = unix.Unlinkat(dfd, base, unix.AT_REMOVEDIR)
	}
	if err != nil {
		return pathErr("remove", joinRoot(r.path, rel), err)
	}
	return nil
}

// openat2 opens name from dirfd with the given resolve flags, retrying
// the kernel's EAGAIN/EINTR; kernels before 5.6 lack openat2, and there
// the lookup walks one name at a time with O_NOFOLLOW instead.
func openat2(dirfd int, name string, flags int, mode uint32, resolve uint64) (int, error) {
	how := unix.OpenHow{Flags: uint64(flags | unix.O_CLOEXEC), Mode: uint64(mode), Resolve: resolve}
	for range 16 {
		fd, err := unix.Openat2(dirfd, name, &how)
		switch {
		case err == nil:
			return fd, nil
		case err == unix.EAGAIN || err == unix.EINTR:
			continue
		case err == unix.ENOSYS && dirfd != unix.AT_FDCWD:
			return walkNoFollow(dirfd, name, flags, mode)
		case err == unix.ENOSYS:
			return unix.Open(name, flags|unix.O_CLOEXEC, mode)
		case err == unix.ELOOP || err == unix.EXDEV:
			return -1, fmt.Errorf("%w: %w", ErrEscape, err)
		default:
			return -1, err
		}
	}
	return -1, unix.EAGAIN
}

// walkNoFollow opens name (relative, no "..") from dirfd one component at
// a time, refusing every symlink.
func walkNoFollow(dirfd int, name string, flags int, mode uint32) (int, error) {
	parts := strings.Split(name, "/")
	cur := dirfd
	closeCur := func() {
		if cur != dirfd {
			_ = unix.Close(cur)
		}
	}
	for i, p := range parts {
		last := i == len(parts)-1
		f, m := unix.O_PATH|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, uint32(0)
		if last {
			f, m = flags|unix.O_NOFOLLOW|unix.O_CLOEXEC, mode
		}
		fd, err := unix.Openat(cur, p, f, m)
		closeCur()
		if err == unix.ELOOP || (err == unix.ENOTDIR && !last) {
			return -1, fmt.Errorf("%w: %w", ErrEscape, err)
		}
		if err != nil {
			return -1, err
		}
		cur = fd
	}
	return cur, nil
}

func pathErr(op, p string, err error) error { return &fs.PathError{Op: op, Path: p, Err: err} }

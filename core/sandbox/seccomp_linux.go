//go:build linux

package sandbox

import (
	"fmt"
	"runtime"
	"unsafe"

	"github.com/elastic/go-seccomp-bpf/arch"
	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"

	"github.com/grovecli/grove/protocol"
)

// The filter is assembled here rather than with go-seccomp-bpf's Policy
// (whose syscall tables it uses) for two reasons: argument checks must
// compare the low 32 bits only, as the kernel truncates int arguments (a
// 64-bit compare lets `socket(0x1_0000_0002, …)` through as AF_INET), and a
// system call of a foreign ABI (int $0x80 from x86-64) must be refused,
// not allowed.

const (
	retAllow  = uint32(unix.SECCOMP_RET_ALLOW)
	retEPERM  = uint32(unix.SECCOMP_RET_ERRNO) | uint32(unix.EPERM)
	retENOSYS = uint32(unix.SECCOMP_RET_ERRNO) | uint32(unix.ENOSYS)

	offNr   = 0
	offArch = 4
	offArgs = 16 // args[i] at 16+8i; little-endian: low word first
)

// seccompRule says what to do with one system call.
type seccompRule struct {
	name string
	// kind: deny always; denyArgIn (low word of arg in vals); denyArgNotIn;
	// denyPtrSet (the 64-bit pointer arg is not NULL).
	kind int
	arg  int
	vals []uint32
}

const (
	denyAlways = iota
	denyArgIn
	denyArgNotIn
	denyPtrSet
)

// Terminal ioctls that act on a terminal the command does not own.
const (
	ioctlTIOCSTI   = 0x5412 // push input into a terminal
	ioctlTIOCLINUX = 0x541C // console selection: paste, also input
)

// metadataSyscalls change a file's mode, owner, times or extended
// attributes: Landlock does not cover them.
var metadataSyscalls = []string{
	"chmod", "fchmod", "fchmodat", "fchmodat2",
	"chown", "fchown", "lchown", "fchownat", "chown32", "fchown32", "lchown32",
	"utime", "utimes", "futimesat", "utimensat", "utimensat_time64",
	"setxattr", "lsetxattr", "fsetxattr", "setxattrat",
	"removexattr", "lremovexattr", "fremovexattr", "removexattrat",
}

// seccompRules is the filter of a restricted policy.
//
//   - Always: no TIOCSTI/TIOCLINUX, no ptrace or process_vm_* (reading or
//     steering other processes of the user).
//   - Without network_access, as Codex does: socket() only for AF_UNIX,
//     socketpair() only AF_UNIX, no io_uring (it creates sockets without
//     socket()), and no connect/bind/listen/accept/…: a Unix socket can be
//     made and used as a pair, never to reach a listener outside (docker,
//     ssh-agent, D-Bus). sendto is allowed only without an address (send on
//     a connected pair).
//     getpeername stays allowed: it reveals nothing without a connection,
//     and bash takes its EPERM on stdin for "run by sshd" and sources
//     ~/.bashrc into every command.
//   - read-only: none of the metadata system calls. (workspace-write gets
//     read-only mounts outside the roots instead; see setupMounts.)
func seccompRules(policy protocol.SandboxPolicy, namespaces bool) []seccompRule {
	rules := []seccompRule{
		{name: "ioctl", kind: denyArgIn, arg: 1, vals: []uint32{ioctlTIOCSTI, ioctlTIOCLINUX}},
		{name: "ptrace"}, {name: "process_vm_readv"}, {name: "process_vm_writev"},
		{name: "socketpair", kind: denyArgNotIn, arg: 0, vals: []uint32{unix.AF_UNIX}},
	}
	if !namespaces {
		// Without a PID namespace, kill(-1) reaches every process the
		// command may signal: with Landlock's signal scope (ABI 6) its
		// sandbox's helper and sibling commands, before it all the user's
		// processes. pid_t is read on its low 32 bits, as the kernel does.
		rules = append(rules, seccompRule{name: "kill", kind: denyArgIn, arg: 0, vals: []uint32{0xffffffff}})
	}
	if !policy.NetworkAccess {
		rules = append(rules,
			seccompRule{name: "socket", kind: denyArgNotIn, arg: 0, vals: []uint32{unix.AF_UNIX}},
			seccompRule{name: "sendto", kind: denyPtrSet, arg: 4},
		)
		for _, n := range []string{"io_uring_setup", "io_uring_enter", "io_uring_register",
			"connect", "accept", "accept4", "bind", "listen", "getsockname",
			"shutdown", "sendmmsg", "recvmmsg", "getsockopt", "setsockopt"} {
			rules = append(rules, seccompRule{name: n})
		}
	}
	if policy.Mode == protocol.SandboxReadOnly {
		for _, n := range metadataSyscalls {
			rules = append(rules, seccompRule{name: n})
		}
	}
	return rules
}

// assembleSeccomp builds the BPF program for rules on the native ABI.
// System calls the architecture does not have are skipped.
func assembleSeccomp(rules []seccompRule) ([]bpf.RawInstruction, error) {
	info, err := arch.GetInfo("")
	if err != nil {
		return nil, fmt.Errorf("seccomp on %s: %w", runtime.GOARCH, err)
	}
	prog := []bpf.Instruction{
		bpf.LoadAbsolute{Off: offArch, Size: 4},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: uint32(info.ID), SkipTrue: 1},
		bpf.RetConstant{Val: retENOSYS}, // a foreign ABI: refuse everything
		bpf.LoadAbsolute{Off: offNr, Size: 4},
	}
	if info.SeccompMask != 0 || runtime.GOARCH == "amd64" {
		// The x32 ABI (syscall numbers with bit 30) reaches the same
		// kernel code under other numbers.
		prog = append(prog,
			bpf.JumpIf{Cond: bpf.JumpGreaterOrEqual, Val: 0x40000000, SkipFalse: 1},
			bpf.RetConstant{Val: retENOSYS})
	}
	for _, r := range rules {
		nr, ok := info.SyscallNames[r.name]
		if !ok {
			continue
		}
		body := ruleBody(r)
		if len(body) > 250 {
			return nil, fmt.Errorf("seccomp rule for %s too long", r.name)
		}
		prog = append(prog, bpf.JumpIf{Cond: bpf.JumpEqual, Val: uint32(nr), SkipFalse: uint8(len(body))})
		prog = append(prog, body...)
	}
	prog = append(prog, bpf.RetConstant{Val: retAllow})
	return bpf.Assemble(prog)
}

// ruleBody is the code run when the syscall number matched; it always
// returns.
func ruleBody(r seccompRule) []bpf.Instruction {
	lo := uint32(offArgs + 8*r.arg)
	switch r.kind {
	case denyArgIn, denyArgNotIn:
		hit, miss := retEPERM, retAllow
		if r.kind == denyArgNotIn {
			hit, miss = retAllow, retEPERM
		}
		body := []bpf.Instruction{bpf.LoadAbsolute{Off: lo, Size: 4}}
		for i, v := range r.vals {
			body = append(body, bpf.JumpIf{Cond: bpf.JumpEqual, Val: v, SkipTrue: uint8(len(r.vals) - i)})
		}
		return append(body, bpf.RetConstant{Val: miss}, bpf.RetConstant{Val: hit})
	case denyPtrSet:
		return []bpf.Instruction{
			bpf.LoadAbsolute{Off: lo, Size: 4},
			bpf.JumpIf{Cond: bpf.JumpEqual, Val: 0, SkipFalse: 3},
			bpf.LoadAbsolute{Off: lo + 4, Size: 4},
			bpf.JumpIf{Cond: bpf.JumpEqual, Val: 0, SkipFalse: 1},
			bpf.RetConstant{Val: retAllow},
			bpf.RetConstant{Val: retEPERM},
		}
	}
	return []bpf.Instruction{bpf.RetConstant{Val: retEPERM}}
}

// loadSeccomp installs the policy's filter on every thread of the helper
// (TSYNC), so the command inherits it whichever thread starts it.
// no_new_privs is already set on all threads by Landlock; set it again on
// this one so the call never depends on that.
func loadSeccomp(policy protocol.SandboxPolicy, namespaces bool) error {
	raw, err := assembleSeccomp(seccompRules(policy, namespaces))
	if err != nil {
		return err
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("set no_new_privs: %w", err)
	}
	filters := make([]unix.SockFilter, len(raw))
	for i, ins := range raw {
		filters[i] = unix.SockFilter{Code: ins.Op, Jt: ins.Jt, Jf: ins.Jf, K: ins.K}
	}
	fprog := unix.SockFprog{Len: uint16(len(filters)), Filter: &filters[0]}
	if _, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, unix.SECCOMP_FILTER_FLAG_TSYNC, uintptr(unsafe.Pointer(&fprog))); errno != 0 {
		return errno
	}
	return nil
}

package main

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/grovecli/grove/core/execenv"
	"github.com/grovecli/grove/core/testkit"
)

// sshdFixture is a real OpenSSH sshd on a free localhost port, with keys
// generated for the test, and an ssh config naming it "grovetest" (the
// tests pass it with -F, as a user's ~/.ssh/config would hold it).
type sshdFixture struct {
	dir, config string
	port        int
}

// startSSHD starts sshd, or skips the test saying why it cannot run. The
// client sends SHLVL=1 so that the account's bash does not source its
// ~/.bashrc for the remote command (Debian's bash does under sshd): on a
// shared test machine that file may wait on locks of other users' shells
// (pyenv rehash), which has nothing to do with grove.
func startSSHD(t *testing.T) *sshdFixture {
	t.Helper()
	sshd, err := exec.LookPath("sshd")
	if err != nil {
		if _, serr := os.Stat("/usr/sbin/sshd"); serr != nil {
			t.Skip("no OpenSSH sshd on this machine (install openssh-server; .ci/run does)")
		}
		sshd = "/usr/sbin/sshd"
	}
	for _, bin := range []string{"ssh", "ssh-keygen"} {
		if _, err := exec.LookPath(bin); err != nil {
			t.Skipf("no %s on PATH (install openssh-client)", bin)
		}
	}
	u, err := user.Current()
	if err != nil {
		t.Fatal(err)
	}
	// Short: the ControlMaster socket path must fit in a sockaddr.
	dir, err := os.MkdirTemp("", "gssh")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"host", "id"} {
		if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", filepath.Join(dir, k)).CombinedOutput(); err != nil {
			t.Fatalf("ssh-keygen: %v\n%s", err, out)
		}
	}
	pub, err := os.ReadFile(filepath.Join(dir, "id.pub"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "authorized_keys"), string(pub))
	port := freePort(t)
	f := &sshdFixture{dir: dir, config: filepath.Join(dir, "ssh_config"), port: port}
	writeFile(t, filepath.Join(dir, "sshd_config"), fmt.Sprintf(`Port %d
ListenAddress 127.0.0.1
HostKey %s/host
AuthorizedKeysFile %s/authorized_keys
PidFile %s/sshd.pid
StrictModes no
UsePAM no
PasswordAuthentication no
KbdInteractiveAuthentication no
PubkeyAuthentication yes
PermitRootLogin prohibit-password
AllowTcpForwarding no
X11Forwarding no
LogLevel ERROR
AcceptEnv SHLVL
`, port, dir, dir, dir))
	writeFile(t, f.config, fmt.Sprintf(`Host grovetest
  HostName 127.0.0.1
  Port %d
  User %s
  IdentityFile %s/id
  IdentitiesOnly yes
  UserKnownHostsFile %s/known_hosts
  StrictHostKeyChecking accept-new
  LogLevel ERROR
  SetEnv SHLVL=1
`, port, u.Username, dir, dir))
	if os.Getuid() == 0 {
		// sshd's privilege separation directory.
		_ = os.MkdirAll("/run/sshd", 0o755)
	}
	cmd := exec.Command(sshd, "-D", "-e", "-f", filepath.Join(dir, "sshd_config"))
	var logs syncBuffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Skipf("sshd cannot start here: %v", err)
	}
	exited := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(exited)
	}()
	t.Cleanup(func() {
		_ = execenv.StopSSH(f.host("grove"))
		_ = cmd.Process.Kill()
		<-exited
	})
	testkit.Eventually(t, "sshd to listen on "+strconv.Itoa(port), func() bool {
		c, err := net.Dial("tcp", "127.0.0.1:"+strconv.Itoa(port))
		if err == nil {
			_ = c.Close()
			return true
		}
		select {
		case <-exited:
			t.Skipf("sshd cannot run here: %s", strings.TrimSpace(logs.String()))
		default:
		}
		return false
	}, logs.String)
	return f
}

// host is the [hosts.<name>] of the fixture for grove at grovePath.
func (f *sshdFixture) host(grovePath string) execenv.SSHHost {
	return execenv.SSHHost{Name: "box", Dest: "grovetest", GrovePath: grovePath, Args: []string{"-F", f.config}}
}

// hostTOML is the same as config.toml text.
func (f *sshdFixture) hostTOML(name, workspace string) string {
	return fmt.Sprintf("[hosts.%s]\nssh = \"grovetest\"\nworkspace = %q\ngrove_path = %q\nssh_args = [\"-F\", %q]\n", name, workspace, groveBin, f.config)
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

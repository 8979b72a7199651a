//go:build linux

package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"golang.org/x/sys/unix"
)

// runPool serves commands until grove goes away (control socket closed,
// pidfd readable) or the helper is told to stop; then every command dies.
func runPool(raw string) (int, error) {
	spec, err := decodeSpec(raw)
	if err != nil {
		return 0, err
	}
	stop, err := restrictSelf(spec)
	if err != nil {
		_ = sendReply(poolConnFD, poolReply{Err: err.Error()})
		return 0, err
	}
	known, err := protectedBaseline(spec)
	if err != nil {
		_ = sendReply(poolConnFD, poolReply{Err: err.Error()})
		return 0, err
	}
	if err := sendReply(poolConnFD, poolReply{Ready: true}); err != nil {
		return 0, fmt.Errorf("report ready: %w", err)
	}
	reqs := make(chan poolCall)
	go readPoolCalls(reqs)
	chld := make(chan os.Signal, 16)
	signal.Notify(chld, syscall.SIGCHLD)
	s := &poolServer{spec: spec, known: known, byPid: map[int]poolCommand{}, pidOf: map[uint64]int{}}
	for {
		select {
		case r, ok := <-reqs:
			if !ok {
				return 0, teardown(spec)
			}
			s.serve(r)
		case <-chld:
			s.reap()
		case <-stop:
			return 0, teardown(spec)
		case <-parentGone:
			return 0, teardown(spec)
		}
	}
}

// poolCall is a request with the descriptors that came with it.
type poolCall struct {
	poolRequest
	fds []int
}

// readPoolCalls reads requests from the control socket until it closes.
func readPoolCalls(reqs chan<- poolCall) {
	defer close(reqs)
	buf, oob := make([]byte, maxPoolMessage), make([]byte, unix.CmsgSpace(4*4))
	for {
		n, oobn, _, _, err := unix.Recvmsg(poolConnFD, buf, oob, unix.MSG_CMSG_CLOEXEC)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil || n == 0 {
			return
		}
		var r poolCall
		if json.Unmarshal(buf[:n], &r.poolRequest) != nil {
			continue
		}
		if msgs, err := unix.ParseSocketControlMessage(oob[:oobn]); err == nil && len(msgs) == 1 {
			r.fds, _ = unix.ParseUnixRights(&msgs[0])
		}
		reqs <- r
	}
}

// poolCommand is a command the helper started and has not reaped.
type poolCommand struct {
	id     uint64
	reply  int
	out    int // kept to report what quarantineNew moved
	exited chan struct{}
	kill   chan struct{}
	killed bool
	intr   *commandSignals
}

// poolServer is the helper's commands, owned by runPool's thread: without
// namespaces it alone shares the commands' Landlock domain (see
// restrictSelf), so it starts, signals and reaps every one of them.
type poolServer struct {
	spec  helperSpec
	known protectedState
	byPid map[int]poolCommand
	pidOf map[uint64]int
}

func (s *poolServer) serve(r poolCall) {
	switch r.Op {
	case "start":
		s.start(r)
	case "kill":
		s.kill(r.ID)
	case "signal":
		s.signal(r.ID, r.Signal)
	}
}

// start runs a command on stdin, output, the reply socket and stderr
// (often output again), and answers on its reply socket.
func (s *poolServer) start(r poolCall) {
	if len(r.fds) != 4 {
		for _, fd := range r.fds {
			_ = unix.Close(fd)
		}
		return
	}
	exited, kill := make(chan struct{}), make(chan struct{})
	intr := newCommandSignals()
	var pid int
	var err error
	if s.spec.Namespaces {
		pid, err = startIsolated(s.spec, r.poolRequest, r.fds[0], r.fds[1], r.fds[3], exited, kill, intr)
	} else if err = refuseUncoverable(s.spec); err == nil {
		// Without namespaces this thread must start (and kill)
		// everything: it alone shares the commands' Landlock domain (see
		// restrictSelf). A protected path made since the helper started
		// (git init) is refused here.
		pid, err = startPooled(r.poolRequest, r.fds[0], r.fds[1], r.fds[3], false)
	}
	_, _ = unix.Close(r.fds[0]), unix.Close(r.fds[3])
	if err != nil {
		_ = unix.Close(r.fds[1])
		_ = sendReply(r.fds[2], poolReply{Err: err.Error()})
		_ = unix.Close(r.fds[2])
		return
	}
	_ = sendReply(r.fds[2], poolReply{Started: true})
	s.byPid[pid] = poolCommand{r.ID, r.fds[2], r.fds[1], exited, kill, false, intr}
	s.pidOf[r.ID] = pid
}

func (s *poolServer) kill(id uint64) {
	pid, ok := s.pidOf[id]
	if !ok {
		return
	}
	if !s.spec.Namespaces {
		killCommand(pid)
		return
	}
	if c := s.byPid[pid]; !c.killed {
		c.killed = true
		s.byPid[pid] = c
		close(c.kill) // its own thread kills it (see startIsolated)
	}
}

func (s *poolServer) signal(id uint64, what string) {
	pid, ok := s.pidOf[id]
	if !ok {
		return
	}
	if !s.spec.Namespaces {
		// Not the first process of a namespace: the default action
		// applies by itself.
		if what == poolSignalGroup {
			_ = syscall.Kill(-pid, syscall.SIGINT)
		}
		return
	}
	s.byPid[pid].intr.send(what) // its own thread signals it
}

// reap collects every exited command and reports its exit code.
func (s *poolServer) reap() {
	for {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil || pid <= 0 {
			break
		}
		if c, ok := s.byPid[pid]; ok {
			s.exited(pid, c, ws)
		}
	}
	if len(s.byPid) == 0 && !s.spec.Namespaces {
		killTree()
	}
}

// exited reports a reaped command's end: what quarantine moved, then its
// exit code (a SIGKILL standing in for an ignored interrupt reads as the
// interrupt's default action).
func (s *poolServer) exited(pid int, c poolCommand, ws syscall.WaitStatus) {
	code := ws.ExitStatus()
	if ws.Signaled() {
		code = 128 + int(ws.Signal())
	}
	if ws.Signaled() && ws.Signal() == syscall.SIGKILL && c.intr.emulated.Load() {
		code = 128 + int(syscall.SIGINT) // the default action of the interrupt it ignored
	}
	if !s.spec.Namespaces {
		// What is left of its process group; the rest (setsid'd,
		// re-parented to this subreaper) cannot be told from another
		// command's, so it dies as soon as no command of this helper runs.
		_ = syscall.Kill(-pid, syscall.SIGKILL)
	}
	for _, line := range quarantineNew(s.spec, s.known) {
		_, _ = unix.Write(c.out, []byte("\n"+line+"\n"))
	}
	_ = unix.Close(c.out)
	_ = sendReply(c.reply, poolReply{Exit: &code})
	_ = unix.Close(c.reply)
	close(c.exited)
	delete(s.byPid, pid)
	delete(s.pidOf, c.id)
}

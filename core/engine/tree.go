package engine

import (
	"fmt"
	"sync"

	"github.com/grovecli/grove/protocol"
)

// threadTree is the session's threads: each by id, in creation order, the
// root, and the agents.max_threads slots held by spawns between their
// limit check and their registration. Its mu is taken before a thread's
// status.mu (reserve counts the active children) and never while holding
// any thread's lock; a thread's children list is the thread's own (mu).
type threadTree struct {
	mu    sync.Mutex
	byID  map[protocol.ThreadID]*Thread
	order []protocol.ThreadID
	root  *Thread
	// reserved counts spawns between the limit check and creation.
	reserved int
}

func newThreadTree() threadTree {
	return threadTree{byID: map[protocol.ThreadID]*Thread{}}
}

// get is the thread with id, nil when the session has none.
func (tr *threadTree) get(id protocol.ThreadID) *Thread {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return tr.byID[id]
}

// rootThread is the session's root, nil before one is registered.
func (tr *threadTree) rootThread() *Thread {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return tr.root
}

// all is every thread in creation order (the root first).
func (tr *threadTree) all() []*Thread {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	out := make([]*Thread, 0, len(tr.order))
	for _, id := range tr.order {
		out = append(out, tr.byID[id])
	}
	return out
}

// tops is every thread with no registered parent: the root, and any a
// resume registered without its parent.
func (tr *threadTree) tops() []*Thread {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	var out []*Thread
	for _, id := range tr.order {
		if t := tr.byID[id]; t.parentID == "" || tr.byID[t.parentID] == nil {
			out = append(out, t)
		}
	}
	return out
}

// add registers t; reserved hands over the slot its spawn held. The
// first thread without a parent becomes the root.
func (tr *threadTree) add(t *Thread, reserved bool) error {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	if _, dup := tr.byID[t.id]; dup {
		return fmt.Errorf("thread %s already exists", t.id)
	}
	tr.byID[t.id] = t
	tr.order = append(tr.order, t.id)
	if reserved {
		tr.reserved--
	}
	if t.parentID == "" && tr.root == nil {
		tr.root = t
	}
	return nil
}

// reserve takes one of max slots for a spawn, counting the sub-agents
// running or pending; an idle finished child holds no slot.
func (tr *threadTree) reserve(max int) error {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	active := tr.reserved
	for _, t := range tr.byID {
		if t.parentID == "" {
			continue
		}
		if st, _ := t.Status(); st.IsActive() {
			active++
		}
	}
	if active >= max {
		return &MaxThreadsError{Active: active, Max: max}
	}
	tr.reserved++
	return nil
}

// release gives back a slot whose spawn created nothing.
func (tr *threadTree) release() {
	tr.mu.Lock()
	tr.reserved--
	tr.mu.Unlock()
}

package tui

import (
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/grovecli/grove/protocol"
)

// countingModel counts the Updates the program delivers to grove's model.
type countingModel struct {
	Model
	updates *atomic.Int64
}

func (c countingModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	c.updates.Add(1)
	m, cmd := c.Model.Update(msg)
	if mm, ok := m.(Model); ok {
		c.Model = mm
		return c, cmd
	}
	return m, cmd
}

// frameWriter records the program's terminal output.
type frameWriter struct {
	mu     sync.Mutex
	text   strings.Builder
	writes int
}

func (w *frameWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.writes++
	return w.text.Write(b)
}

func (w *frameWriter) counts() (int, string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.writes, w.text.String()
}

// TestIdleProgramSleeps runs grove's real program (the pinned Bubble Tea
// fork, grove's model, its event reader) in a testing/synctest bubble:
// once a session's turn has ended nothing animates, so across ten idle
// (virtual) minutes the model gets no message and the terminal no write.
// time.Sleep in a bubble returns only when every goroutine is blocked: it
// is the bubble's event, not a guess at real time. A new event still
// reaches the screen.
func TestIdleProgramSleeps(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fb := newFake(rootInfo())
		var updates atomic.Int64
		out := &frameWriter{}
		m := countingModel{Model: NewModel(Options{Backend: fb, Now: time.Now}), updates: &updates}
		p := tea.NewProgram(m, tea.WithInput(nil), tea.WithOutput(out), tea.WithWindowSize(100, 30),
			tea.WithoutSignals(), tea.WithoutSignalHandler(), tea.WithFPS(rendererFPS))
		done := make(chan error, 1)
		go func() {
			_, err := p.Run()
			done <- err
		}()
		defer func() {
			p.Quit()
			if err := <-done; err != nil {
				t.Error(err)
			}
			// As Run does: ending the subscription stops the event reader.
			close(fb.ch)
		}()
		for _, e := range append(treeScenario(),
			status(workerID, protocol.Completed("fixed", true), 25*time.Second),
			status(rootID, protocol.Completed("done", true), 30*time.Second)) {
			fb.ch <- e
		}
		// Flashes and spinners that were running end within minutes.
		time.Sleep(10 * time.Minute)
		synctest.Wait()
		writes, text := out.counts()
		if !strings.Contains(text, "go test ./pkg/when") {
			t.Fatalf("the scenario never reached the screen:\n%s", text)
		}
		before := updates.Load()
		time.Sleep(10 * time.Minute)
		synctest.Wait()
		if got := updates.Load() - before; got != 0 {
			t.Errorf("idle grove got %d messages in 10 minutes", got)
		}
		if w, _ := out.counts(); w != writes {
			t.Errorf("idle grove wrote to the terminal %d times in 10 minutes", w-writes)
		}
		fb.ch <- message(rootID, "a late note arrives")
		time.Sleep(time.Second)
		synctest.Wait()
		if _, text := out.counts(); !strings.Contains(text, "a late note arrives") {
			t.Errorf("an event after the idle stretch was not drawn")
		}
	})
}

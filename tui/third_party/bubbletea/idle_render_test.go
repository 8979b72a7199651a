package tea

// Grove fork: tests of the demand-driven renderer (see README.md). They run
// in a testing/synctest bubble, whose clock is virtual: time.Sleep there
// returns only once every goroutine of the program is blocked, so "ten idle
// minutes" is deterministic and takes no real time.

import (
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// textModel shows its text; a textMsg replaces it.
type textModel string

type textMsg string

func (m textModel) Init() Cmd { return nil }

func (m textModel) Update(msg Msg) (Model, Cmd) {
	if t, ok := msg.(textMsg); ok {
		return textModel(t), nil
	}
	return m, nil
}

func (m textModel) View() View { return NewView(string(m)) }

// recordingWriter keeps what the renderer wrote and how many writes it made.
type recordingWriter struct {
	mu     sync.Mutex
	buf    strings.Builder
	writes int
}

func (w *recordingWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.writes++
	return w.buf.Write(b)
}

func (w *recordingWriter) snapshot() (string, int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String(), w.writes
}

// startIdleProgram runs a program showing "hello"; quit ends it and returns
// Run's error (it also runs at cleanup, so a failed test leaves no goroutine).
func startIdleProgram(t *testing.T, fps int) (p *Program, out *recordingWriter, quit func() error) {
	t.Helper()
	out = &recordingWriter{}
	p = NewProgram(textModel("hello"), WithInput(nil), WithOutput(out),
		WithWindowSize(80, 24), WithoutSignals(), WithoutSignalHandler(), WithFPS(fps))
	done := make(chan error, 1)
	go func() {
		_, err := p.Run()
		done <- err
	}()
	var once sync.Once
	var err error
	quit = func() error {
		once.Do(func() {
			p.Quit()
			err = <-done
		})
		return err
	}
	t.Cleanup(func() { _ = quit() })
	return p, out, quit
}

// An idle program draws its first frame, then its renderer stops waking:
// no tick and no write in ten (virtual) minutes.
func TestRendererSleepsWhenIdle(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p, out, quit := startIdleProgram(t, 60)
		time.Sleep(time.Second)
		synctest.Wait()
		text, writes := out.snapshot()
		if !strings.Contains(text, "hello") {
			t.Fatalf("first frame not drawn: %q", text)
		}
		ticks := p.frameTicks.Load()
		// One tick draws the frame, the next finds nothing and stops.
		if ticks > 3 {
			t.Fatalf("renderer ticked %d times for one frame", ticks)
		}
		time.Sleep(10 * time.Minute)
		synctest.Wait()
		if got := p.frameTicks.Load(); got != ticks {
			t.Fatalf("idle renderer woke %d times in 10 minutes (upstream: 36000)", got-ticks)
		}
		if _, w := out.snapshot(); w != writes {
			t.Fatalf("idle renderer wrote %d times", w-writes)
		}
		if err := quit(); err != nil {
			t.Fatal(err)
		}
	})
}

// A new view after an idle stretch is drawn at once (nothing was drawn for
// an interval), and the renderer sleeps again afterwards.
func TestRendererWakesForNewView(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const fps = 30
		p, out, quit := startIdleProgram(t, fps)
		time.Sleep(time.Minute)
		synctest.Wait()
		before := p.frameTicks.Load()
		p.Send(textMsg("changed"))
		synctest.Wait() // no virtual time passes: drawn at once
		if text, _ := out.snapshot(); !strings.Contains(text, "changed") {
			t.Fatalf("new view after an idle stretch not drawn at once: %q", text)
		}
		time.Sleep(time.Minute)
		synctest.Wait()
		if got := p.frameTicks.Load() - before; got > 3 {
			t.Fatalf("renderer ticked %d times for one new frame", got)
		}
		if err := quit(); err != nil {
			t.Fatal(err)
		}
	})
}

// While views keep coming the renderer draws at its frame rate, never
// faster: a burst of messages inside one interval is one frame.
func TestRendererCapsFrameRate(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const fps = 30
		p, out, quit := startIdleProgram(t, fps)
		time.Sleep(time.Second)
		synctest.Wait()
		_, writesBefore := out.snapshot()
		ticksBefore := p.frameTicks.Load()
		// 10 messages per frame interval for one second.
		step := time.Second / fps / 10
		for i := range 10 * fps {
			p.Send(textMsg("frame " + strings.Repeat("x", i%7)))
			time.Sleep(step)
		}
		synctest.Wait()
		ticks := p.frameTicks.Load() - ticksBefore
		if ticks < fps-2 || ticks > fps+2 {
			t.Fatalf("%d ticks in one second of updates, want ~%d", ticks, fps)
		}
		if _, w := out.snapshot(); w-writesBefore > fps+2 {
			t.Fatalf("%d writes in one second at %d fps", w-writesBefore, fps)
		}
		if err := quit(); err != nil {
			t.Fatal(err)
		}
	})
}

// countingModel is textModel that counts the views taken.
type countingModel struct {
	text  string
	views *[]string
}

func (m countingModel) Init() Cmd { return nil }

func (m countingModel) Update(msg Msg) (Model, Cmd) {
	if t, ok := msg.(textMsg); ok {
		m.text = string(t)
	}
	return m, nil
}

func (m countingModel) View() View {
	*m.views = append(*m.views, m.text)
	return NewView(m.text)
}

// A burst of messages waiting in the queue (an unbracketed paste is one
// key press a character) is viewed once when it ends, not once a message:
// views nobody sees cost the whole screen each.
func TestBurstIsViewedOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var views []string
		out := &recordingWriter{}
		p := NewProgram(countingModel{text: "start", views: &views}, WithInput(nil), WithOutput(out),
			WithWindowSize(80, 24), WithoutSignals(), WithoutSignalHandler())
		const burst = 200
		for i := range burst {
			p.Send(textMsg(strings.Repeat("x", i%7) + "key " + string(rune('a'+i%26))))
		}
		p.Send(textMsg("burst done"))
		done := make(chan error, 1)
		go func() {
			_, err := p.Run()
			done <- err
		}()
		time.Sleep(time.Second)
		synctest.Wait()
		if text, _ := out.snapshot(); !strings.Contains(text, "burst done") {
			t.Fatalf("the burst's last view not drawn: %q", text)
		}
		p.Quit()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		// Views of the model before and after the burst (the first frame,
		// messages the program sends itself at start, Quit) depend on when
		// those messages arrive; what must not happen is a view in the middle
		// of the burst.
		mid := 0
		for _, text := range views {
			if strings.Contains(text, "key ") {
				mid++
			}
		}
		if mid > 1 {
			t.Fatalf("%d views during a burst of %d messages: %q", mid, burst+1, views)
		}
	})
}

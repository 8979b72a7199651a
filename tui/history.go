package tui

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	tea "charm.land/bubbletea/v2"
)

// historyCap is how many inputs are kept per project.
const historyCap = 500

// historyFile is where a project's inputs are kept: one JSON line per
// input under $GROVE_HOME/history, named after the project directory.
func historyFile(home, cwd string) string {
	sum := sha256.Sum256([]byte(filepath.Clean(cwd)))
	return filepath.Join(home, "history", hex.EncodeToString(sum[:8])+".jsonl")
}

type historyLine struct {
	Text string    `json:"text"`
	At   time.Time `json:"ts"`
}

// loadHistory reads a project's inputs, oldest first, skipping lines it
// cannot read; a file past twice the cap is compacted to the cap.
func loadHistory(path string) ([]string, error) {
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read input history %s: %w", path, err)
	}
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 64*1024), 4<<20)
	for sc.Scan() {
		var l historyLine
		if json.Unmarshal(sc.Bytes(), &l) == nil && strings.TrimSpace(l.Text) != "" {
			out = append(out, l.Text)
		}
	}
	if len(out) > 2*historyCap {
		out = out[len(out)-historyCap:]
		if err := rewriteHistory(path, out); err != nil {
			return out, err
		}
	}
	return out, nil
}

func rewriteHistory(path string, lines []string) error {
	var b bytes.Buffer
	for _, l := range lines {
		j, _ := json.Marshal(historyLine{Text: l})
		b.Write(append(j, '\n'))
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b.Bytes(), 0o600); err != nil {
		return fmt.Errorf("compact input history %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("compact input history %s: %w", path, err)
	}
	return nil
}

// appendHistory adds one input (one write of one line, so grove processes
// appending at once never interleave within a line).
func appendHistory(path, text string, at time.Time) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("input history: %w", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("input history: %w", err)
	}
	j, _ := json.Marshal(historyLine{Text: text, At: at})
	_, werr := f.Write(append(j, '\n'))
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		return fmt.Errorf("append input history %s: %w", path, werr)
	}
	return nil
}

// historyLoadedMsg brings the project's stored inputs.
type historyLoadedMsg struct {
	path  string
	lines []string
	err   error
}

// loadHistoryCmd reads the project's history off the UI loop.
func (m Model) loadHistoryCmd() tea.Cmd {
	path := m.histPath
	if path == "" {
		return nil
	}
	return func() tea.Msg {
		lines, err := loadHistory(path)
		return historyLoadedMsg{path: path, lines: lines, err: err}
	}
}

// remember records a sent input in memory and on disk.
func (m *Model) remember(text string) tea.Cmd {
	if n := len(m.history); n == 0 || m.history[n-1] != text {
		m.history = append(m.history, text)
	}
	m.histIdx = len(m.history)
	path, at := m.histPath, m.now()
	if path == "" {
		return nil
	}
	return func() tea.Msg {
		if err := appendHistory(path, text, at); err != nil {
			return flashMsg(err.Error())
		}
		return nil
	}
}

// historySearch is the ctrl+r reverse search over the input history.
type historySearch struct {
	query string
	match int    // index into history, -1 for none
	saved string // the composer before the search (esc restores it)
}

// find searches backwards from before index from for the query.
func (m *Model) findHistory(query string, from int) int {
	q := strings.ToLower(query)
	for i := min(from, len(m.history)) - 1; i >= 0; i-- {
		if strings.Contains(strings.ToLower(m.history[i]), q) {
			return i
		}
	}
	return -1
}

// searchKey handles a key during ctrl+r search.
func (m *Model) searchKey(msg tea.KeyPressMsg) {
	s := m.search
	switch k := msg.String(); {
	case is(k, historyKeys.Again):
		from := len(m.history)
		if s.match >= 0 {
			from = s.match
		}
		if i := m.findHistory(s.query, from); i >= 0 {
			s.match = i
		}
	case is(k, historyKeys.Keep):
		m.search = nil // keep the match in the composer, to edit or send
		return
	case is(k, historyKeys.Cancel):
		m.composer.SetValue(s.saved)
		m.search = nil
		return
	case is(k, historyKeys.Back):
		_, n := utf8.DecodeLastRuneInString(s.query)
		s.query = s.query[:len(s.query)-n]
		s.match = m.findHistory(s.query, len(m.history))
	default:
		if msg.Text == "" {
			return
		}
		s.query += msg.Text
		s.match = m.findHistory(s.query, len(m.history))
	}
	if s.match >= 0 {
		m.composer.SetValue(m.history[s.match])
	} else {
		m.composer.SetValue(s.saved)
	}
	m.composer.CursorEnd()
}

// searchLine is the composer rule during a search.
func (m Model) searchLine() string {
	s := m.search
	state := ""
	if s.match < 0 && s.query != "" {
		state = m.th.warn.Render("  no match")
	}
	line := m.th.key.Render(" history search: ") + s.query + "▏" + state + m.th.dim.Render("  · ctrl+r older · enter keep · esc cancel")
	return padRight(line, m.w)
}

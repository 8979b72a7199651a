package tui

import (
	"strings"

	"charm.land/bubbles/v2/key"
)

// Each layer of the screen (layers.go) has its own keys, as bindings:
// the layer's key handler matches them and the ? screen lists them
// (helpSections), so what help says cannot drift from what works. The
// main screen's are keys (keys.go), the composer's editorKeys.

// keyName is a key as String() spells it ("ctrl+r"), matchable against
// bindings where a handler has only the name.
type keyName string

func (k keyName) String() string { return string(k) }

// is reports whether key k is one of b's.
func is(k string, b ...key.Binding) bool { return key.Matches(keyName(k), b...) }

// helpKeyMap: the ? screen scrolls; any other key closes it.
type helpKeyMap struct{ Up, Down, PageUp, PageDown key.Binding }

var helpKeys = helpKeyMap{
	Up:       bind("scroll up", "up", "k"),
	Down:     bind("scroll down", "down", "j"),
	PageUp:   bind("page up", "pgup"),
	PageDown: bind("page down", "pgdown", "space", " "),
}

// scrollKeyMap: the transcript's scroll keys on the main screen.
type scrollKeyMap struct{ PageUp, PageDown, Top, Bottom key.Binding }

var scrollKeys = scrollKeyMap{
	PageUp:   bind("page up", "pgup"),
	PageDown: bind("page down", "pgdown"),
	Top:      bind("top", "home"),
	Bottom:   bind("bottom, follow", "end"),
}

// approvalKeyMap: the focused approval modal (its answers y a n esc are
// approvalChoices' shortcuts).
type approvalKeyMap struct {
	Up, Down, Back, PageUp, PageDown, Choose key.Binding
	// The second key an approval outside the sandbox (or for the session)
	// needs: Confirm (y only for the session), Cancel.
	Confirm, ConfirmSession, Cancel key.Binding
}

var approvalKeys = approvalKeyMap{
	Up:             bind("previous option", "up", "k", "shift+tab"),
	Down:           bind("next option", "down", "j"),
	Back:           bind("back to typing", "tab"),
	PageUp:         bind("command: page up", "pgup"),
	PageDown:       bind("command: page down", "pgdown", " ", "space"),
	Choose:         bind("answer the highlighted option", "enter"),
	Confirm:        bind("confirm", "enter"),
	ConfirmSession: bind("confirm for the session", "enter", "y"),
	Cancel:         bind("back to the options", "esc", "n", "backspace", "left"),
}

// reviewKeyMap: the diff review (ctrl+d, /diff).
type reviewKeyMap struct {
	Close, Up, Down, NextFile, PrevFile, PageUp, PageDown, Fold, Whole,
	Accept, AcceptFile, Revert, RevertFile, ConfirmYes, ConfirmNo key.Binding
}

var reviewKeys = reviewKeyMap{
	Close:      bind("close", "esc", "q", "ctrl+d"),
	Up:         bind("previous hunk", "up", "k"),
	Down:       bind("next hunk", "down", "j"),
	NextFile:   bind("next file", "right", "l", "tab"),
	PrevFile:   bind("previous file", "left", "h", "shift+tab"),
	PageUp:     bind("page up", "pgup"),
	PageDown:   bind("page down", "pgdown"),
	Fold:       bind("fold / unfold the hunk", "enter", "space", " "),
	Whole:      bind("whole tree / focused agent", "t"),
	Accept:     bind("accept the hunk", "a"),
	AcceptFile: bind("accept the file", "A"),
	Revert:     bind("revert the hunk (asks first)", "r"),
	RevertFile: bind("revert the file (asks first)", "R"),
	ConfirmYes: bind("revert: yes", "y", "enter"),
	ConfirmNo:  bind("revert: no", "n", "esc", "q"),
}

// agentsKeyMap: the ctrl+t agents table, and its filter while typed.
type agentsKeyMap struct {
	Close, Up, Down, Sort, Filter, Jump, FilterDone, FilterBack key.Binding
}

var agentsKeys = agentsKeyMap{
	Close:      bind("close", "esc", "q", "ctrl+t"),
	Up:         bind("up", "up", "k"),
	Down:       bind("down", "down", "j"),
	Sort:       bind("sort by the next column", "s"),
	Filter:     bind("filter", "/"),
	Jump:       bind("focus that agent", "enter"),
	FilterDone: bind("filter: done", "enter", "esc"),
	FilterBack: bind("filter: delete a character", "backspace"),
}

// searchKeyMap: the transcript search (ctrl+f, / in the tree).
type searchKeyMap struct{ Done, Back, Prev, Next, Edit key.Binding }

var searchKeys = searchKeyMap{
	Done: bind("search: done typing", "enter"),
	Back: bind("search: delete a character", "backspace"),
	Prev: bind("previous match", "enter", "n", "up"),
	Next: bind("next match", "N", "shift+n", "down"),
	Edit: bind("search again", "/"),
}

// historyKeyMap: the ctrl+r input-history search.
type historyKeyMap struct{ Again, Keep, Cancel, Back key.Binding }

var historyKeys = historyKeyMap{
	Again:  bind("older match", "ctrl+r"),
	Keep:   bind("keep the match in the composer", "enter", "tab", "right", "end"),
	Cancel: bind("cancel", "esc", "ctrl+g"),
	Back:   bind("delete a character", "backspace"),
}

// menuKeyMap: the slash-command and $skill menus above the composer.
type menuKeyMap struct{ Up, Down, Complete, Run key.Binding }

var menuKeys = menuKeyMap{
	Up:       bind("previous", "up"),
	Down:     bind("next", "down"),
	Complete: bind("complete", "tab"),
	Run:      bind("run (or complete a command that takes an argument)", "enter"),
}

// questionKeyMap: request_user_input's question card (digits pick an
// option; enter answers with the highlighted one or the draft).
type questionKeyMap struct{ Focus, Up, Down key.Binding }

var questionKeys = questionKeyMap{
	Focus: bind("answer the question", "tab"),
	Up:    bind("previous option", "up"),
	Down:  bind("next option", "down"),
}

// pickerKeyMap: the session picker (grove resume, /resume). Typed text
// filters (Filter only names that on the footer; it matches no key, so
// the ? screen says it in the section's title).
type pickerKeyMap struct {
	Filter, Up, Down, PageUp, PageDown, Resume, Back, Close key.Binding
}

var pickerKeys = pickerKeyMap{
	Filter:   key.NewBinding(key.WithHelp("type", "filter the sessions")),
	Up:       bind("previous session", "up", "ctrl+p"),
	Down:     bind("next session", "down", "ctrl+n"),
	PageUp:   bind("ten sessions up", "pgup"),
	PageDown: bind("ten sessions down", "pgdown"),
	Resume:   bind("resume the session", "enter"),
	Back:     bind("filter: delete a character", "backspace"),
	Close:    bind("clear the filter, else close", "esc"),
}

// footer is the picker's key line, from the same bindings: each pair's
// first keys, short words.
func (k pickerKeyMap) footer(filtering bool) []key.Binding {
	closeWord := "close"
	if filtering {
		closeWord = "clear filter"
	}
	return []key.Binding{
		hint(k.Filter, "filter"),
		firstKeys("", "move", k.Up, k.Down),
		firstKeys(" ", "page", k.PageUp, k.PageDown),
		hint(k.Resume, "resume"),
		hint(k.Close, closeWord),
	}
}

// firstKeys is one hint for bindings bs: the first key of each, joined
// by sep ("↑↓"), matching all their keys.
func firstKeys(sep, desc string, bs ...key.Binding) key.Binding {
	var labels []string
	for _, b := range bs {
		labels = append(labels, keyLabel(b.Keys()[:1]))
	}
	b := row(desc, bs...)
	b.SetHelp(strings.Join(labels, sep), desc)
	return b
}

// helpSection is one layer's keys on the ? screen.
type helpSection struct {
	title string
	keys  []key.Binding
}

// helpSections are the layers' keys after the main screen's, one section
// a layer, from the same bindings the layers match.
func helpSections() []helpSection {
	r, a, s, h := reviewKeys, agentsKeys, searchKeys, historyKeys
	return []helpSection{
		{"Agents table (ctrl+t)", []key.Binding{a.Up, a.Down, a.Jump, a.Sort, a.Filter, a.Close}},
		{"Diff review (ctrl+d, /diff)", []key.Binding{r.Up, r.Down, r.NextFile, r.PrevFile, r.PageUp, r.PageDown, r.Fold, r.Whole, r.Accept, r.AcceptFile, r.Revert, r.RevertFile, r.Close}},
		{"Transcript search (ctrl+f)", []key.Binding{s.Done, s.Prev, s.Next, s.Edit}},
		{"History search (ctrl+r)", []key.Binding{h.Again, h.Keep, h.Cancel}},
		{"Approval (focused)", []key.Binding{approvalKeys.Up, approvalKeys.Down, approvalKeys.Choose, approvalKeys.PageUp, approvalKeys.PageDown, approvalKeys.Back}},
		{"Session picker (grove resume, /resume; typing filters)", []key.Binding{pickerKeys.Up, pickerKeys.Down, pickerKeys.PageUp, pickerKeys.PageDown, pickerKeys.Resume, pickerKeys.Back, pickerKeys.Close}},
	}
}

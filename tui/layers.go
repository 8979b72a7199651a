package tui

// The screen is a stack of layers, and one list says which is on top:
// keys go to the top layer and the body shows it, so what a key acts on is
// always what is on screen (issue 33's one precedence order; keys.go and
// view.go both ask topLayer). The approval modal is not a layer of its
// own: it belongs to the agent that asks and shows in that agent's pane
// (the main layer) while that agent is focused.
//
// Each layer's keys are key.Bindings in its own keymap (layer_keys.go:
// helpKeys, reviewKeys, agentsKeys, searchKeys, historyKeys, menuKeys,
// approvalKeys, questionKeys; the main screen's keys, the composer's
// editorKeys): its handler matches them and the ? screen lists them, a
// section a layer, so help is generated from what the handlers match.

// layer is one screen state that covers the body.
type layer int

const (
	// layerPicker is the session picker (grove resume, /resume): it covers
	// the whole screen, composer included.
	layerPicker layer = iota
	// layerHelp is the ? screen.
	layerHelp
	// layerReview is the diff review (ctrl+d, /diff).
	layerReview
	// layerAgents is the ctrl+t agents table.
	layerAgents
	// layerOpening is the "opening session" screen while a session loads.
	layerOpening
	// layerMain is the tree, the focused agent's pane (with its approval
	// modal) and the composer.
	layerMain
)

// topLayer is the layer that has the keys and the body: the first active
// one in precedence order.
func (m *Model) topLayer() layer {
	switch {
	case m.picker != nil:
		return layerPicker
	case m.help:
		return layerHelp
	case m.review != nil:
		return layerReview
	case m.overlay != nil:
		return layerAgents
	case m.opening != nil:
		return layerOpening
	}
	return layerMain
}

// closeTop closes the layer on top of the main screen (ctrl+c there acts
// on what is shown: the layer, not an agent behind it); false when the
// main screen is on top.
func (m *Model) closeTop() bool {
	switch m.topLayer() {
	case layerHelp:
		m.help, m.helpTop = false, 0
	case layerReview:
		m.review = nil
	case layerAgents:
		m.overlay = nil
	case layerPicker:
		if m.backend == nil {
			return false
		}
		m.picker = nil
	default:
		return false
	}
	return true
}

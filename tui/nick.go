package tui

import (
	"fmt"
	"hash/fnv"
	"strings"

	"github.com/grovecli/grove/protocol"
)

// Sixteen workers must not look alike (issue 35 item 7): every sub-agent
// gets a short name unique in the session, as Codex gives its sub-agents
// nicknames (codex-rs/core/src/agent/agent_names.txt, whose list this is).
// The name is the model's agent_name when it gave one that is free, else
// one picked from the list by the thread id (so a resumed session names
// its agents as before), the next free one on a collision; past the list,
// a number is added. The role stays beside it: "Euclid (worker)".

var nicknames = strings.Fields(`Euclid Archimedes Ptolemy Hypatia Avicenna Averroes Aquinas
Copernicus Kepler Galileo Bacon Descartes Pascal Fermat Huygens Leibniz Newton Halley Euler
Lagrange Laplace Volta Gauss Ampere Faraday Darwin Lovelace Boole Pasteur Maxwell Mendel Curie
Planck Tesla Poincare Noether Hilbert Einstein Raman Bohr Turing Hubble Feynman Franklin
McClintock Meitner Herschel Linnaeus Wegener Chandrasekhar Sagan Goodall Carson Carver Socrates
Plato Aristotle Epicurus Cicero Confucius Mencius Zeno Locke Hume Kant Hegel Kierkegaard Mill
Nietzsche Peirce James Dewey Russell Popper Sartre Beauvoir Arendt Rawls Singer Anscombe Parfit
Kuhn Boyle Hooke Harvey Dalton Ohm Helmholtz Gibbs Lorentz Schrodinger Heisenberg Pauli Dirac
Bernoulli Godel Nash Banach Ramanujan Erdos`)

// assignNick gives a new sub-agent its nickname (the root is "root").
func (s *session) assignNick(t *threadView) {
	if t.nick != "" || t.info.ParentID == "" {
		return
	}
	if s.nicks == nil {
		s.nicks = map[string]bool{"root": true}
	}
	if n := strings.TrimSpace(t.info.AgentName); n != "" && !s.nicks[strings.ToLower(n)] && len([]rune(n)) <= 16 {
		t.nick = n
	} else {
		h := fnv.New32a()
		h.Write([]byte(t.info.ID))
		start := int(h.Sum32() % uint32(len(nicknames)))
		for round := 1; t.nick == ""; round++ {
			for i := range nicknames {
				n := nicknames[(start+i)%len(nicknames)]
				if round > 1 {
					n = fmt.Sprintf("%s %d", n, round)
				}
				if !s.nicks[strings.ToLower(n)] {
					t.nick = n
					break
				}
			}
		}
	}
	s.nicks[strings.ToLower(t.nick)] = true
}

// name is how the TUI calls a thread everywhere: "root", else its
// nickname.
func (t *threadView) name() string {
	if t.info.ParentID == "" || t.nick == "" {
		return roleLabel(t.info)
	}
	return t.nick
}

// fullName is the nickname with the role: "Euclid (worker)"; the root is
// just "root" (not "root (default)", which reads like a setting).
func (t *threadView) fullName() string {
	if t.info.ParentID == "" || t.nick == "" {
		return roleLabel(t.info)
	}
	role := t.info.AgentType
	if role == "" {
		role = "default"
	}
	return t.nick + " (" + role + ")"
}

// agentName names thread t ("agent" when unknown).
func agentName(s *session, t *threadView) string {
	if t == nil {
		return "agent"
	}
	return t.name()
}

// nameOf names thread id, "agent <short id>" when the TUI does not know it.
func (s *session) nameOf(id protocol.ThreadID) string {
	if t := s.threads[id]; t != nil {
		return t.name()
	}
	return "agent " + id.Short()
}

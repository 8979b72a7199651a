package engine

import (
	"fmt"
	"hash/fnv"
	"strings"
	"sync"

	"github.com/grovecli/grove/protocol"
)

// Sixteen workers of one role must not look alike (issue 35 item 7): every
// sub-agent gets a short name unique in the session when it is spawned, as
// Codex reserves an agent_nickname from codex-rs/core/src/agent/agent_names.txt
// at spawn (AgentRegistry::reserve_agent_nickname) and records it in the
// thread's session meta. The engine owns the name so every front end (the
// TUI, the app-server's agentNickname) says the same one, and the rollout
// keeps it so a resumed session names its agents as before.
//
// The name is the model's agent_name (a persona) when it gave a short one
// that is free, else one picked from the list by the thread id, the next
// free one on a collision; past the list, a number is added ("Euclid 2").

var agentNicknames = strings.Fields(`Euclid Archimedes Ptolemy Hypatia Avicenna Averroes Aquinas
Copernicus Kepler Galileo Bacon Descartes Pascal Fermat Huygens Leibniz Newton Halley Euler
Lagrange Laplace Volta Gauss Ampere Faraday Darwin Lovelace Boole Pasteur Maxwell Mendel Curie
Planck Tesla Poincare Noether Hilbert Einstein Raman Bohr Turing Hubble Feynman Franklin
McClintock Meitner Herschel Linnaeus Wegener Chandrasekhar Sagan Goodall Carson Carver Socrates
Plato Aristotle Epicurus Cicero Confucius Mencius Zeno Locke Hume Kant Hegel Kierkegaard Mill
Nietzsche Peirce James Dewey Russell Popper Sartre Beauvoir Arendt Rawls Singer Anscombe Parfit
Kuhn Boyle Hooke Harvey Dalton Ohm Helmholtz Gibbs Lorentz Schrodinger Heisenberg Pauli Dirac
Bernoulli Godel Nash Banach Ramanujan Erdos`)

// maxPersonaNickname is the longest agent_name taken as a nickname (a
// longer one would not fit the tree).
const maxPersonaNickname = 16

// nicknameBook hands out the session's nicknames; spawns race, so it
// locks.
type nicknameBook struct {
	mu    sync.Mutex
	taken map[string]bool // lower-cased; "root" is never given
}

// take names thread id: its recorded nickname when it has one (a resumed
// agent keeps its name even if another took it meanwhile), else the
// persona when short and free, else a free one from the list.
func (b *nicknameBook) take(recorded, persona string, id protocol.ThreadID) string {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.taken == nil {
		b.taken = map[string]bool{"root": true}
	}
	name := strings.TrimSpace(recorded)
	if name == "" {
		name = b.pick(strings.TrimSpace(persona), id)
	}
	b.taken[strings.ToLower(name)] = true
	return name
}

// pick is the first free name: the persona, then the list from a place
// the thread id chooses, then the list again with a round number.
func (b *nicknameBook) pick(persona string, id protocol.ThreadID) string {
	if persona != "" && !b.taken[strings.ToLower(persona)] && len([]rune(persona)) <= maxPersonaNickname {
		return persona
	}
	h := fnv.New32a()
	h.Write([]byte(id))
	start := int(h.Sum32() % uint32(len(agentNicknames)))
	for round := 1; ; round++ {
		for i := range agentNicknames {
			n := agentNicknames[(start+i)%len(agentNicknames)]
			if round > 1 {
				n = fmt.Sprintf("%s %d", n, round)
			}
			if !b.taken[strings.ToLower(n)] {
				return n
			}
		}
	}
}

package surfacetest_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/grovecli/grove/core/surface/surfacetest"
)

// Seed 002's broken templates (each violates one invariant).
var brokenTemplates = map[string]string{
	".codex/.agents/nodesc.md":   "---\nmodel: x\n---\nWork.\n",
	".codex/.agents/noblock.md":  "---\ndescription: No block.\n---\n",
	".codex/.agents/mismatch.md": "---\ndescription: Mismatch.\nagent_names:\n  - name: a\n    description: A.\n---\nWork.\n",
	".codex/.agents/extra.md":    "---\ndescription: Extra.\n---\nWork.\n\n<!-- agent_name: ghost -->\nBoo.\n",
}

// Seed 002 (templates, Russian original), through the collab tools.
func TestSeed002(t *testing.T) {
	runCases(t, []seedCase{
		{clause: "002-13 no read_only: the parent's sandbox", cfg: surfacetest.Config{Files: map[string]string{".codex/.agents/probe.md": probeTemplate}, Turns: surfacetest.Turns{
			"root": {call("s", "spawn_agent", `{"message":"AS:w1 x","agent_type":"probe"}`), say("ok")},
		}}, check: func(t *testing.T, env *surfacetest.Env) {
			root, _ := env.Engine.Info(env.Root)
			got, _ := json.Marshal(spawned(t, env).Sandbox)
			want, _ := json.Marshal(root.Sandbox)
			exact(t, "child sandbox", string(got), string(want))
		}},
		{clause: "002-15+16 globs, case, deny wins", cfg: surfacetest.Config{Files: map[string]string{
			".codex/.agents/globby.md": "---\ndescription: Globs.\nallow_list:\n  - list_*\n  - wai?\n  - Read_File\n  - spawn.*\n  - grep_files\ndeny_list:\n  - list_active_agents\n  - grep_*\n---\nWork.\n",
		}, Turns: surfacetest.Turns{
			"root": {call("s", "spawn_agent", `{"message":"AS:w1 x","agent_type":"globby"}`), callWith("w", "wait", idArgs("s", "agent_id", `{"ids":[$ID]}`)), say("ok")},
		}}, check: func(t *testing.T, env *surfacetest.Env) {
			// list_* and wai? match; Read_File is not read_file; spawn.*
			// is no regex; deny beats allow for list_active_agents and
			// grep_files.
			exact(t, "child's tools", strings.Join(env.Tools("w1", 0), " "), "list_agents list_dir wait")
		}},
		{clause: "002-25 missing template", cfg: surfacetest.Config{Turns: surfacetest.Turns{
			"root": {call("m", "list_agents", `{"agent_type":"nope"}`), call("i", "list_agents", `{"agent_type":"Bad Type"}`), say("ok")},
		}}, check: func(t *testing.T, env *surfacetest.Env) {
			exact(t, "list_agents", env.Output("root", "m"), "missing agent template: nope")
			exact(t, "list_agents", env.Output("root", "i"), `invalid agent_type "Bad Type": expected snake_case or kebab-case ([a-z0-9_-]+)`)
		}},
		{clause: "002-27..30 invariants make list_agents fail", cfg: surfacetest.Config{Files: brokenTemplates, Turns: surfacetest.Turns{
			"root": {
				call("d", "list_agents", `{"agent_type":"nodesc"}`),
				call("b", "list_agents", `{"agent_type":"noblock"}`),
				call("x", "list_agents", `{"agent_type":"mismatch"}`),
				call("g", "list_agents", `{"agent_type":"extra"}`),
				call("all", "list_agents", `{}`),
				say("ok"),
			},
		}}, check: func(t *testing.T, env *surfacetest.Env) {
			dir := filepath.Join(env.Cwd, ".codex", ".agents")
			exact(t, "no description", env.Output("root", "d"), "template nodesc ("+filepath.Join(dir, "nodesc.md")+") has no description: add `description:` to its frontmatter")
			exact(t, "no default block", env.Output("root", "b"), "template noblock ("+filepath.Join(dir, "noblock.md")+") has no default prompt: add text after the frontmatter, before the first <!-- agent_name: … --> block")
			exact(t, "declared, no block", env.Output("root", "x"), "template "+filepath.Join(dir, "mismatch.md")+`:1: persona "a" is declared in agent_names but has no <!-- agent_name: a --> block`)
			if g := env.Output("root", "g"); !strings.Contains(g, `ghost`) || strings.HasPrefix(g, "{") {
				t.Errorf("a block not declared in agent_names must fail: %s", g)
			}
			if all := env.Output("root", "all"); strings.HasPrefix(all, "{") {
				t.Errorf("an unfiltered list_agents must fail on a broken template: %s", all)
			}
		}},
		{clause: "002-31 agent_name needs a non-default agent_type", cfg: surfacetest.Config{Turns: surfacetest.Turns{
			"root": {call("n", "spawn_agent", `{"message":"AS:w2 x","agent_name":"a"}`), say("ok")},
		}}, check: func(t *testing.T, env *surfacetest.Env) {
			exact(t, "spawn_agent", env.Output("root", "n"), "agent_name requires a non-default agent_type")
			threads(t, env, 1)
		}},
	})
}

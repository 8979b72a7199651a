// Throwaway walkthrough model (not committed): root spawns 20 workers;
// workers run a command (some escalated, one patch outside the roots),
// then answer with a streamed text.
package main

import (
	"fmt"
	"os"
	"os/signal"
	"regexp"
	"strings"
	"time"

	"github.com/grovecli/grove/core/model/modeltest"
)

var taskRE = regexp.MustCompile(`task (\d+):`)

func main() {
	s := modeltest.Start()
	s.Handle(func(r modeltest.CapturedRequest) modeltest.Reply {
		raw := string(r.Raw)
		done := strings.Contains(raw, "function_call_output") || strings.Contains(raw, `"role":"tool"`)
		if m := taskRE.FindAllStringSubmatch(raw, -1); m != nil && !strings.Contains(raw, "go20") {
			n := m[0][1]
			if done {
				return modeltest.Reply{Text: "Worker " + n + " finished: **all good** and the `parser` works.\n\n- item one\n- item two", ChunkDelay: 30 * time.Millisecond, ChunkSize: 3}
			}
			var k int
			fmt.Sscan(n, &k)
			switch {
			case k == 7:
				return modeltest.Reply{ToolCalls: []modeltest.ToolCall{{ID: "p" + n, Name: "apply_patch", Arguments: `{"input":"*** Begin Patch\n*** Add File: /tmp/walk-outside-` + n + `.txt\n+hello\n*** End Patch"}`}}}
			case k%5 == 0:
				return modeltest.Reply{ToolCalls: []modeltest.ToolCall{{ID: "e" + n, Name: "exec_command", Arguments: `{"cmd":"echo escalated ` + n + `","sandbox_permissions":"require_escalated","justification":"needs the network"}`}}}
			}
			return modeltest.Reply{ToolCalls: []modeltest.ToolCall{{ID: "c" + n, Name: "exec_command", Arguments: `{"cmd":"sleep ` + fmt.Sprint(2+k%4) + `; printf '  indented\n\tline ` + n + `\n'"}`}}}
		}
		if done {
			return modeltest.Reply{Text: "Spawned twenty workers; they report when done.", ChunkDelay: 20 * time.Millisecond}
		}
		var calls []modeltest.ToolCall
		for i := 1; i <= 20; i++ {
			calls = append(calls, modeltest.ToolCall{ID: fmt.Sprintf("sp%d", i), Name: "spawn_agent",
				Arguments: fmt.Sprintf(`{"agent_type":"worker","message":"task %d: do part %d","thread_note":"part %d of the migration"}`, i, i, i)})
		}
		return modeltest.Reply{ToolCalls: calls}
	})
	fmt.Println(s.URL())
	c := make(chan os.Signal, 1)
	signal.Notify(c, os.Interrupt)
	<-c
	s.Close()
}

package engine

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/protocol"
)

// A freeform apply_patch (a Responses custom_tool_call: the patch as plain
// text) reaches the tool, is answered in Codex's exec format for a Codex
// model, and stays in history as the custom call it was (so it is replayed
// as custom_tool_call / custom_tool_call_output).
func TestFreeformApplyPatchCall(t *testing.T) {
	patch := "*** Begin Patch\n*** Add File: hello.txt\n+hi\n*** End Patch\n"
	root := func(_ context.Context, tn turn) (model.Response, error) {
		if tn.rounds == 0 {
			return model.Response{ToolCalls: []model.ToolCallRequest{{CallID: "ff-1", Name: "apply_patch", Arguments: patch, Custom: true}}}, nil
		}
		return text("done"), nil
	}
	env := newEnv(t, script{"root": root}, func(o *Options) { o.Model = "gpt-5.1-codex" })
	env.send("add hello")
	env.rootFinal(1)
	out := env.toolOutput("ff-1")
	if out.IsError || !regexp.MustCompile(`^Exit code: 0\nWall time: [0-9.]+ seconds\nOutput:\nSuccess\. Updated the following files:\nA hello.txt\n$`).MatchString(out.Output) {
		t.Fatalf("output %q", out.Output)
	}
	if b, err := os.ReadFile(filepath.Join(env.cwd, "hello.txt")); err != nil || string(b) != "hi\n" {
		t.Fatalf("file: %q %v", b, err)
	}
	var call, result *protocol.Item
	for _, it := range env.e.History(env.root) {
		switch {
		case it.Type == protocol.ItemFunctionCall && it.CallID == "ff-1":
			call = &it
		case it.Type == protocol.ItemFunctionCallOutput && it.CallID == "ff-1":
			result = &it
		}
	}
	if call == nil || !call.Custom || call.Arguments != patch || result == nil || !result.Custom {
		t.Fatalf("history: call %+v output %+v", call, result)
	}
}

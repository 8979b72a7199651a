package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// `grove debug tools --model M` prints the tools array as the wire sends
// it: Codex's set with freeform apply_patch for a GPT-5.x model on
// Responses, grove's set as functions elsewhere; web search only on
// Responses; a bad tool_family is an error naming the key.
func TestDebugToolsPerModel(t *testing.T) {
	noProviderEnv(t)
	names := func(out string) (fn, custom, hosted []string) {
		var tools []map[string]any
		if err := json.Unmarshal([]byte(out), &tools); err != nil {
			t.Fatalf("not a JSON array: %v\n%s", err, out)
		}
		for _, tl := range tools {
			switch tl["type"] {
			case "custom":
				custom = append(custom, tl["name"].(string))
			case "function":
				fn = append(fn, tl["name"].(string))
			default:
				hosted = append(hosted, tl["type"].(string))
			}
		}
		return
	}
	out, errOut, err := runCLI(t, t.TempDir(), "", "debug", "tools", "--model", "gpt-5.1-codex", "--wire", "responses", "-c", `web_search="live"`)
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	fn, custom, hosted := names(out)
	if strings.Join(custom, ",") != "apply_patch" || strings.Join(hosted, ",") != "web_search" || !strings.Contains(strings.Join(fn, ","), "exec_command,write_stdin,update_plan,view_image,request_user_input,spawn_agent") || strings.Contains(out, `"read_file"`) {
		t.Fatalf("codex model: functions %v custom %v hosted %v", fn, custom, hosted)
	}
	if !strings.Contains(out, `"syntax": "lark"`) || !strings.Contains(errOut, "tool family codex") {
		t.Fatalf("no grammar or family line:\n%s\n%s", errOut, out)
	}
	out, _, err = runCLI(t, t.TempDir(), "", "debug", "tools", "--model", "qwen3-coder", "--wire", "chat", "-c", `web_search="live"`)
	if err != nil {
		t.Fatal(err)
	}
	var chat []struct {
		Type     string `json:"type"`
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	}
	if err := json.Unmarshal([]byte(out), &chat); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range chat {
		got = append(got, c.Type+":"+c.Function.Name)
	}
	if j := strings.Join(got, ","); !strings.HasPrefix(j, "function:exec_command,function:write_stdin,function:apply_patch,function:read_file") || strings.Contains(j, "web_search") || strings.Contains(j, "view_image") {
		t.Fatalf("chat tools for another model: %s", j)
	}
	if _, _, err := runCLI(t, t.TempDir(), "", "debug", "tools", "-c", `tool_family="gemini"`); err == nil || !strings.Contains(err.Error(), `tool_family "gemini"`) {
		t.Fatalf("bad tool_family: %v", err)
	}
}

package tools

import (
	"slices"
	"testing"

	"github.com/grovecli/grove/core/model"
)

func offeredNames(specs []model.ToolSpec) []string {
	var out []string
	for _, s := range specs {
		out = append(out, s.Name)
	}
	return out
}

// Which tools each model is offered, after Codex's model_selects_expected_tools
// (codex-rs/core/tests/suite/model_tools.rs): GPT-5.x and codex models get
// Codex's tools with apply_patch freeform; gpt-oss gets apply_patch as a
// function; other models keep grove's set.
func TestToolSetPerModelFamily(t *testing.T) {
	r := coreRegistry(t)
	all := r.Specs(nil)
	codex := []string{"exec_command", "write_stdin", "apply_patch", "update_plan", "view_image", "request_user_input"}
	grove := []string{"exec_command", "write_stdin", "apply_patch", "read_file", "list_dir", "grep_files", "update_plan"}
	for _, tc := range []struct {
		model    string
		cfg      ToolConfig
		family   Family
		want     []string
		freeform bool
	}{
		{"gpt-5.1-codex", ToolConfig{}, FamilyCodex, codex, true},
		{"gpt-5.2", ToolConfig{}, FamilyCodex, codex, true},
		{"gpt-5", ToolConfig{}, FamilyCodex, codex, true},
		{"codex-mini-latest", ToolConfig{}, FamilyCodex, codex, true},
		{"openai/GPT-5.1-Codex-Max", ToolConfig{}, FamilyCodex, codex, true},
		{"gpt-oss-120b", ToolConfig{}, FamilyCodex, codex, false},
		{"qwen3-coder", ToolConfig{}, FamilyGrove, grove, false},
		{"gpt-4.1", ToolConfig{}, FamilyGrove, grove, false},
		{"qwen3-coder", ToolConfig{Family: FamilyCodex}, FamilyCodex, codex, true},
		{"gpt-5.1-codex", ToolConfig{Family: FamilyGrove}, FamilyGrove, grove, false},
		{"gpt-5.1-codex", ToolConfig{WebSearch: WebSearchLive}, FamilyCodex, append(slices.Clone(codex), "web_search"), true},
	} {
		set := ToolSetFor(tc.model, tc.cfg)
		specs := set.Offer(all)
		if set.Family != tc.family || !slices.Equal(offeredNames(specs), tc.want) {
			t.Errorf("%s %+v: family %s tools %v; want %s %v", tc.model, tc.cfg, set.Family, offeredNames(specs), tc.family, tc.want)
			continue
		}
		for _, s := range specs {
			if s.Name == "apply_patch" && (s.Freeform != nil) != tc.freeform {
				t.Errorf("%s: apply_patch freeform = %v, want %v", tc.model, s.Freeform != nil, tc.freeform)
			}
		}
	}
}

func TestWebSearchModes(t *testing.T) {
	for _, tc := range []struct {
		in   any
		want string
		ok   bool
	}{
		{"live", WebSearchLive, true}, {"cached", WebSearchCached, true}, {"disabled", WebSearchDisabled, true},
		{true, WebSearchLive, true}, {false, WebSearchDisabled, true}, {nil, "", true}, {"always", "", false}, {3, "", false},
	} {
		got, err := ParseWebSearch(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("ParseWebSearch(%v) = %q, %v", tc.in, got, err)
		}
	}
	spec, ok := webSearchSpec(WebSearchCached, WebSearchOptions{})
	if !ok || string(spec.Hosted) != `{"type":"web_search","external_web_access":false}` {
		t.Fatalf("cached = %s", spec.Hosted)
	}
	spec, _ = webSearchSpec(WebSearchLive, WebSearchOptions{AllowedDomains: []string{"go.dev"}, ContextSize: "low", Location: map[string]string{"country": "DE"}})
	if want := `{"type":"web_search","external_web_access":true,"filters":{"allowed_domains":["go.dev"]},"search_context_size":"low","user_location":{"country":"DE","type":"approximate"}}`; string(spec.Hosted) != want {
		t.Fatalf("live with options = %s", spec.Hosted)
	}
	if _, ok := webSearchSpec(WebSearchDisabled, WebSearchOptions{}); ok {
		t.Fatal("disabled offers web search")
	}
	if _, err := ParseFamily("claude-ish"); err == nil {
		t.Fatal("unknown tool_family accepted")
	}
}

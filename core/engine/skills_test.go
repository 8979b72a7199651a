package engine

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/core/skills"
	"github.com/grovecli/grove/protocol"
)

// Skills are listed in the instructions without their bodies; $name
// loads one body into the conversation; the model reads another itself
// with read_file, a call the transcript shows.
func TestSkillsListedMentionedAndRead(t *testing.T) {
	dir := t.TempDir()
	write := func(name, desc, body string) string {
		p := filepath.Join(dir, name, "SKILL.md")
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte("---\nname: "+name+"\ndescription: "+desc+"\n---\n"+body+"\n"), 0o644)
		return p
	}
	releasePath := write("release", "Cut a release of this project.", "RELEASE-BODY: tag, changelog, publish.")
	lintPath := write("lint", "Run the linters before a commit.", "LINT-BODY: run golangci-lint.")
	cat := skills.Catalog{Skills: []skills.Skill{
		{Name: "release", Description: "Cut a release of this project.", Path: releasePath},
		{Name: "lint", Description: "Run the linters before a commit.", Path: lintPath},
	}}
	var instructions string
	var sawBody bool
	env := newEnv(t, script{
		"root": func(_ context.Context, tn turn) (model.Response, error) {
			instructions = tn.req.Instructions
			for _, it := range tn.req.Items {
				if strings.Contains(it.Content, "<name>release</name>") && strings.Contains(it.Content, "RELEASE-BODY") {
					sawBody = true
				}
			}
			if tn.rounds == 0 {
				return calls(toolCall("r1", "read_file", map[string]any{"path": lintPath})), nil
			}
			return text("ok"), nil
		},
	}, func(o *Options) { o.Skills = cat })
	env.send("please do $release now")
	if st := env.rootFinal(1); st.Kind != protocol.StatusCompleted {
		t.Fatalf("final %+v", st)
	}
	if !strings.Contains(instructions, "- release: Cut a release of this project. (file: "+releasePath+")") ||
		strings.Contains(instructions, "RELEASE-BODY") || strings.Contains(instructions, "LINT-BODY") {
		t.Errorf("instructions list skills wrong or carry bodies:\n%s", instructions)
	}
	if !sawBody {
		t.Error("$release did not load its body")
	}
	if out := env.toolOutput("r1").Output; !strings.Contains(out, "LINT-BODY") {
		t.Errorf("read_file of the skill: %q", out)
	}
}

// A template denying skill:* (or every tool) lists none.
func TestTemplateDeniesSkills(t *testing.T) {
	th := &Thread{e: &Engine{opts: Options{Skills: skills.Catalog{Skills: []skills.Skill{{Name: "a", Description: "d", Path: "/a"}}}}}}
	th.deny = []string{"skill:*"}
	if s := th.skillsSection(); s != "" {
		t.Errorf("denied skills listed:\n%s", s)
	}
	th.deny, th.allow = nil, []string{"read_file", "skill:a"}
	if s := th.skillsSection(); !strings.Contains(s, "- a: d") {
		t.Errorf("allowed skill not listed:\n%s", s)
	}
}

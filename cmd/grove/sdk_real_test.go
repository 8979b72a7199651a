package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/grovecli/grove/core/model/modeltest"
	"github.com/grovecli/grove/protocol"
)

// codexSDKDir is where the official @openai/codex-sdk is installed for this
// test: GROVE_CODEX_SDK_DIR, default <user cache>/grove-test-codex-sdk.
// go test never installs it (no network, no npm install); without it the
// test skips saying how to install it.
func codexSDKDir(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("official Codex SDK: node is not installed")
	}
	dir := os.Getenv("GROVE_CODEX_SDK_DIR")
	if dir == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			t.Skipf("official Codex SDK: no cache dir: %v", err)
		}
		dir = filepath.Join(cache, "grove-test-codex-sdk")
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@openai", "codex-sdk", "package.json")); errors.Is(err, os.ErrNotExist) {
		t.Skipf("official Codex SDK: not installed in %s (go test never runs npm install; to run this test: npm install --prefix %s @openai/codex-sdk)", dir, dir)
	}
	return dir
}

// sdkScript drives grove through the official SDK exactly as a user's
// program would: a run, a second run on the same thread (exec resume), a
// resumed thread by id, an output schema, and a streamed run.
const sdkScript = `
import { Codex } from '@openai/codex-sdk';
const [port, home, grove, cwd] = process.argv.slice(2);
const codex = new Codex({ codexPathOverride: grove, baseUrl: 'http://127.0.0.1:' + port + '/v1', apiKey: 'sk-test-not-secret',
  env: { PATH: process.env.PATH, HOME: process.env.HOME, GROVE_HOME: home, TMPDIR: process.env.TMPDIR } });
const opts = { workingDirectory: cwd, skipGitRepoCheck: true };
const thread = codex.startThread(opts);
const t1 = await thread.run('first question');
console.log('run1=' + t1.finalResponse + ' usage=' + t1.usage.input_tokens + ' id=' + thread.id);
const t2 = await thread.run('second question');
console.log('run2=' + t2.finalResponse);
const t3 = await codex.resumeThread(thread.id, opts).run('third question');
console.log('run3=' + t3.finalResponse);
const schema = { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'], additionalProperties: false };
const t4 = await codex.startThread(opts).run('structured', { outputSchema: schema });
console.log('run4=' + t4.finalResponse);
const { events } = await codex.startThread(opts).runStreamed('streamed');
const types = [];
for await (const ev of events) types.push(ev.type);
console.log('events=' + types.join(','));
`

// TestOfficialCodexSDKDrivesGrove runs the official @openai/codex-sdk
// against the grove binary (codexPathOverride), unchanged.
func TestOfficialCodexSDKDrivesGrove(t *testing.T) {
	needBinary(t)
	dir := codexSDKDir(t)
	srv := modeltest.NewServer(t)
	srv.Handle(func(r modeltest.CapturedRequest) modeltest.Reply {
		if r.OutputFormat() != nil {
			return modeltest.Reply{Text: `{"answer":"forty-two"}`}
		}
		c := parseChat(r)
		return modeltest.Reply{Text: "answer to " + c.lastUser + " after " + strings.Join(c.texts, "|"), Usage: protocol.TokenUsage{InputTokens: 10, OutputTokens: 3, TotalTokens: 13}}
	})
	tmp := t.TempDir()
	script := filepath.Join(dir, "grove-sdk-test.mjs") // beside node_modules, so the import resolves
	if err := os.WriteFile(script, []byte(sdkScript), 0o600); err != nil {
		t.Skipf("official Codex SDK: cannot write the script in %s: %v", dir, err)
	}
	defer os.Remove(script)
	port := srv.URL()[len("http://127.0.0.1:"):strings.LastIndex(srv.URL(), "/v1")]
	cmd := exec.Command("node", script, port, filepath.Join(tmp, "home"), groveBin, tmp)
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the SDK failed on grove: %v\n%s", err, out)
	}
	got := string(out)
	for _, want := range []string{
		"run1=answer to first question after first question usage=10",
		"run2=answer to second question after first question|second question",
		"run3=answer to third question after first question|second question|third question",
		`run4={"answer":"forty-two"}`,
		"events=thread.started,turn.started,item.completed,turn.completed",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("SDK output lacks %q:\n%s", want, got)
		}
	}
}

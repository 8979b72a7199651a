package mcp

// CompatRow is one line of docs/codex-compat-servers.md's MCP table: what
// grove does with a feature of MCP results and client capabilities.
type CompatRow struct {
	Name, Status, Note, Test string
}

// Compat lists MCP result shapes and client features; Test names the test
// (in core/mcp, or core/model for the wire) that covers each.
var Compat = []CompatRow{
	{"text content", "works", "as the tool output (head and tail kept past 32 KiB)", "TestStdioServerToolsAndCalls"},
	{"structuredContent", "works", "once: the server's text when it sent text, the JSON otherwise (a 21,620-byte file read was 45,135 bytes and cut; now 21,620)", "TestStructuredContentSentOnce"},
	{"image content", "works", "an image input: Responses function_call_output input_image part; Chat a user message with image_url after the tool messages; over 5 MiB a one-line placeholder", "TestToolImagesOnTheChatWire"},
	{"audio content", "differs", "a one-line placeholder (no audio input on grove's wires)", "TestStructuredContentSentOnce"},
	{"resource links / embedded resources", "differs", "a line with the URI (and the text of a text resource)", "TestStdioServerToolsAndCalls"},
	{"roots", "works", "the session's cwd and sandbox_workspace_write.writable_roots, as file:// URIs", "TestRootsAndSampling"},
	{"sampling/createMessage", "works", "only during one of the server's tool calls: the calling thread's user approves each request (messages shown), then the session's model answers with text", "TestRootsAndSampling"},
	{"elicitation", "not yet", "", ""},
	{"resources/list, prompts/list", "not yet", "grove offers tools only", ""},
}

package tools

import "github.com/grovecli/grove/core/model"

// applyPatchGrammar is Codex's Lark grammar for the freeform apply_patch
// tool (codex-rs/core/src/tools/handlers/tool_apply_patch.lark): the
// Responses API constrains the model's patch to it, so the text arrives as
// a custom_tool_call input that grove's patch parser reads as is. It is a
// wire contract, kept byte for byte.
const applyPatchGrammar = `start: begin_patch hunk+ end_patch
begin_patch: "*** Begin Patch" LF
end_patch: "*** End Patch" LF?

hunk: add_hunk | delete_hunk | update_hunk
add_hunk: "*** Add File: " filename LF add_line+
delete_hunk: "*** Delete File: " filename LF
update_hunk: "*** Update File: " filename LF change_move? change?

filename: /(.+)/
add_line: "+" /(.*)/ LF -> line

change_move: "*** Move to: " filename LF
change: (change_context | change_line)+ eof_line?
change_context: ("@@" | "@@ " /(.+)/) LF
change_line: ("+" | "-" | " ") /(.*)/ LF
eof_line: "*** End of File" LF

%import common.LF
`

// applyPatchFreeformDesc is the custom tool's description (Codex's): the
// grammar says the rest.
const applyPatchFreeformDesc = "Use the `apply_patch` tool to edit files. This is a FREEFORM tool, so do not wrap the patch in JSON."

// applyPatchFreeform is apply_patch's freeform form.
func applyPatchFreeform() *model.FreeformFormat {
	return &model.FreeformFormat{Type: "grammar", Syntax: "lark", Definition: applyPatchGrammar, Description: applyPatchFreeformDesc}
}

// Package hooks runs the deterministic scripts Codex and Claude Code users
// keep next to their code: `hooks.json`, inline `[hooks]` in config.toml and
// the `hooks` table of `.claude/settings.json`. One event (PreToolUse,
// Stop, ...) selects matcher groups; each matching command handler gets the
// event as JSON on stdin and answers with an exit code and, optionally, a
// JSON object on stdout. The file formats, stdin fields, exit codes, JSON
// decisions, default timeout and trust keys follow Codex's codex-rs/hooks
// so that the same files work unchanged.
//
// Hooks are code from wherever they were found, so they run only when
// trusted: admin-managed ones (/etc/codex) always, project ones only in a
// trusted project, and every other one after a review recorded by hash
// under `[hooks.state]` (a changed hook is asked about again).
package hooks

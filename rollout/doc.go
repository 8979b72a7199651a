// Package rollout records each thread as an append-only JSONL file and keeps
// the session index that the resume picker reads:
//
//	$GROVE_HOME/sessions/YYYY/MM/DD/rollout-<ts>-<id>.jsonl
//	$GROVE_HOME/session_index.jsonl
//
// Every line is {"timestamp","type","payload"}. A torn last line (the
// process was killed mid-write) is skipped with a warning, so a session is
// always resumable.
package rollout

package protocol

// OpRevertPatch undoes hunks of an apply_patch call the thread made (the
// diff review screen): Revert names the call, its patch and the hunks.
// The engine writes the reverse hunks through the thread's backend, inside
// the sandbox's writable roots, all or nothing; a hunk the file no longer
// matches is an error and nothing is written.
const OpRevertPatch OpType = "revert_patch"

// EventPatchReverted says hunks of an apply_patch call were reverted on
// disk (Revert). It is recorded in the thread's rollout, so a resumed
// session shows them reverted.
const EventPatchReverted EventType = "patch_reverted"

// HunkRef names one hunk of a patch: File is the index of its file
// section, Hunk the index of the hunk in that section (0 for an added
// file, which reverts whole).
type HunkRef struct {
	File int `json:"file"`
	Hunk int `json:"hunk"`
}

// PatchRevert is what to revert (OpRevertPatch) or what was reverted
// (patch_reverted).
type PatchRevert struct {
	// CallID is the apply_patch call whose changes are undone.
	CallID string `json:"call_id"`
	// Patch is that call's patch text, as it was applied.
	Patch string    `json:"patch"`
	Hunks []HunkRef `json:"hunks"`
	// Files are the paths written (set by the engine on the event).
	Files []string `json:"files,omitempty"`
	// State is empty on the event of a revert that was written. In the
	// rollout only (never published), RevertStarted is the intent recorded
	// before the files change and RevertFailed closes an intent whose
	// write did not happen: an intent with neither after it is a revert
	// grove died in, and a resume tells the model (engine/revert_resume.go).
	State string `json:"state,omitempty"`
}

// PatchRevert states in the rollout.
const (
	RevertStarted = "started"
	RevertFailed  = "failed"
	// RevertUnknown closes an intent a resume found unfinished and told
	// the model about (once).
	RevertUnknown = "unknown"
)

// PatchRevertedMsg is the message of patch_reverted.
type PatchRevertedMsg struct{ Revert PatchRevert }

func (PatchRevertedMsg) Kind() EventType { return EventPatchReverted }
func (PatchRevertedMsg) isEventMsg()     {}

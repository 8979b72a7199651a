package tools

// RegisterCore registers the core tools in the order the model sees them:
// exec_command, apply_patch, read_file, list_dir, grep_files, update_plan,
// then Codex's view_image and request_user_input (offered to the Codex
// family only, see toolset.go).
func RegisterCore(r *Registry) error {
	for _, t := range []Tool{
		NewExecCommand(ExecOptions{}),
		NewApplyPatch(),
		NewReadFile(),
		NewListDir(),
		NewGrepFiles(),
		NewUpdatePlan(),
		NewViewImage(),
		NewRequestUserInput(),
	} {
		if err := r.Register(t); err != nil {
			return err
		}
	}
	return nil
}

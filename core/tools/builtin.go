package tools

// RegisterCore registers the core tools in the order the model sees them:
// exec_command, write_stdin, apply_patch, read_file, list_dir, grep_files,
// update_plan, then Codex's view_image and request_user_input (which family
// is offered which is toolset.go's choice).
func RegisterCore(r *Registry) error {
	for _, t := range []Tool{
		NewExecCommand(ExecOptions{}),
		NewWriteStdin(),
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

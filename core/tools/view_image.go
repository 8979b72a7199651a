package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"

	"github.com/grovecli/grove/core/execenv"
	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/core/tools/safefile"
)

// view_image (Codex's tool, codex-rs/core/src/tools/handlers/view_image.rs)
// reads an image file and gives it to the model as an image input. grove
// reads the file itself, outside the sandbox, so the read goes through
// safefile.ReadImage: no /proc, /sys or /dev, no symlink planted in the
// workspace leading out of it, pinned from check to read, size-capped, and
// the type is decided by content (a text file named .png is refused).

// viewImageMaxBytes caps the file read (Codex's image limit is 20 MB too).
const viewImageMaxBytes = 20 << 20

type viewImage struct{}

// NewViewImage returns the view_image tool.
func NewViewImage() Tool { return viewImage{} }

const viewImageSchema = `{
  "type": "object",
  "properties": {
    "path": {"type": "string", "description": "Local filesystem path to an image file"},
    "detail": {"type": "string", "description": "Optional detail override. The only supported value is ` + "`original`" + `; omit this field for default resized behavior. Use ` + "`original`" + ` to preserve the file's original resolution instead of resizing to fit."}
  },
  "required": ["path"],
  "additionalProperties": false
}`

func (viewImage) Spec() model.ToolSpec {
	return model.ToolSpec{Name: "view_image", Description: "View a local image from the filesystem (only use if given a full filepath by the user, and the image isn't already attached to the thread context within <image ...> tags).", Parameters: json.RawMessage(viewImageSchema)}
}

func (viewImage) Run(ctx context.Context, env *Env, raw json.RawMessage) Result {
	var a struct {
		Path   string `json:"path"`
		Detail string `json:"detail"`
	}
	if err := decode("view_image", raw, &a); err != nil {
		return Errorf("%v", err)
	}
	original := false
	switch a.Detail {
	case "", "auto", "low", "high": // habits from other image APIs: the default
	case "original":
		original = true
	default:
		return Errorf("view_image.detail only supports `original`; omit `detail` for default resized behavior, got `%s`", a.Detail)
	}
	if a.Path == "" {
		return Errorf(`invalid arguments for view_image: field "path" is required (the image file to view)`)
	}
	abs := resolvePath(env.Cwd, a.Path)
	mime, data, err := readImageFor(ctx, env, abs)
	if err != nil {
		return Errorf("unable to read image at `%s`: %v", abs, err)
	}
	img, err := fitImageForPrompt(mime, data, original)
	if err != nil {
		return Errorf("unable to process image at `%s`: %v", abs, err)
	}
	size := fmt.Sprintf("%d×%d", img.width, img.height)
	if img.width != img.origW || img.height != img.origH {
		size = fmt.Sprintf("%d×%d, downscaled from %d×%d", img.width, img.height, img.origW, img.origH)
	}
	return Result{
		Output:  fmt.Sprintf("Image %s (%s, %s) is attached.", abs, img.mime, size),
		Images:  []string{img.dataURL()},
		Summary: "viewed " + a.Path,
	}
}

// readImageFor reads an image file for the calling thread: on this
// machine through safefile's pinned read for the model; on an SSH host
// through the host's file system (exec-server reads it there, inside its
// sandbox), capped and checked by content the same way.
func readImageFor(ctx context.Context, env *Env, abs string) (string, []byte, error) {
	if _, local := env.Backend().(execenv.Local); local {
		return safefile.ReadImage(abs, safefile.ReadPolicy{Roots: modelRoots(env), MaxBytes: viewImageMaxBytes})
	}
	fsys := env.Backend()
	st, err := fsys.Stat(ctx, abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", nil, fmt.Errorf("no such file")
	case err != nil:
		return "", nil, err
	case !st.Mode.IsRegular():
		return "", nil, fmt.Errorf("not a regular file")
	case st.Size > viewImageMaxBytes:
		return "", nil, fmt.Errorf("it is %d bytes, over the %d-byte limit", st.Size, viewImageMaxBytes)
	}
	f, err := fsys.Open(ctx, abs)
	if err != nil {
		return "", nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, viewImageMaxBytes+1))
	if err != nil {
		return "", nil, err
	}
	if len(data) > viewImageMaxBytes {
		return "", nil, fmt.Errorf("it grew over the %d-byte limit while being read", viewImageMaxBytes)
	}
	typ := safefile.ImageType(data)
	if typ == "" {
		return "", nil, fmt.Errorf("not a PNG, JPEG, GIF or WebP image (by its content)")
	}
	return typ, data, nil
}

// modelRoots are the directories the thread's model can write: a symlink
// found in one of them may have been planted, so it must not lead out.
func modelRoots(env *Env) []string {
	var roots []string
	for _, r := range append([]string{env.Cwd}, env.Sandbox.WritableRoots...) {
		if r == "" {
			continue
		}
		if real, err := filepath.EvalSymlinks(r); err == nil {
			r = real
		}
		roots = append(roots, filepath.Clean(r))
	}
	return roots
}

package tools

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// pngBytes encodes a w×h PNG.
func pngBytes(t testing.TB, w, h int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	img.Set(0, 0, color.RGBA{R: 255, A: 255})
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// bombPNG is a small PNG whose header claims w×h pixels (a decompression
// bomb): IHDR is rewritten with a valid CRC.
func bombPNG(t testing.TB, w, h uint32) []byte {
	b := pngBytes(t, 1, 1)
	// signature(8) + length(4) + "IHDR"(4) + data(13) + crc(4)
	binary.BigEndian.PutUint32(b[16:], w)
	binary.BigEndian.PutUint32(b[20:], h)
	binary.BigEndian.PutUint32(b[29:], crc32.ChecksumIEEE(b[12:29]))
	return b
}

func decodeDataURL(t *testing.T, u string) image.Config {
	t.Helper()
	_, b64, ok := strings.Cut(u, ";base64,")
	if !ok {
		t.Fatalf("not a data URL: %.40s", u)
	}
	raw, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		t.Fatal(err)
	}
	cfg, _, err := image.DecodeConfig(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

func TestViewImageAttachesImage(t *testing.T) {
	r := coreRegistry(t)
	env := testEnv(t)
	write(t, env.Cwd, "shot.png", string(pngBytes(t, 40, 30)))
	res := run(t, r, env, "view_image", map[string]any{"path": "shot.png"})
	if res.IsError || len(res.Images) != 1 || !strings.HasPrefix(res.Images[0], "data:image/png;base64,") {
		t.Fatalf("view_image = %+v", res)
	}
	if cfg := decodeDataURL(t, res.Images[0]); cfg.Width != 40 || cfg.Height != 30 {
		t.Fatalf("image sent as %dx%d, want 40x30", cfg.Width, cfg.Height)
	}
}

func TestViewImageDownscalesLargeImage(t *testing.T) {
	r := coreRegistry(t)
	env := testEnv(t)
	write(t, env.Cwd, "wide.png", string(pngBytes(t, 4096, 1024)))
	res := run(t, r, env, "view_image", map[string]any{"path": "wide.png"})
	if res.IsError || len(res.Images) != 1 {
		t.Fatalf("view_image = %+v", res)
	}
	if cfg := decodeDataURL(t, res.Images[0]); cfg.Width != 2048 || cfg.Height != 512 {
		t.Fatalf("sent as %dx%d, want 2048x512 (Codex's 2048x768 box)", cfg.Width, cfg.Height)
	}
	if !strings.Contains(res.Output, "downscaled from 4096×1024") {
		t.Fatalf("output does not say it was downscaled: %q", res.Output)
	}
	orig := run(t, r, env, "view_image", map[string]any{"path": "wide.png", "detail": "original"})
	if cfg := decodeDataURL(t, orig.Images[0]); cfg.Width != 4096 {
		t.Fatalf("detail original sent %dx%d", cfg.Width, cfg.Height)
	}
}

// Attacks a hostile model can try; every one is refused with no image and
// nothing of the file in the output.
func TestViewImageAttacks(t *testing.T) {
	r := coreRegistry(t)
	env := testEnv(t)
	outside := t.TempDir()
	write(t, outside, "secret.png", string(pngBytes(t, 2, 2)))
	mustSymlink(t, "/proc/self/environ", filepath.Join(env.Cwd, "env.png"))
	mustSymlink(t, filepath.Join(outside, "secret.png"), filepath.Join(env.Cwd, "escape.png"))
	write(t, env.Cwd, "notes.png", "GROVE_SECRET=hunter2 this is text named .png\n")
	write(t, env.Cwd, "bomb.png", string(bombPNG(t, 100_000, 100_000)))
	huge := append([]byte("\x89PNG\r\n\x1a\n"), make([]byte, viewImageMaxBytes+1)...)
	if err := os.WriteFile(filepath.Join(env.Cwd, "huge.png"), huge, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, path, want string }{
		{"symlink to /proc/self/environ", "env.png", "in /proc"},
		{"proc directly", "/proc/self/environ", "in /proc"},
		{"symlink out of the workspace", "escape.png", "leads out of the workspace"},
		{"text named .png", "notes.png", "not a PNG, JPEG, GIF or WebP image"},
		{"decompression bomb", "bomb.png", "over the 50000000-pixel limit"},
		{"file over the size cap", "huge.png", "over the 20971520-byte limit"},
		{"missing file", "nope.png", "no such file"},
		{"a directory", ".", "not a regular file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := run(t, r, env, "view_image", map[string]any{"path": tc.path})
			if !res.IsError || len(res.Images) != 0 || !strings.Contains(res.Output, tc.want) {
				t.Fatalf("view_image(%s) = error %v images %d %q; want an error containing %q", tc.path, res.IsError, len(res.Images), res.Output, tc.want)
			}
			if strings.Contains(res.Output, "hunter2") || strings.Contains(res.Output, "PATH=") {
				t.Fatalf("output leaks file content: %q", res.Output)
			}
		})
	}
	bad := run(t, r, env, "view_image", map[string]any{"path": "env.png", "detail": "ultra"})
	if !bad.IsError || !strings.Contains(bad.Output, "view_image.detail only supports `original`") {
		t.Fatalf("bad detail = %+v", bad)
	}
}

func mustSymlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

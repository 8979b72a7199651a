package tools

import (
	"strconv"
	"testing"
)

// BenchmarkToolSetOffer: the per-request cost of shaping the offered tools
// (every model request of every agent pays it).
func BenchmarkToolSetOffer(b *testing.B) {
	r := coreRegistry(b)
	specs := r.Specs(nil)
	cfg := ToolConfig{WebSearch: WebSearchLive}
	b.ReportAllocs()
	for b.Loop() {
		_ = ToolSetFor("gpt-5.1-codex", cfg).Offer(specs)
	}
}

// BenchmarkViewImage: a 4096×1024 PNG read, checked and downscaled to
// Codex's 2048×768 box, and a 640×480 one sent as is.
func BenchmarkViewImage(b *testing.B) {
	for _, sz := range [][2]int{{640, 480}, {4096, 1024}} {
		b.Run(formatSize(sz), func(b *testing.B) {
			r := coreRegistry(b)
			env := &Env{Cwd: b.TempDir()}
			write(b, env.Cwd, "i.png", string(pngBytes(b, sz[0], sz[1])))
			b.ReportAllocs()
			for b.Loop() {
				if res := run(b, r, env, "view_image", map[string]any{"path": "i.png"}); res.IsError {
					b.Fatal(res.Output)
				}
			}
		})
	}
}

func formatSize(sz [2]int) string { return strconv.Itoa(sz[0]) + "x" + strconv.Itoa(sz[1]) }

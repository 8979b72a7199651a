package tools

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"image"
	"image/gif"
	"image/jpeg"
	"image/png"

	"golang.org/x/image/draw"
	"golang.org/x/image/webp"
)

// Images given to the model are fitted into Codex's box (codex-rs/utils/
// image: 2048×768): larger ones are downscaled, keeping their aspect, so
// a screenshot costs what Codex would send. Decoding is bounded: the
// header's dimensions are checked before any pixel is decoded, so a small
// file claiming a huge canvas (a decompression bomb) is refused.
const (
	promptImageMaxWidth  = 2048
	promptImageMaxHeight = 768
	// promptImageMaxPixels bounds what is decoded at all (≈ 200 MB RGBA).
	promptImageMaxPixels = 50_000_000
)

// promptImage is an image ready for the model.
type promptImage struct {
	mime          string
	data          []byte
	width, height int // as sent
	origW, origH  int // as read
}

func (p promptImage) dataURL() string {
	return "data:" + p.mime + ";base64," + base64.StdEncoding.EncodeToString(p.data)
}

// fitImageForPrompt decodes data (of type mime, by content) and returns it
// as sent to the model: as is when it fits the box and the model reads
// its format, else downscaled and re-encoded (PNG; JPEG stays JPEG). With
// original set the resolution is kept (view_image's detail "original").
func fitImageForPrompt(mime string, data []byte, original bool) (promptImage, error) {
	decodeConfig, decode := decoderFor(mime)
	if decode == nil {
		return promptImage{}, fmt.Errorf("unsupported image type %s", mime)
	}
	cfg, err := decodeConfig(bytes.NewReader(data))
	if err != nil {
		return promptImage{}, fmt.Errorf("not a readable %s image: %v", mime, err)
	}
	if cfg.Width <= 0 || cfg.Height <= 0 || int64(cfg.Width)*int64(cfg.Height) > promptImageMaxPixels {
		return promptImage{}, fmt.Errorf("image of %d×%d pixels is over the %d-pixel limit", cfg.Width, cfg.Height, promptImageMaxPixels)
	}
	out := promptImage{mime: mime, data: data, width: cfg.Width, height: cfg.Height, origW: cfg.Width, origH: cfg.Height}
	fits := cfg.Width <= promptImageMaxWidth && cfg.Height <= promptImageMaxHeight
	if (fits || original) && mime != "image/gif" {
		return out, nil // the provider reads PNG, JPEG and WebP as they are
	}
	src, err := decode(bytes.NewReader(data))
	if err != nil {
		return promptImage{}, fmt.Errorf("not a readable %s image: %v", mime, err)
	}
	w, h := cfg.Width, cfg.Height
	if !fits && !original {
		w, h = fitBox(w, h, promptImageMaxWidth, promptImageMaxHeight)
	}
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.BiLinear.Scale(dst, dst.Bounds(), src, src.Bounds(), draw.Src, nil) // a triangle filter, as Codex's FilterType::Triangle
	var buf bytes.Buffer
	if mime == "image/jpeg" {
		err = jpeg.Encode(&buf, dst, &jpeg.Options{Quality: 85})
	} else {
		out.mime = "image/png"
		err = png.Encode(&buf, dst)
	}
	if err != nil {
		return promptImage{}, fmt.Errorf("re-encode image: %v", err)
	}
	out.data, out.width, out.height = buf.Bytes(), w, h
	return out, nil
}

// fitBox scales w×h down to fit maxW×maxH, keeping the aspect ratio.
func fitBox(w, h, maxW, maxH int) (int, int) {
	if w <= maxW && h <= maxH {
		return w, h
	}
	// Scale by the tighter side; never below one pixel.
	if int64(w)*int64(maxH) > int64(h)*int64(maxW) {
		return maxW, max(1, int(int64(h)*int64(maxW)/int64(w)))
	}
	return max(1, int(int64(w)*int64(maxH)/int64(h))), maxH
}

type (
	configDecoder func(r *bytes.Reader) (image.Config, error)
	imageDecoder  func(r *bytes.Reader) (image.Image, error)
)

func decoderFor(mime string) (configDecoder, imageDecoder) {
	switch mime {
	case "image/png":
		return func(r *bytes.Reader) (image.Config, error) { return png.DecodeConfig(r) },
			func(r *bytes.Reader) (image.Image, error) { return png.Decode(r) }
	case "image/jpeg":
		return func(r *bytes.Reader) (image.Config, error) { return jpeg.DecodeConfig(r) },
			func(r *bytes.Reader) (image.Image, error) { return jpeg.Decode(r) }
	case "image/gif":
		return func(r *bytes.Reader) (image.Config, error) { return gif.DecodeConfig(r) },
			func(r *bytes.Reader) (image.Image, error) { return gif.Decode(r) }
	case "image/webp":
		return func(r *bytes.Reader) (image.Config, error) { return webp.DecodeConfig(r) },
			func(r *bytes.Reader) (image.Image, error) { return webp.Decode(r) }
	}
	return nil, nil
}

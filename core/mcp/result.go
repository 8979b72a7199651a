package mcp

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// DefaultMaxOutput is the output limit of exec_command (32 KiB, head and
// tail kept), applied to MCP results alike.
const DefaultMaxOutput = 32 << 10

// resultOutput renders a tools/call result as the text the model sees:
// text blocks as they are, images and audio as a line naming them (grove's
// tool outputs are text), resources by URI with their text, structured
// content as JSON only when there is no text.
func resultOutput(res *sdk.CallToolResult, max int) string {
	out, _ := resultParts(res, max)
	return out
}

// maxImageBytes bounds one image given to the model (providers refuse
// larger ones; the rollout keeps what the model saw).
const maxImageBytes = 5 << 20

// resultParts is resultOutput with the images the model gets as image
// inputs (data: URLs); each still has its line in the text, so text-only
// views show it. Audio has no model input on grove's wires: a line.
func resultParts(res *sdk.CallToolResult, max int) (string, []string) {
	var parts, images []string
	for _, c := range res.Content {
		switch c := c.(type) {
		case *sdk.TextContent:
			parts = append(parts, c.Text)
		case *sdk.ImageContent:
			if !strings.HasPrefix(c.MIMEType, "image/") || len(c.Data) == 0 || len(c.Data) > maxImageBytes {
				parts = append(parts, fmt.Sprintf("[image %s, %d bytes (not shown to the model: not an image under 5 MiB)]", c.MIMEType, len(c.Data)))
				continue
			}
			images = append(images, "data:"+c.MIMEType+";base64,"+base64.StdEncoding.EncodeToString(c.Data))
			parts = append(parts, fmt.Sprintf("[image %s, %d bytes, attached]", c.MIMEType, len(c.Data)))
		case *sdk.AudioContent:
			parts = append(parts, fmt.Sprintf("[audio %s, %d bytes (not shown to the model: no audio input)]", c.MIMEType, len(c.Data)))
		case *sdk.ResourceLink:
			parts = append(parts, fmt.Sprintf("[resource %s %s]", c.URI, c.Name))
		case *sdk.EmbeddedResource:
			if r := c.Resource; r != nil {
				if r.Text != "" {
					parts = append(parts, fmt.Sprintf("[resource %s]\n%s", r.URI, r.Text))
				} else {
					parts = append(parts, fmt.Sprintf("[resource %s, %s, %d bytes]", r.URI, r.MIMEType, len(r.Blob)))
				}
			}
		default:
			if b, err := json.Marshal(c); err == nil {
				parts = append(parts, string(b))
			}
		}
	}
	// structuredContent once: servers mirror it in their text blocks (the
	// spec asks them to), so the text is what the model gets when there is
	// any; the JSON only when the server sent no text.
	if res.StructuredContent != nil && !hasText(res.Content) {
		if b, err := json.Marshal(res.StructuredContent); err == nil {
			parts = append(parts, string(b))
		}
	}
	out := strings.Join(parts, "\n")
	if out == "" && res.IsError {
		out = "the tool reported an error without a message"
	}
	return truncate(out, max), images
}

// hasText reports whether a result carries a text block.
func hasText(content []sdk.Content) bool {
	for _, c := range content {
		if t, ok := c.(*sdk.TextContent); ok && t.Text != "" {
			return true
		}
	}
	return false
}

// truncate keeps the head and the tail of s within max bytes, with the
// marker exec_command uses, never splitting a UTF-8 sequence.
func truncate(s string, max int) string {
	if max <= 0 || len(s) <= max {
		return s
	}
	half := max / 2
	head := s[:half]
	for len(head) > 0 && !validEnd(head) {
		head = head[:len(head)-1]
	}
	tail := s[len(s)-(max-half):]
	for len(tail) > 0 && (tail[0]&0xC0) == 0x80 {
		tail = tail[1:]
	}
	return fmt.Sprintf("%s\n[… %d bytes truncated …]\n%s", head, len(s)-len(head)-len(tail), tail)
}

// validEnd reports whether s does not end inside a multi-byte sequence.
func validEnd(s string) bool {
	for i := len(s) - 1; i >= 0 && i >= len(s)-4; i-- {
		c := s[i]
		if c < 0x80 {
			return true
		}
		if c >= 0xC0 { // a lead byte: complete if the sequence fits
			n := 2
			switch {
			case c >= 0xF0:
				n = 4
			case c >= 0xE0:
				n = 3
			}
			return len(s)-i == n
		}
	}
	return true
}

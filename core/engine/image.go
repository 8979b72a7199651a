package engine

import (
	"encoding/base64"
	"fmt"
	"mime"
	"os"
	"path/filepath"
	"strings"
)

const maxImageBytes = 20 << 20

// localImageURL reads an image file into a data: URL for the model.
func localImageURL(path string) (string, error) {
	if path == "" {
		return "", fmt.Errorf("local_image needs path")
	}
	st, err := os.Stat(path)
	if err != nil {
		return "", fmt.Errorf("local_image %s: %w", path, err)
	}
	if st.Size() > maxImageBytes {
		return "", fmt.Errorf("local_image %s: %d bytes is over the %d MiB limit", path, st.Size(), maxImageBytes>>20)
	}
	typ := mime.TypeByExtension(strings.ToLower(filepath.Ext(path)))
	if !strings.HasPrefix(typ, "image/") {
		return "", fmt.Errorf("local_image %s: not an image file (png, jpeg, gif, webp)", path)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("local_image %s: %w", path, err)
	}
	return "data:" + typ + ";base64," + base64.StdEncoding.EncodeToString(data), nil
}

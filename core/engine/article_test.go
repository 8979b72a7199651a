package engine

import "testing"

func TestWithArticle(t *testing.T) {
	cases := map[string]string{
		"explorer":        "an explorer",
		"default":         "a default",
		"Implementer":     "an Implementer",
		"worker/uploader": "a worker/uploader",
		"":                "",
		"9lives":          "a 9lives",
	}
	for in, want := range cases {
		if got := withArticle(in); got != want {
			t.Errorf("withArticle(%q) = %q, want %q", in, got, want)
		}
	}
}

package model

import (
	"encoding/json"
	"strings"
	"testing"
)

// temperature and top_p reach both wire formats when set, are absent when
// not, and are left out once the provider refused them.
func TestSamplingParameters(t *testing.T) {
	temp, topP := 0.1, 0.9
	set := Request{Model: "m", Temperature: &temp, TopP: &topP}
	for _, tc := range []struct {
		name string
		req  Request
		omit map[string]bool
		want []string
		not  []string
	}{
		{"set", set, nil, []string{`"temperature":0.1`, `"top_p":0.9`}, nil},
		{"unset", Request{Model: "m"}, nil, nil, []string{`"temperature"`, `"top_p"`}},
		{"refused", set, map[string]bool{"temperature": true}, []string{`"top_p":0.9`}, []string{`"temperature"`}},
	} {
		chat, err := chatBody(tc.req, tc.omit)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := responsesBody(tc.req, tc.omit)
		if err != nil {
			t.Fatal(err)
		}
		for _, body := range []any{chat, resp} {
			b, _ := json.Marshal(body)
			for _, w := range tc.want {
				if !strings.Contains(string(b), w) {
					t.Errorf("%s: %s lacks %s", tc.name, b, w)
				}
			}
			for _, n := range tc.not {
				if strings.Contains(string(b), n) {
					t.Errorf("%s: %s has %s", tc.name, b, n)
				}
			}
		}
	}
}

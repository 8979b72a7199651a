package templates

import "testing"

// host: is read in strict YAML and in sloppy frontmatter alike (a known
// key is never joined to the value before it).
func TestHostKey(t *testing.T) {
	for name, src := range map[string]string{
		"strict": "---\ndescription: builds\nhost: box\n---\nbody\n",
		"sloppy": "---\ndescription: Use when: building\nhost: box\n---\nbody\n",
	} {
		tpl, err := Parse("/agents/builder.md", []byte(src))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if tpl.Host != "box" {
			t.Errorf("%s: Host = %q (description %q, warnings %v)", name, tpl.Host, tpl.Description, tpl.Warnings)
		}
	}
}

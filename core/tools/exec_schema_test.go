package tools

import (
	"bytes"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/grovecli/grove/core/tools/schema"
)

// TestExecSchemaIsTheArgsStruct: exec_command's schema is generated from
// execArgs, so every property the model sees is a field Run decodes and
// the reverse.
func TestExecSchemaIsTheArgsStruct(t *testing.T) {
	params := NewExecCommand(ExecOptions{}).Spec().Parameters
	if !bytes.Equal(params, schema.MustObject(execArgs{})) {
		t.Fatalf("exec_command schema is not generated from execArgs:\n%s", params)
	}
	var doc struct {
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
	}
	if err := json.Unmarshal(params, &doc); err != nil {
		t.Fatal(err)
	}
	var fields, props []string
	for _, f := range reflect.VisibleFields(reflect.TypeFor[execArgs]()) {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		fields = append(fields, name)
	}
	for p := range doc.Properties {
		props = append(props, p)
	}
	slices.Sort(fields)
	slices.Sort(props)
	if !slices.Equal(fields, props) || !slices.Equal(doc.Required, []string{"cmd"}) {
		t.Errorf("properties %v required %v; fields %v", props, doc.Required, fields)
	}
}

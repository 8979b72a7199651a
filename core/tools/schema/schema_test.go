package schema

import (
	"encoding/json"
	"reflect"
	"testing"
)

type params struct {
	Name   string         `json:"name" required:"true" jsonschema:"Who."`
	Mode   string         `json:"mode,omitempty" enum:"fast,slow"`
	Count  *int           `json:"count"`
	Ratio  float64        `json:"ratio"`
	Flag   bool           `json:"flag"`
	Tags   []string       `json:"tags"`
	Extra  map[string]any `json:"extra"`
	Raw    json.RawMessage
	Hidden string `json:"-"`
	lower  string
}

func TestObjectFromStruct(t *testing.T) {
	_ = params{}.lower
	b, err := Object(params{})
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"type": "object", "additionalProperties": false, "required": []any{"name"},
		"properties": map[string]any{
			"name":  map[string]any{"type": "string", "description": "Who."},
			"mode":  map[string]any{"type": "string", "enum": []any{"fast", "slow"}},
			"count": map[string]any{"type": "integer"},
			"ratio": map[string]any{"type": "number"},
			"flag":  map[string]any{"type": "boolean"},
			"tags":  map[string]any{"type": "array", "items": map[string]any{"type": "string"}},
			"extra": map[string]any{"type": "object"},
			"Raw":   map[string]any{"type": "object"},
		},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("schema =\n%s", b)
	}
}

func TestObjectRejectsWhatItCannotDescribe(t *testing.T) {
	if _, err := Object(3); err == nil {
		t.Error("a non-struct was accepted")
	}
	if _, err := Object(struct {
		C chan int `json:"c"`
	}{}); err == nil {
		t.Error("a channel field was accepted")
	}
	if _, err := Object(struct {
		N int `json:"n" enum:"1,2"`
	}{}); err == nil {
		t.Error("an enum on an integer was accepted")
	}
}

type inner struct {
	Kind string `json:"kind" required:"true" enum:"a,b"`
}

type base struct {
	ID string `json:"id" jsonschema:"The id."`
}

type outer struct {
	base
	Items []inner `json:"items" minItems:"1"`
}

func TestObjectEmbeddedNestedAndMinItems(t *testing.T) {
	b, err := Object(outer{})
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"type": "object", "additionalProperties": false,
		"properties": map[string]any{
			"id": map[string]any{"type": "string", "description": "The id."},
			"items": map[string]any{"type": "array", "minItems": float64(1), "items": map[string]any{
				"type": "object", "additionalProperties": false, "required": []any{"kind"},
				"properties": map[string]any{"kind": map[string]any{"type": "string", "enum": []any{"a", "b"}}},
			}},
		},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("schema =\n%s", b)
	}
	if _, err := Object(struct {
		N int `json:"n" minItems:"1"`
	}{}); err == nil {
		t.Error("minItems on an integer was accepted")
	}
}

func TestObjectBoundsAndRawSchema(t *testing.T) {
	b, err := Object(struct {
		Depth   int             `json:"depth" minimum:"1" maximum:"10"`
		Include json.RawMessage `json:"include" jsonschema:"Globs." schema:"{\"anyOf\":[{\"type\":\"string\"},{\"type\":\"array\"}]}"`
	}{})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"additionalProperties":false,"properties":{"depth":{"maximum":10,"minimum":1,"type":"integer"},"include":{"anyOf":[{"type":"string"},{"type":"array"}],"description":"Globs."}},"type":"object"}`
	var gotDoc, wantDoc any
	if err := json.Unmarshal(b, &gotDoc); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(want), &wantDoc); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(gotDoc, wantDoc) {
		t.Errorf("schema =\n%s\nwant\n%s", b, want)
	}
	if _, err := Object(struct {
		S string `json:"s" minimum:"1"`
	}{}); err == nil {
		t.Error("minimum on a string was accepted")
	}
}

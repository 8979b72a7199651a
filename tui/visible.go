package tui

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"

	"github.com/grovecli/grove/core/visible"
	"github.com/grovecli/grove/protocol"
)

// Everything the TUI draws that a model, a command or a repository
// controls arrives as a protocol value (an event, a thread, a history
// item, a pending approval). Each is copied with its strings made visible
// (core/visible) where it enters the TUI — the event batch reader and the
// snapshot taken when a session is attached — so no renderer, however it
// slices or styles a string, can put a raw escape on the terminal: an
// approval's `ESC[8m` shows as `\x1b[8m`, a note's OSC 52 as text.

// visibleEvent is ev with every string made visible.
func visibleEvent(ev protocol.Event) protocol.Event {
	out := visibleValue(reflect.ValueOf(ev), "").Interface().(protocol.Event)
	if ev.Type == protocol.EventExecOutputDelta {
		out.Delta = visible.Output(ev.Delta) // command output: colours dropped, the rest shown
	}
	return out
}

// visibleCopy is v (any protocol value) with every string made visible.
func visibleCopy[T any](v T) T {
	return visibleValue(reflect.ValueOf(&v).Elem(), "").Interface().(T)
}

// visibleValue copies v deeply, making each string visible; field names
// the way the string is shown: output loses its colour codes, tool
// arguments (JSON) have the strings inside them made visible.
func visibleValue(v reflect.Value, field string) reflect.Value {
	switch v.Kind() {
	case reflect.String:
		out := reflect.New(v.Type()).Elem()
		out.SetString(visibleString(v.String(), field))
		return out
	case reflect.Pointer:
		if v.IsNil() {
			return v
		}
		out := reflect.New(v.Type().Elem())
		out.Elem().Set(visibleValue(v.Elem(), field))
		return out
	case reflect.Interface:
		if v.IsNil() {
			return v
		}
		out := reflect.New(v.Type()).Elem()
		out.Set(visibleValue(v.Elem(), field))
		return out
	case reflect.Struct:
		return visibleStruct(v)
	case reflect.Slice:
		if v.IsNil() || v.Type().Elem().Kind() == reflect.Uint8 {
			return v // nil, or bytes (never drawn as text)
		}
		out := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
		for i := 0; i < v.Len(); i++ {
			out.Index(i).Set(visibleValue(v.Index(i), field))
		}
		return out
	case reflect.Map:
		if v.IsNil() {
			return v
		}
		out := reflect.MakeMapWithSize(v.Type(), v.Len())
		for it := v.MapRange(); it.Next(); {
			out.SetMapIndex(visibleValue(it.Key(), field), visibleValue(it.Value(), field))
		}
		return out
	}
	return v
}

// visibleStruct copies a struct (unexported fields as they are: the
// protocol keeps no text there) and makes its exported fields visible.
func visibleStruct(v reflect.Value) reflect.Value {
	out := reflect.New(v.Type()).Elem()
	out.Set(v)
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		if f := t.Field(i); f.IsExported() {
			out.Field(i).Set(visibleValue(v.Field(i), f.Name))
		}
	}
	return out
}

func visibleString(s, field string) string {
	switch field {
	case "Output":
		return visible.Output(s)
	case "Arguments":
		return visibleJSON(s)
	}
	return visible.Text(s)
}

// visibleJSON makes the strings inside a JSON document visible (the TUI
// decodes tool arguments and shows the command, the path, the prompt);
// text that is not JSON is made visible as it is.
func visibleJSON(s string) string {
	if visible.Clean(s, true) && !strings.Contains(s, `\`) {
		return s // no escape inside that could decode to a control character
	}
	var doc any
	dec := json.NewDecoder(bytes.NewReader([]byte(s)))
	dec.UseNumber()
	if dec.Decode(&doc) != nil {
		return visible.Text(s)
	}
	doc = visibleAny(doc)
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if enc.Encode(doc) != nil {
		return visible.Text(s)
	}
	return string(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
}

func visibleAny(v any) any {
	switch x := v.(type) {
	case string:
		return visible.Text(x)
	case []any:
		for i := range x {
			x[i] = visibleAny(x[i])
		}
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[visible.Text(k)] = visibleAny(e)
		}
		return out
	}
	return v
}

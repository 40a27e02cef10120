package spec

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
)

// ErrTooLarge is returned (wrapped) by Parse for input over MaxSpecBytes.
var ErrTooLarge = errors.New("spec is larger than 1 MiB")

// Parse decodes a spec from outside (an API request body, a stored row, a
// file), then normalizes and validates it. Field names must match exactly.
// Problems with fields (unknown fields, wrong JSON types, failed validation)
// come back together as a *ValidationError; input that is not a JSON object
// at all, or is over MaxSpecBytes (ErrTooLarge), gives a plain error.
func Parse(data []byte) (Spec, error) {
	if len(data) > MaxSpecBytes {
		return Spec{}, fmt.Errorf("parse spec: %w (%d bytes)", ErrTooLarge, len(data))
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(data, &obj); err != nil {
		if se := (*json.SyntaxError)(nil); errors.As(err, &se) {
			return Spec{}, fmt.Errorf("parse spec: invalid JSON at byte %d: %w", se.Offset, err)
		}
		return Spec{}, errors.New("parse spec: must be a JSON object")
	}
	if obj == nil {
		return Spec{}, errors.New("parse spec: must be a JSON object")
	}
	// A first pass over the fields names every unknown field and wrong type
	// with its full path, which the decoder alone does not.
	var p problems
	checkFields(&p, obj, reflect.TypeFor[Spec](), "")
	if err := p.err(); err != nil {
		return Spec{}, err
	}
	var s Spec
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		// Only reachable through duplicate keys that the first pass, which
		// sees the last of them, did not check.
		return Spec{}, &ValidationError{Errors: []FieldError{decodeProblem(err)}}
	}
	s.Normalize()
	if err := s.Validate(); err != nil {
		return Spec{}, err
	}
	return s, nil
}

// checkFields checks each member of a JSON object against the struct type t,
// whose fields' JSON names must match exactly; prefix is the object's path.
func checkFields(p *problems, obj map[string]json.RawMessage, t reflect.Type, prefix string) {
	fields := jsonFields(t)
	for _, name := range slices.Sorted(maps.Keys(obj)) {
		path := name
		if prefix != "" {
			path = prefix + "." + name
		}
		ft, ok := fields[name]
		if !ok {
			p.add(path, "unknown field")
			continue
		}
		if path == scenarioField {
			checkScenarioShape(p, obj[name])
			continue
		}
		checkValue(p, obj[name], ft, path)
	}
}

// checkValue checks that raw decodes into a value of type t.
func checkValue(p *problems, raw json.RawMessage, t reflect.Type, path string) {
	if t.Kind() == reflect.Pointer && t.Elem().Kind() == reflect.Struct {
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(raw, &obj); err != nil {
			p.add(path, "must be an object")
			return
		}
		if obj != nil { // null leaves the block unset
			checkFields(p, obj, t.Elem(), path)
		}
		return
	}
	if t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Struct {
		checkObjects(p, raw, t.Elem(), path)
		return
	}
	if err := json.Unmarshal(raw, reflect.New(t).Interface()); err != nil {
		if errors.Is(err, errDuration) {
			p.add(path, "%s", err.Error())
			return
		}
		p.add(path, "%s", typeMessage(t))
	}
}

// checkObjects checks that raw is an array (or null) of objects whose
// members match the struct type t, naming each element by its index.
func checkObjects(p *problems, raw json.RawMessage, t reflect.Type, path string) {
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		p.add(path, "must be an array of objects")
		return
	}
	for i, item := range items {
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(item, &obj); err != nil || obj == nil {
			p.add(index(path, i), "must be an object")
			continue
		}
		checkFields(p, obj, t, index(path, i))
	}
}

// jsonFields maps the JSON names of t's fields to their types.
func jsonFields(t reflect.Type) map[string]reflect.Type {
	fields := make(map[string]reflect.Type, t.NumField())
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name != "" && name != "-" {
			fields[name] = f.Type
		}
	}
	return fields
}

// typeMessage says which JSON type a field of type t needs.
func typeMessage(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Bool:
		return "must be true or false"
	case reflect.String:
		return "must be a string"
	case reflect.Float64:
		return "must be a number"
	case reflect.Int, reflect.Int64:
		return "must be an integer"
	case reflect.Slice:
		if t.Elem().Kind() == reflect.String {
			return "must be an array of strings"
		}
		return "must be an array of numbers"
	case reflect.Map:
		return "must be an object with string values"
	default:
		return "has the wrong type"
	}
}

// decodeProblem turns a decoder error into a field error.
func decodeProblem(err error) FieldError {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return FieldError{Field: te.Field, Message: typeMessage(te.Type)}
	}
	msg := strings.TrimPrefix(err.Error(), "json: ")
	if name, ok := strings.CutPrefix(msg, "unknown field "); ok {
		return FieldError{Field: strings.Trim(name, `"`), Message: "unknown field"}
	}
	return FieldError{Message: msg}
}

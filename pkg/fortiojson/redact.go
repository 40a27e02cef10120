package fortiojson

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"strings"

	"github.com/barrage-dev/barrage/pkg/spec"
)

// maxRedactDepth is how deep Redact looks for header maps.
const maxRedactDepth = 8

// redactedJSON is spec.RedactedValue as a JSON string.
const redactedJSON = `"` + spec.RedactedValue + `"`

// errOffsets means a value could not be located in its container's bytes.
var errOffsets = errors.New("fortiojson: cannot locate a value in the document")

// Redact returns the document with its secrets replaced by
// spec.RedactedValue, keeping every other byte and the order of keys:
// UserCredentials (when non-empty), the URL's (and Destination's) userinfo
// password and query parameters with secret names (spec.IsSecretName), and,
// in any object-valued key named "Headers" or "ExtraHeaders" (a map of name
// to string or []string) up to a few levels deep, the values of headers
// with secret names. Keys match case-insensitively, as Go's decoder does.
// When nothing needs redacting it returns data itself. The output is valid
// JSON. Errors are *FieldError.
func Redact(data []byte) ([]byte, error) {
	return RedactWith(data, spec.Redactor{})
}

// RedactWith is Redact with the secret names of r (a deployment's
// BARRAGE_SECRET_HEADERS) on top of the built-in ones.
func RedactWith(data []byte, r spec.Redactor) ([]byte, error) {
	if err := checkObject(data); err != nil {
		return nil, err
	}
	out, changed, err := editObject(data, redactor{r}.topLevel)
	if err != nil {
		return nil, err
	}
	if !changed {
		return data, nil
	}
	return out, nil
}

// checkObject rejects what is not a JSON object of a sensible size.
func checkObject(data []byte) error {
	if len(data) > MaxDocumentBytes {
		return fieldErr("", "document over "+strconv.Itoa(MaxDocumentBytes)+" bytes")
	}
	if t := bytes.TrimLeft(data, " \t\r\n"); len(t) == 0 || t[0] != '{' || !json.Valid(data) {
		return fieldErr("", "not a JSON object")
	}
	return nil
}

// redactor redacts the parts of a document with the names of its spec.Redactor.
type redactor struct{ names spec.Redactor }

// topLevel redacts one key of the result document.
func (r redactor) topLevel(key string, val []byte) ([]byte, bool, error) {
	switch {
	case strings.EqualFold(key, "UserCredentials"):
		return redactScalar(val)
	case strings.EqualFold(key, "URL"), strings.EqualFold(key, "Destination"):
		return r.urlValue(val)
	case isHeadersKey(key):
		return r.headers(val)
	}
	return r.nested(val, 1)
}

// redactScalar replaces a non-empty secret value by RedactedValue.
func redactScalar(val []byte) ([]byte, bool, error) {
	switch string(val) {
	case "null", `""`, redactedJSON:
		return nil, false, nil
	}
	return []byte(redactedJSON), true, nil
}

// urlValue redacts a string value holding a URL.
func (r redactor) urlValue(val []byte) ([]byte, bool, error) {
	var u string
	if val[0] != '"' || json.Unmarshal(val, &u) != nil {
		return nil, false, nil
	}
	red := r.names.URL(u)
	if red == u {
		return nil, false, nil
	}
	b, err := json.Marshal(red)
	return b, err == nil, err
}

// nested looks for header maps inside an object or array.
func (r redactor) nested(val []byte, depth int) ([]byte, bool, error) {
	if depth > maxRedactDepth {
		return nil, false, nil
	}
	switch val[0] {
	case '{':
		return editObject(val, func(key string, v []byte) ([]byte, bool, error) {
			if isHeadersKey(key) {
				return r.headers(v)
			}
			return r.nested(v, depth+1)
		})
	case '[':
		return editArray(val, func(v []byte) ([]byte, bool, error) {
			return r.nested(v, depth+1)
		})
	}
	return nil, false, nil
}

// isHeadersKey reports whether a key names a header map.
func isHeadersKey(key string) bool {
	return strings.EqualFold(key, "Headers") || strings.EqualFold(key, "ExtraHeaders")
}

// headers redacts the secret values of a header map (name to string
// or []string) or of a list of "Name: value" strings.
func (r redactor) headers(val []byte) ([]byte, bool, error) {
	switch val[0] {
	case '{':
		return editObject(val, func(name string, v []byte) ([]byte, bool, error) {
			if !r.names.IsSecretName(name) {
				return nil, false, nil
			}
			if v[0] == '[' {
				return editArray(v, redactScalar)
			}
			return redactScalar(v)
		})
	case '[':
		return editArray(val, r.headerLine)
	}
	return nil, false, nil
}

// headerLine redacts a "Name: value" string whose name is secret.
func (r redactor) headerLine(val []byte) ([]byte, bool, error) {
	var line string
	if val[0] != '"' || json.Unmarshal(val, &line) != nil {
		return nil, false, nil
	}
	name, value, ok := strings.Cut(line, ":")
	if !ok || !r.names.IsSecretName(name) || strings.TrimSpace(value) == spec.RedactedValue {
		return nil, false, nil
	}
	b, err := json.Marshal(name + ": " + spec.RedactedValue)
	return b, err == nil, err
}

// splice is a replacement of data[start:end].
type splice struct {
	start, end int
	with       []byte
}

// apply returns data with the splices (in order) applied.
func apply(data []byte, splices []splice) []byte {
	out := make([]byte, 0, len(data))
	last := 0
	for _, s := range splices {
		out = append(out, data[last:s.start]...)
		out = append(out, s.with...)
		last = s.end
	}
	return append(out, data[last:]...)
}

// nextValue decodes the next value and returns its bounds in data.
func nextValue(dec *json.Decoder, data []byte) (json.RawMessage, int, error) {
	var raw json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		return nil, 0, err
	}
	end := int(dec.InputOffset())
	start := end - len(raw)
	if start < 0 || end > len(data) || !bytes.Equal(data[start:end], raw) {
		return nil, 0, errOffsets
	}
	return raw, start, nil
}

// editObject calls edit on each member of the JSON object obj and returns
// obj with the values edit replaced, everything else byte for byte.
func editObject(obj []byte, edit func(key string, val []byte) ([]byte, bool, error)) ([]byte, bool, error) {
	dec := json.NewDecoder(bytes.NewReader(obj))
	if _, err := dec.Token(); err != nil {
		return nil, false, err
	}
	var splices []splice
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, false, err
		}
		key, _ := tok.(string)
		raw, start, err := nextValue(dec, obj)
		if err != nil {
			return nil, false, err
		}
		with, changed, err := edit(key, raw)
		if err != nil {
			return nil, false, err
		}
		if changed {
			splices = append(splices, splice{start: start, end: start + len(raw), with: with})
		}
	}
	if len(splices) == 0 {
		return obj, false, nil
	}
	return apply(obj, splices), true, nil
}

// editArray is editObject for the elements of a JSON array.
func editArray(arr []byte, edit func(val []byte) ([]byte, bool, error)) ([]byte, bool, error) {
	dec := json.NewDecoder(bytes.NewReader(arr))
	if _, err := dec.Token(); err != nil {
		return nil, false, err
	}
	var splices []splice
	for dec.More() {
		raw, start, err := nextValue(dec, arr)
		if err != nil {
			return nil, false, err
		}
		with, changed, err := edit(raw)
		if err != nil {
			return nil, false, err
		}
		if changed {
			splices = append(splices, splice{start: start, end: start + len(raw), with: with})
		}
	}
	if len(splices) == 0 {
		return arr, false, nil
	}
	return apply(arr, splices), true, nil
}

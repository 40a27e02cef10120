package scenario

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
)

// checkShape walks a decoded document beside the type it decodes into and
// reports, with its field path, every key that names no field (matched
// exactly: encoding/json alone would take "Name" for "name") and every
// value of the wrong JSON type.
func checkShape(c *compiler, path string, v any, t reflect.Type) {
	if t == reflect.TypeFor[json.RawMessage]() {
		return
	}
	switch t.Kind() {
	case reflect.Pointer:
		if v != nil {
			checkShape(c, path, v, t.Elem())
		}
	case reflect.Struct:
		obj, ok := v.(map[string]any)
		if !ok {
			c.fail(path, "want an object, not %s", jsonKind(v))
			return
		}
		for _, key := range sortedAnyKeys(obj) {
			f, ok := fieldByTag(t, key)
			if !ok {
				c.fail(join(path, key), "unknown field")
				continue
			}
			checkShape(c, join(path, key), obj[key], f.Type)
		}
	case reflect.Slice:
		arr, ok := v.([]any)
		if !ok {
			c.fail(path, "want an array, not %s", jsonKind(v))
			return
		}
		for i, e := range arr {
			checkShape(c, fmt.Sprintf("%s[%d]", path, i), e, t.Elem())
		}
	case reflect.Map:
		obj, ok := v.(map[string]any)
		if !ok {
			c.fail(path, "want an object, not %s", jsonKind(v))
			return
		}
		for _, key := range sortedAnyKeys(obj) {
			checkShape(c, join(path, key), obj[key], t.Elem())
		}
	case reflect.String:
		if _, ok := v.(string); !ok {
			c.fail(path, "want a string, not %s", jsonKind(v))
		}
	case reflect.Int:
		if f, ok := v.(float64); !ok || f != float64(int(f)) {
			c.fail(path, "want an integer, not %s", jsonKind(v))
		}
	case reflect.Bool:
		if _, ok := v.(bool); !ok {
			c.fail(path, "want true or false, not %s", jsonKind(v))
		}
	}
}

func fieldByTag(t reflect.Type, key string) (reflect.StructField, bool) {
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == key {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

func jsonKind(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case string:
		return fmt.Sprintf("the string %q", v)
	case float64:
		return fmt.Sprintf("the number %v", v)
	case bool:
		return fmt.Sprintf("%v", v)
	case []any:
		return "an array"
	default:
		return "an object"
	}
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func sortedAnyKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

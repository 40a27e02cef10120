package spec

import (
	"fmt"
	"regexp"
)

// WithBodyPattern returns r that also redacts request bodies (a spec's
// payload and each request entry's body): every match of the regular
// expression pattern (RE2 syntax) is replaced by RedactedValue, or, when
// the pattern has capture groups, only the text of each group that took
// part in the match, so `"password"\s*:\s*"([^"]*)"` keeps the JSON's
// shape. An empty pattern redacts no body; one that does not compile is an
// error.
func (r Redactor) WithBodyPattern(pattern string) (Redactor, error) {
	if pattern == "" {
		r.body = nil
		return r, nil
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return r, fmt.Errorf("body pattern: %w", err)
	}
	if re.MatchString("") {
		return r, fmt.Errorf("body pattern %q matches the empty string, so it would redact between every character", pattern)
	}
	r.body = re
	return r, nil
}

// BodyPattern returns the body pattern of r; "" for none.
func (r Redactor) BodyPattern() string {
	if r.body == nil {
		return ""
	}
	return r.body.String()
}

// redactBody returns body with r's body pattern redacted.
func (r Redactor) redactBody(body string) string {
	if r.body == nil || body == "" {
		return body
	}
	re := r.body
	if re.NumSubexp() == 0 {
		return re.ReplaceAllLiteralString(body, RedactedValue)
	}
	var out []byte
	last := 0
	for _, m := range re.FindAllStringSubmatchIndex(body, -1) {
		for g := 1; g <= re.NumSubexp(); g++ {
			start, end := m[2*g], m[2*g+1]
			if start < 0 || start < last { // the group took no part, or lies inside an earlier one
				continue
			}
			out = append(out, body[last:start]...)
			out = append(out, RedactedValue...)
			last = end
		}
	}
	return string(append(out, body[last:]...))
}

package spec

import "strings"

// ParseFortioLabels reads Fortio's -labels value: "k=v,k2=v2" as pairs, and
// anything else (Fortio's free-form description) whole as the "title" label.
// An empty value has no labels.
func ParseFortioLabels(v string) map[string]string {
	v = strings.TrimSpace(v)
	if v == "" {
		return nil
	}
	labels := map[string]string{}
	for item := range strings.SplitSeq(v, ",") {
		k, val, ok := strings.Cut(strings.TrimSpace(item), "=")
		if !ok || k == "" || strings.ContainsAny(k, " \t") {
			return map[string]string{"title": v}
		}
		labels[k] = val
	}
	return labels
}

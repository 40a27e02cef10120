package reqtemplate

import "strings"

// SplitURL cuts a raw absolute URL into its scheme and authority
// ("http://host:port") and its request target (path and query, "/" when
// empty, fragment dropped), without decoding or escaping anything, so
// placeholders in the path stay as written.
func SplitURL(raw string) (authority, target string) {
	rest := raw
	prefix := ""
	if i := strings.Index(raw, "://"); i >= 0 {
		prefix, rest = raw[:i+3], raw[i+3:]
	}
	end := strings.IndexAny(rest, "/?#")
	if end < 0 {
		return raw, "/"
	}
	authority, target = prefix+rest[:end], rest[end:]
	if i := strings.IndexByte(target, '#'); i >= 0 {
		target = target[:i]
	}
	switch {
	case target == "":
		target = "/"
	case target[0] == '?':
		target = "/" + target
	}
	return authority, target
}

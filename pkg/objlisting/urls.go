package objlisting

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// isListingParam reports whether a query parameter belongs to the listing
// request rather than to access (such as a signature or user project).
func isListingParam(name string) bool {
	switch name {
	case "prefix", "marker", "list-type", "continuation-token", "start-after",
		"max-keys", "delimiter", "encoding-type", "fetch-owner":
		return true
	}
	return false
}

// parsePageURL parses the URL a listing page was fetched from.
func parsePageURL(pageURL string) (*url.URL, error) {
	u, err := url.Parse(pageURL)
	if err != nil {
		return nil, fmt.Errorf("listing URL: %w", err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("listing URL %q is not an absolute http(s) URL", pageURL)
	}
	return u, nil
}

// NextURL returns the URL of the next page of a listing fetched from
// pageURL, or "" when it is the last: v1 sets marker= (NextMarker, else
// the last key), v2 sets continuation-token= and list-type=2, keeping the
// other parameters. A truncated page that gives no way on, or whose next
// page would be the same URL, is an error.
func (l *Listing) NextURL(pageURL string) (string, error) {
	if !l.IsTruncated {
		return "", nil
	}
	u, err := parsePageURL(pageURL)
	if err != nil {
		return "", err
	}
	q := u.Query()
	if l.V2 || q.Get("list-type") == "2" {
		if l.NextContinuationToken == "" {
			return "", errors.New("truncated v2 listing without NextContinuationToken")
		}
		if q.Get("continuation-token") == l.NextContinuationToken {
			return "", errors.New("listing does not advance: same continuation token")
		}
		q.Set("list-type", "2")
		q.Set("continuation-token", l.NextContinuationToken)
	} else {
		marker := l.NextMarker
		if marker == "" && len(l.Objects) > 0 {
			marker = l.Objects[len(l.Objects)-1].Key
		}
		if marker == "" {
			return "", errors.New("truncated listing without NextMarker or keys")
		}
		if q.Get("marker") == marker {
			return "", errors.New("listing does not advance: same marker")
		}
		q.Set("marker", marker)
	}
	u.RawQuery = q.Encode()
	u.Fragment = ""
	return u.String(), nil
}

// ObjectURL returns where to GET object key of a listing fetched from
// pageURL: the bucket URL (pageURL without its query, and without a
// trailing "/") + "/" + key with each path segment escaped, carrying over
// the query parameters that are not listing parameters (prefix, marker,
// list-type, continuation-token, start-after, max-keys, delimiter,
// encoding-type, fetch-owner) as they were written.
func ObjectURL(pageURL, key string) (string, error) {
	if key == "" {
		return "", errors.New("empty object key")
	}
	u, err := parsePageURL(pageURL)
	if err != nil {
		return "", err
	}
	segments := strings.Split(key, "/")
	for i, s := range segments {
		segments[i] = escapeSegment(s)
	}
	base := strings.TrimSuffix(u.EscapedPath(), "/")
	unescapedBase := strings.TrimSuffix(u.Path, "/")
	o := *u
	o.Path = unescapedBase + "/" + key
	o.RawPath = base + "/" + strings.Join(segments, "/")
	o.RawQuery = keptQuery(u.RawQuery)
	o.ForceQuery = false
	o.Fragment = ""
	o.RawFragment = ""
	return o.String(), nil
}

// escapeSegment escapes one path segment of a key; "." and ".." are
// escaped too so that nothing on the way resolves them.
func escapeSegment(s string) string {
	switch s {
	case ".":
		return "%2E"
	case "..":
		return "%2E%2E"
	}
	return url.PathEscape(s)
}

// keptQuery returns the parameters of a raw query that are not listing
// parameters, in their order and encoding.
func keptQuery(rawQuery string) string {
	var kept []string
	for _, p := range strings.Split(rawQuery, "&") {
		if p == "" {
			continue
		}
		name, _, _ := strings.Cut(p, "=")
		if n, err := url.QueryUnescape(name); err == nil {
			name = n
		}
		if !isListingParam(name) {
			kept = append(kept, p)
		}
	}
	return strings.Join(kept, "&")
}

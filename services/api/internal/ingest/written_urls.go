package ingest

import (
	"fmt"
	"strings"

	"github.com/barrage-dev/barrage/pkg/spec"
)

// writtenURLsFromProto checks a snapshot's written URLs: more than a run
// may record is malformed; a URL that no URL list could hold (longer than
// spec.MaxURLLength, or with a control character) is left out, and so
// counts as dropped.
func writtenURLsFromProto(list []string) ([]string, error) {
	if len(list) == 0 {
		return nil, nil
	}
	if len(list) > spec.MaxWrittenURLs {
		return nil, fmt.Errorf("%d written urls: at most %d", len(list), spec.MaxWrittenURLs)
	}
	out := make([]string, 0, len(list))
	for _, u := range list {
		if u == "" || len(u) > spec.MaxURLLength || strings.ContainsFunc(u, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
			continue
		}
		out = append(out, u)
	}
	return out, nil
}

// redactURLs redacts the secret query parameters (and any password) of
// the snapshot's written URLs with red, as stored specs are: a URL stored
// for download never carries a secret.
func (s *snapshot) redactURLs(red spec.Redactor) {
	for i, u := range s.rec.WrittenURLs {
		s.rec.WrittenURLs[i] = red.URL(u)
	}
}

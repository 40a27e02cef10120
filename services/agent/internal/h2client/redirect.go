package h2client

import (
	"fmt"
	"net/http"
)

// MaxRedirects is how many redirects a request follows (curl's and
// net/http's default).
const MaxRedirects = 10

// CheckRedirect returns the redirect policy of an http.Client: with follow,
// up to MaxRedirects redirects, and the next one an error; without, none:
// the 3xx answer is the response. `barrage-agent curl -L` and runs with
// follow_redirects share it.
func CheckRedirect(follow bool) func(*http.Request, []*http.Request) error {
	if !follow {
		return func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	}
	return func(_ *http.Request, via []*http.Request) error {
		if len(via) >= MaxRedirects {
			return fmt.Errorf("stopped after %d redirects", MaxRedirects)
		}
		return nil
	}
}

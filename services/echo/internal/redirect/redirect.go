// Package redirect is barrage-echo's HTTP to HTTPS redirector (Fortio's
// -redirect-port): every request is answered with a permanent redirect to
// the same host (without its port) and path over https.
package redirect

import (
	"net"
	"net/http"
)

// Handler redirects every request to https: 301 for GET and HEAD, 308
// (which keeps the method and body) for the others.
func Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host := r.Host
		if h, _, err := net.SplitHostPort(host); err == nil {
			host = h
			if ip := net.ParseIP(h); ip != nil && ip.To4() == nil {
				host = "[" + h + "]"
			}
		}
		if host == "" {
			http.Error(w, "no Host to redirect to", http.StatusBadRequest)
			return
		}
		code := http.StatusPermanentRedirect
		if r.Method == http.MethodGet || r.Method == http.MethodHead {
			code = http.StatusMovedPermanently
		}
		w.Header().Set("Location", "https://"+host+r.URL.RequestURI())
		w.WriteHeader(code)
	})
}

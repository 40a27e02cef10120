// Package web holds the built dashboard, web/dist, for barrage-api to serve.
//
// `make web` (run by `make build`) fills dist with Vite's output; a checkout
// that has not built it embeds only dist/.gitkeep, and Built reports false.
package web

import (
	"embed"
	"io/fs"
)

//go:embed all:dist
var dist embed.FS

// Dist is the built dashboard: index.html at its root, hashed files under
// assets/.
func Dist() fs.FS {
	sub, err := fs.Sub(dist, "dist")
	if err != nil {
		panic(err) // "dist" is a valid, embedded path; Sub cannot fail on it
	}
	return sub
}

// Built reports whether Dist holds a built dashboard.
func Built() bool {
	_, err := fs.Stat(Dist(), "index.html")
	return err == nil
}

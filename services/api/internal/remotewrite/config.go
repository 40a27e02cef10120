// Package remotewrite sends the figures of running runs to each project's
// Prometheus remote-write endpoint (docs/observability.md): Service holds
// the per-project configuration (project admins set it; the credentials
// are sealed at rest and never shown again), and Exporter, each second,
// turns every running run of a project with an endpoint into samples
// (package promwrite sends them through the project's target policy).
//
// It reads the runs' stored seconds and results; it never touches the
// ingest, so a slow or absent endpoint cannot slow it.
package remotewrite

import (
	"time"

	"github.com/google/uuid"
)

// Auth kinds of a Config.
const (
	AuthNone   = "none"
	AuthBasic  = "basic"
	AuthBearer = "bearer"
)

// Config is a project's remote-write endpoint.
type Config struct {
	ProjectID uuid.UUID
	// URL is the write endpoint, e.g. https://prom.example/api/v1/write;
	// never with userinfo (basic auth goes in Username and Password).
	URL string
	// Headers are sent with every request (a tenant id, say); their
	// values are secret.
	Headers map[string]string
	// Auth is AuthNone, AuthBasic (Username, Password) or AuthBearer
	// (BearerToken).
	Auth               string
	Username, Password string
	BearerToken        string
	Enabled            bool
	UpdatedAt          time.Time
}

// Secrets is what a Config keeps sealed.
type Secrets struct {
	Headers     map[string]string `json:"headers,omitempty"`
	Password    string            `json:"password,omitempty"`
	BearerToken string            `json:"bearer_token,omitempty"`
}

// Secrets returns the sealed part of c.
func (c Config) Secrets() Secrets {
	return Secrets{Headers: c.Headers, Password: c.Password, BearerToken: c.BearerToken}
}

package wire

import "time"

// Managed echo servers (issue #12): a barrage-echo started with -nats-url
// writes its registration into EchoesBucket every EchoBeatEvery and reads
// its active profile from EchoProfilesBucket, both keyed by the echo's name.
// The values are JSON (EchoRegistration, EchoProfile).
const (
	// EchoesBucket is the KV bucket of echo registrations, keyed by echo name.
	EchoesBucket = "barrage_echoes"
	// EchoProfilesBucket is the KV bucket of each echo's active profile,
	// keyed by echo name; file storage, so a profile survives restarts of
	// the echo and of NATS.
	EchoProfilesBucket = "barrage_echo_profiles"
	// EchoBeatEvery is how often an echo rewrites its registration.
	EchoBeatEvery = 2 * time.Second
	// EchoTTL is how long a registration lives: three missed beats.
	EchoTTL = 3 * EchoBeatEvery
	// EchoPollEvery is how often an echo reads its active profile.
	EchoPollEvery = time.Second
)

// EchoRegistration is what an echo says about itself.
type EchoRegistration struct {
	// Name is the echo's name, its key in both buckets.
	Name string `json:"name"`
	// Project is the project (id or slug) the echo serves.
	Project string `json:"project"`
	// Addrs are the host:port addresses its HTTP echo answers on; a run
	// whose target URL has one of them used this echo.
	Addrs []string `json:"addrs"`
	// Version is the echo's build.
	Version string `json:"version"`
	// Profile is the name of the profile the echo applies ("" = none).
	Profile string `json:"profile,omitempty"`
	// StartedAt is when the echo started.
	StartedAt time.Time `json:"started_at"`
}

// EchoProfile is an echo's active profile.
type EchoProfile struct {
	// ProfileID is the profile's id in the API.
	ProfileID string `json:"profile_id"`
	// Name is the profile's name.
	Name string `json:"name"`
	// Content is the query string the echo applies as its default parameters.
	Content string `json:"content"`
	// ActivatedAt is when the profile was activated or last changed.
	ActivatedAt time.Time `json:"activated_at"`
}

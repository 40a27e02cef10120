package remotewrite

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"regexp"
	"strings"

	"github.com/google/uuid"

	"github.com/barrage-dev/barrage/pkg/netguard"
	"github.com/barrage-dev/barrage/services/api/internal/apperr"
	"github.com/barrage-dev/barrage/services/api/internal/auth"
	"github.com/barrage-dev/barrage/services/api/internal/policy"
	"github.com/barrage-dev/barrage/services/api/internal/projects"
)

// Store keeps the configurations.
type Store interface {
	RemoteWrite(ctx context.Context, project uuid.UUID) (Config, error)
	PutRemoteWrite(ctx context.Context, c Config, actor auth.Actor) (Config, error)
	DeleteRemoteWrite(ctx context.Context, project uuid.UUID, actor auth.Actor) error
	OrgTargetPolicy(ctx context.Context, org uuid.UUID) ([]string, error)
}

// Projects resolves a project reference for a caller.
type Projects interface {
	Resolve(ctx context.Context, p *auth.Principal, ref string, need auth.Role) (projects.Project, error)
}

// Service applies the rules of the remote-write configuration: project
// admins read and change it; its URL must be one the project's target
// policy allows.
type Service struct {
	store    Store
	projects Projects
	// deny lists the control plane's addresses; resolver resolves URL
	// hosts (nil: the system's).
	deny     func() []string
	resolver *net.Resolver
}

// NewService returns a Service; deny (may be nil) lists the addresses no
// endpoint may be, whatever the policy (the control plane's own).
func NewService(st Store, p Projects, deny func() []string, resolver *net.Resolver) *Service {
	return &Service{store: st, projects: p, deny: deny, resolver: resolver}
}

// Input is a configuration as a caller gives it: all of it (PUT).
type Input struct {
	URL         string
	Headers     map[string]string
	Username    string
	Password    string
	BearerToken string
	// Enabled defaults to true.
	Enabled *bool
}

// Limits of an Input.
const (
	maxURL         = 2048
	maxHeaders     = 20
	maxHeaderValue = 4096
	maxSecret      = 4096
)

var headerName = regexp.MustCompile(`^[A-Za-z0-9!#$%&'*+.^_|~-]{1,128}$`)

// reservedHeader reports whether the sender sets header name itself, so
// that no configuration may.
func reservedHeader(name string) bool {
	switch strings.ToLower(name) {
	case "authorization", "content-type", "content-encoding", "content-length", "host",
		"user-agent", "x-prometheus-remote-write-version", "retry-attempt":
		return true
	}
	return false
}

// Get returns project ref's configuration (project admins).
func (s *Service) Get(ctx context.Context, p *auth.Principal, ref string) (Config, error) {
	proj, err := s.projects.Resolve(ctx, p, ref, auth.Admin)
	if err != nil {
		return Config{}, err
	}
	return s.store.RemoteWrite(ctx, proj.ID)
}

// Delete removes project ref's configuration (project admins).
func (s *Service) Delete(ctx context.Context, p *auth.Principal, ref string) error {
	proj, err := s.projects.Resolve(ctx, p, ref, auth.Admin)
	if err != nil {
		return err
	}
	return s.store.DeleteRemoteWrite(ctx, proj.ID, p.Actor())
}

// Put sets project ref's configuration (project admins). Each invalid
// field is a field error (422); a URL the project's target policy refuses
// is 403 with a field error on url.
func (s *Service) Put(ctx context.Context, p *auth.Principal, ref string, in Input) (Config, error) {
	proj, err := s.projects.Resolve(ctx, p, ref, auth.Admin)
	if err != nil {
		return Config{}, err
	}
	c, host, err := check(in)
	if err != nil {
		return Config{}, err
	}
	c.ProjectID = proj.ID
	guard, err := s.Guard(ctx, proj)
	if err != nil {
		return Config{}, err
	}
	if err := guard.CheckAddr(ctx, "tcp", host); err != nil {
		return Config{}, &apperr.Error{Code: apperr.Forbidden, Detail: "the project's target policy refuses the remote-write URL",
			Fields: []apperr.FieldError{{Field: "url", Message: err.Error()}}}
	}
	return s.store.PutRemoteWrite(ctx, c, p.Actor())
}

// Guard is proj's target policy as runs and syncs apply it: listed,
// within the organisation's bound, never the control plane.
func (s *Service) Guard(ctx context.Context, proj projects.Project) (netguard.Guard, error) {
	org, err := s.store.OrgTargetPolicy(ctx, proj.OrgID)
	if err != nil {
		return netguard.Guard{}, fmt.Errorf("read the organisation's target policy: %w", err)
	}
	var deny []string
	if s.deny != nil {
		deny = s.deny()
	}
	g, err := policy.Targets{Allow: proj.TargetAllowList, Org: org, Granted: proj.TargetAllowGranted}.Guard(deny)
	if err != nil {
		return netguard.Guard{}, fmt.Errorf("the project's target policy is invalid: %w", err)
	}
	g.Resolver = s.resolver
	return g, nil
}

// check validates in and returns the Config it describes and the URL's
// host:port.
func check(in Input) (Config, string, error) {
	e := &apperr.Error{Code: apperr.Invalid, Detail: "the remote-write configuration is invalid"}
	field := func(name, msg string, args ...any) {
		e.Fields = append(e.Fields, apperr.FieldError{Field: name, Message: fmt.Sprintf(msg, args...)})
	}
	var host string
	u, err := url.Parse(in.URL)
	switch {
	case in.URL == "":
		field("url", "is required")
	case len(in.URL) > maxURL:
		field("url", "must be at most %d bytes", maxURL)
	case err != nil:
		field("url", "does not parse: %v", err)
	case u.Scheme != "http" && u.Scheme != "https":
		field("url", "must be an http or https URL")
	case u.Host == "" || u.Hostname() == "":
		field("url", "has no host")
	case u.User != nil:
		field("url", "must not hold credentials: give them in basic_auth")
	default:
		port := u.Port()
		if port == "" {
			port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
		}
		host = net.JoinHostPort(u.Hostname(), port)
	}
	if len(in.Headers) > maxHeaders {
		field("headers", "must be at most %d headers", maxHeaders)
	}
	for name, v := range in.Headers {
		switch {
		case !headerName.MatchString(name):
			field("headers."+name, "is not an HTTP header name")
		case reservedHeader(name):
			field("headers."+name, "is set by Barrage (give credentials in basic_auth or bearer_token)")
		case len(v) > maxHeaderValue || strings.ContainsAny(v, "\r\n\x00"):
			field("headers."+name, "must be at most %d bytes, without line breaks", maxHeaderValue)
		}
	}
	c := Config{URL: in.URL, Headers: in.Headers, Auth: AuthNone, Enabled: in.Enabled == nil || *in.Enabled}
	switch {
	case in.BearerToken != "" && (in.Username != "" || in.Password != ""):
		field("bearer_token", "give basic_auth or a bearer token, not both")
	case in.BearerToken != "":
		c.Auth, c.BearerToken = AuthBearer, in.BearerToken
	case in.Username != "" || in.Password != "":
		c.Auth, c.Username, c.Password = AuthBasic, in.Username, in.Password
		if in.Username == "" || strings.Contains(in.Username, ":") {
			field("basic_auth.username", "is required with basic_auth, without a colon")
		}
	}
	for name, v := range map[string]string{"basic_auth.password": in.Password, "bearer_token": in.BearerToken, "basic_auth.username": in.Username} {
		if len(v) > maxSecret || strings.ContainsAny(v, "\r\n\x00") {
			field(name, "must be at most %d bytes, without line breaks", maxSecret)
		}
	}
	if len(e.Fields) > 0 {
		return Config{}, "", e
	}
	return c, host, nil
}

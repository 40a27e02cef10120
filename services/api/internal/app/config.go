package app

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/mail"
	"net/url"
	"strings"
	"time"

	"github.com/barrage-dev/barrage/pkg/envconf"
	"github.com/barrage-dev/barrage/pkg/spec"
	"github.com/barrage-dev/barrage/services/api/internal/auth"
	"github.com/barrage-dev/barrage/services/api/internal/policy"
	"github.com/barrage-dev/barrage/services/api/internal/sealer"
	"github.com/barrage-dev/barrage/services/api/internal/sso"
)

// Config is barrage-api's configuration. Every field is a flag and an
// environment variable of the same meaning; flags win.
type Config struct {
	Listen          string        `env:"BARRAGE_LISTEN" envDefault:":8080"`
	DatabaseURL     string        `env:"DATABASE_URL" envDefault:"postgres://postgres@127.0.0.1:5432/barrage?sslmode=disable"`
	DBMaxConns      int           `env:"BARRAGE_DB_MAX_CONNS" envDefault:"20"`
	AdminToken      string        `env:"BARRAGE_ADMIN_TOKEN"`
	AdminEmail      string        `env:"BARRAGE_ADMIN_EMAIL" envDefault:"admin@barrage.local"`
	AdminPassword   string        `env:"BARRAGE_ADMIN_PASSWORD"`
	MaxBodyBytes    int64         `env:"BARRAGE_MAX_BODY_BYTES" envDefault:"1048576"`
	RateLimit       float64       `env:"BARRAGE_RATE_LIMIT" envDefault:"50"`
	RateBurst       int           `env:"BARRAGE_RATE_BURST" envDefault:"100"`
	SessionTTL      time.Duration `env:"BARRAGE_SESSION_TTL" envDefault:"12h"`
	SecureCookie    bool          `env:"BARRAGE_SECURE_COOKIE"`
	SessionRotate   time.Duration `env:"BARRAGE_SESSION_ROTATE" envDefault:"1h"`
	SessionGrace    time.Duration `env:"BARRAGE_SESSION_GRACE" envDefault:"30s"`
	LockThreshold   int           `env:"BARRAGE_LOCK_THRESHOLD" envDefault:"5"`
	LockFirst       time.Duration `env:"BARRAGE_LOCK_FIRST" envDefault:"1m"`
	LockMax         time.Duration `env:"BARRAGE_LOCK_MAX" envDefault:"15m"`
	ShutdownTimeout time.Duration `env:"BARRAGE_SHUTDOWN_TIMEOUT" envDefault:"10s"`
	LogLevel        slog.Level    `env:"BARRAGE_LOG_LEVEL" envDefault:"info"`
	NATSURL         string        `env:"NATS_URL"`
	NATSListen      string        `env:"BARRAGE_NATS_LISTEN" envDefault:"127.0.0.1:4222"`
	NATSDataDir     string        `env:"BARRAGE_NATS_DATA_DIR" envDefault:"data/nats"`
	// NATSKeys is the keys file of NATS operator mode (`barrage-api
	// nats-auth init`): with it the API connects as its own user and
	// issues agent credentials; unset, only the all-in-one embedded
	// server runs in operator mode (with keys of this process only).
	NATSKeys     string        `env:"BARRAGE_NATS_KEYS"`
	DispatchWait time.Duration `env:"BARRAGE_DISPATCH_WAIT" envDefault:"10s"`
	AllInOne     bool          `env:"BARRAGE_ALL_IN_ONE"`
	// ReadOnly serves results only: every write is 403, nobody signs in,
	// the projects with public_results are browsable without credentials,
	// and no schedule or sync starts here.
	ReadOnly      bool `env:"BARRAGE_READ_ONLY"`
	AgentCapacity int  `env:"BARRAGE_AGENT_CAPACITY" envDefault:"4"`
	// Environ is the environment the configuration was read from; the
	// all-in-one echo server reads its BARRAGE_ECHO_* settings from it.
	Environ []string `env:"-"`
	// TargetResolver resolves run targets' names when runs are submitted;
	// nil means net.DefaultResolver. Not a setting: tests point it at a
	// DNS server of their own.
	TargetResolver     *net.Resolver `env:"-"`
	MaxQPS             float64       `env:"BARRAGE_MAX_QPS" envDefault:"100000"`
	MaxConnections     int           `env:"BARRAGE_MAX_CONNECTIONS" envDefault:"1000"`
	MaxDuration        time.Duration `env:"BARRAGE_MAX_DURATION" envDefault:"1h"`
	MaxAgents          int           `env:"BARRAGE_MAX_AGENTS" envDefault:"100"`
	MaxHeaders         int           `env:"BARRAGE_MAX_HEADERS" envDefault:"100"`
	MaxPayloadBytes    int           `env:"BARRAGE_MAX_PAYLOAD_BYTES" envDefault:"1048576"`
	MaxConcurrentRuns  int           `env:"BARRAGE_MAX_CONCURRENT_RUNS" envDefault:"1000"`
	BaseURL            string        `env:"BARRAGE_BASE_URL"`
	SyncTick           time.Duration `env:"BARRAGE_SYNC_TICK" envDefault:"30s"`
	SyncRequestTimeout time.Duration `env:"BARRAGE_SYNC_REQUEST_TIMEOUT" envDefault:"30s"`
	ScheduleTick       time.Duration `env:"BARRAGE_SCHEDULE_TICK" envDefault:"15s"`
	// SearchLease is how long a replica's claim on a capacity search lasts
	// unless renewed (package searches).
	SearchLease time.Duration `env:"BARRAGE_SEARCH_LEASE" envDefault:"30s"`
	// DebugAddr serves net/http/pprof when set (pkg/pprofserve): for soak
	// runs and leak hunts, on loopback only.
	DebugAddr        string `env:"BARRAGE_DEBUG_ADDR"`
	OIDCIssuer       string `env:"BARRAGE_OIDC_ISSUER"`
	OIDCClientID     string `env:"BARRAGE_OIDC_CLIENT_ID"`
	OIDCClientSecret string `env:"BARRAGE_OIDC_CLIENT_SECRET"`
	OIDCRedirectURL  string `env:"BARRAGE_OIDC_REDIRECT_URL"`
	OIDCEmailDomain  string `env:"BARRAGE_OIDC_EMAIL_DOMAIN"`
	// Clock is the time source of sign-in lockout and session rotation;
	// nil means time.Now. Tests inject one.
	Clock func() time.Time `env:"-"`
	// SecretKey seals the secrets of queued runs in Postgres (package
	// sealer); unset = a key of this process only.
	SecretKey string `env:"BARRAGE_SECRET_KEY"`
	// SecretKeysPrevious are older keys, comma-separated, that still open
	// what they sealed until `barrage-api key rotate` re-seals it under
	// SecretKey.
	SecretKeysPrevious string `env:"BARRAGE_SECRET_KEYS_PREVIOUS"`
	// SecretHeaders are header (and query parameter) names, comma-separated
	// and matched ignoring case, whose values are secret on top of the
	// built-in ones (Authorization, Cookie, ...): redacted wherever those
	// are and sealed for the agents.
	SecretHeaders string `env:"BARRAGE_SECRET_HEADERS"`
}

// Redactor returns the redactor of the built-in secret names and
// SecretHeaders.
func (c Config) Redactor() spec.Redactor {
	return spec.NewRedactor(splitList(c.SecretHeaders))
}

// PreviousKeys returns the keys of SecretKeysPrevious.
func (c Config) PreviousKeys() []string { return splitList(c.SecretKeysPrevious) }

// splitList splits a comma-separated setting, dropping empty entries.
func splitList(s string) []string {
	var out []string
	for _, item := range strings.Split(s, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}

// AuthOptions returns the sign-in and session settings of the
// configuration.
func (c Config) AuthOptions() auth.Options {
	return auth.Options{
		SessionTTL: c.SessionTTL, RotateEvery: c.SessionRotate, RotateGrace: c.SessionGrace, Now: c.Clock,
		Lockout: auth.Lockout{Threshold: c.LockThreshold, First: c.LockFirst, Max: c.LockMax},
	}
}

// OIDC returns the single sign-on settings of the configuration.
func (c Config) OIDC() sso.Options {
	return sso.Options{
		Issuer: c.OIDCIssuer, ClientID: c.OIDCClientID, ClientSecret: c.OIDCClientSecret,
		RedirectURL: c.OIDCRedirectURL, EmailDomain: c.OIDCEmailDomain,
	}
}

// Limits returns the spec limits of the configuration.
func (c Config) Limits() policy.Limits {
	return policy.Limits{
		MaxQPS: c.MaxQPS, MaxConnections: c.MaxConnections, MaxDuration: c.MaxDuration,
		MaxAgents: c.MaxAgents, MaxHeaders: c.MaxHeaders, MaxPayloadBytes: c.MaxPayloadBytes,
		MaxConcurrentRuns: c.MaxConcurrentRuns,
	}
}

// ParseConfig reads environ and then the flags in args (without the program
// or command name). It returns flag.ErrHelp for -h.
func ParseConfig(args, environ []string, output io.Writer) (Config, error) {
	var cfg Config
	if err := envconf.Parse(&cfg, environ); err != nil {
		return Config{}, err
	}
	fs := flag.NewFlagSet("barrage-api", flag.ContinueOnError)
	fs.SetOutput(output)
	cfg.DatabaseFlags(fs)
	cfg.debugFlags(fs)
	fs.StringVar(&cfg.Listen, "listen", cfg.Listen, "HTTP listen address; :0 picks a free port (BARRAGE_LISTEN)")
	fs.StringVar(&cfg.AdminToken, "admin-token", cfg.AdminToken, "API token of the first admin, created on first start; unset = generated and printed once (BARRAGE_ADMIN_TOKEN)")
	fs.StringVar(&cfg.AdminEmail, "admin-email", cfg.AdminEmail, "email of the first admin (BARRAGE_ADMIN_EMAIL)")
	fs.StringVar(&cfg.AdminPassword, "admin-password", cfg.AdminPassword, "password of the first admin; unset = generated and printed once (BARRAGE_ADMIN_PASSWORD)")
	fs.Int64Var(&cfg.MaxBodyBytes, "max-body-bytes", cfg.MaxBodyBytes, "largest request body (BARRAGE_MAX_BODY_BYTES)")
	fs.Float64Var(&cfg.RateLimit, "rate-limit", cfg.RateLimit, "requests per second per caller; 0 = unlimited (BARRAGE_RATE_LIMIT)")
	fs.IntVar(&cfg.RateBurst, "rate-burst", cfg.RateBurst, "burst of requests per caller (BARRAGE_RATE_BURST)")
	fs.DurationVar(&cfg.SessionTTL, "session-ttl", cfg.SessionTTL, "dashboard session lifetime (BARRAGE_SESSION_TTL)")
	fs.BoolVar(&cfg.SecureCookie, "secure-cookie", cfg.SecureCookie, "mark the session cookie Secure; set behind a TLS proxy, automatic on TLS requests (BARRAGE_SECURE_COOKIE)")
	fs.DurationVar(&cfg.SessionRotate, "session-rotate", cfg.SessionRotate, "re-issue a session id this old on its next use; negative never (BARRAGE_SESSION_ROTATE)")
	fs.DurationVar(&cfg.SessionGrace, "session-grace", cfg.SessionGrace, "how long a re-issued session's old cookie keeps working (BARRAGE_SESSION_GRACE)")
	fs.StringVar(&cfg.OIDCIssuer, "oidc-issuer", cfg.OIDCIssuer, "OpenID Connect issuer URL; set to offer single sign-on (BARRAGE_OIDC_ISSUER)")
	fs.StringVar(&cfg.OIDCClientID, "oidc-client-id", cfg.OIDCClientID, "OIDC client id (BARRAGE_OIDC_CLIENT_ID)")
	fs.StringVar(&cfg.OIDCRedirectURL, "oidc-redirect-url", cfg.OIDCRedirectURL, "OIDC redirect URL: <base URL>/api/v1/auth/oidc/callback (BARRAGE_OIDC_REDIRECT_URL)")
	fs.StringVar(&cfg.OIDCEmailDomain, "oidc-email-domain", cfg.OIDCEmailDomain, "only this email domain may sign in with OIDC; unset = any (BARRAGE_OIDC_EMAIL_DOMAIN)")
	fs.IntVar(&cfg.LockThreshold, "lock-threshold", cfg.LockThreshold, "consecutive failed sign-ins that lock an email (BARRAGE_LOCK_THRESHOLD)")
	fs.DurationVar(&cfg.LockFirst, "lock-first", cfg.LockFirst, "first lock; doubles per further failure (BARRAGE_LOCK_FIRST)")
	fs.DurationVar(&cfg.LockMax, "lock-max", cfg.LockMax, "longest lock (BARRAGE_LOCK_MAX)")
	fs.DurationVar(&cfg.ShutdownTimeout, "shutdown-timeout", cfg.ShutdownTimeout, "how long in-flight requests may finish on SIGTERM (BARRAGE_SHUTDOWN_TIMEOUT)")
	fs.StringVar(&cfg.NATSURL, "nats-url", cfg.NATSURL, "NATS server(s) with JetStream; unset = an embedded server in this process (NATS_URL)")
	fs.StringVar(&cfg.NATSListen, "nats-listen", cfg.NATSListen, "where the embedded NATS listens; :0 picks a free port (BARRAGE_NATS_LISTEN)")
	fs.StringVar(&cfg.NATSKeys, "nats-keys", cfg.NATSKeys, "NATS operator-mode keys file from `barrage-api nats-auth init` (BARRAGE_NATS_KEYS)")
	fs.StringVar(&cfg.NATSDataDir, "nats-data-dir", cfg.NATSDataDir, "JetStream files of the embedded NATS (BARRAGE_NATS_DATA_DIR)")
	fs.BoolVar(&cfg.ReadOnly, "read-only", cfg.ReadOnly, "serve results only: no sign-in, every write 403, public projects browsable without credentials (BARRAGE_READ_ONLY)")
	fs.BoolVar(&cfg.AllInOne, "all-in-one", cfg.AllInOne, "also run one agent and the echo server in this process (BARRAGE_ALL_IN_ONE)")
	fs.IntVar(&cfg.AgentCapacity, "agent-capacity", cfg.AgentCapacity, "shards the all-in-one agent runs at once (BARRAGE_AGENT_CAPACITY)")
	fs.DurationVar(&cfg.DispatchWait, "dispatch-wait", cfg.DispatchWait, "how long a run waits for a free matching agent before it fails (BARRAGE_DISPATCH_WAIT)")
	fs.TextVar(&cfg.LogLevel, "log-level", cfg.LogLevel, "debug, info, warn or error (BARRAGE_LOG_LEVEL)")
	fs.Float64Var(&cfg.MaxQPS, "max-qps", cfg.MaxQPS, "highest qps one run may ask for (BARRAGE_MAX_QPS)")
	fs.IntVar(&cfg.MaxConnections, "max-connections", cfg.MaxConnections, "most connections one run may ask for (BARRAGE_MAX_CONNECTIONS)")
	fs.DurationVar(&cfg.MaxDuration, "max-duration", cfg.MaxDuration, "longest run (BARRAGE_MAX_DURATION)")
	fs.IntVar(&cfg.MaxAgents, "max-agents", cfg.MaxAgents, "most agents one run may use (BARRAGE_MAX_AGENTS)")
	fs.IntVar(&cfg.MaxHeaders, "max-headers", cfg.MaxHeaders, "most request headers in a spec (BARRAGE_MAX_HEADERS)")
	fs.IntVar(&cfg.MaxPayloadBytes, "max-payload-bytes", cfg.MaxPayloadBytes, "largest inline payload in a spec (BARRAGE_MAX_PAYLOAD_BYTES)")
	fs.IntVar(&cfg.MaxConcurrentRuns, "max-concurrent-runs", cfg.MaxConcurrentRuns, "most runs one project may have queued or in progress (BARRAGE_MAX_CONCURRENT_RUNS)")
	fs.StringVar(&cfg.BaseURL, "base-url", cfg.BaseURL, "URL clients reach this server at, for index.tsv's absolute URLs; unset = from each request's Host and X-Forwarded-* (BARRAGE_BASE_URL)")
	fs.DurationVar(&cfg.SyncTick, "sync-tick", cfg.SyncTick, "how often due sync sources are looked for; 0 = no scheduled syncs (BARRAGE_SYNC_TICK)")
	fs.DurationVar(&cfg.SyncRequestTimeout, "sync-request-timeout", cfg.SyncRequestTimeout, "timeout of each request a sync makes (BARRAGE_SYNC_REQUEST_TIMEOUT)")
	fs.DurationVar(&cfg.ScheduleTick, "schedule-tick", cfg.ScheduleTick, "how often due test schedules are looked for; 0 = no scheduled runs (BARRAGE_SCHEDULE_TICK)")
	fs.DurationVar(&cfg.SearchLease, "search-lease", cfg.SearchLease, "how long a replica's claim on a capacity search lasts unless renewed: the longest a search waits for another replica after its driver died (BARRAGE_SEARCH_LEASE)")
	fs.StringVar(&cfg.SecretKey, "secret-key", cfg.SecretKey, "base64 of 32 bytes that seal run secrets in Postgres; set it in production (`barrage-api key new`); unset = a key of this process only (BARRAGE_SECRET_KEY)")
	fs.StringVar(&cfg.SecretKeysPrevious, "secret-keys-previous", cfg.SecretKeysPrevious, "older secret keys, comma-separated, that still open what they sealed until `barrage-api key rotate` (BARRAGE_SECRET_KEYS_PREVIOUS)")
	fs.StringVar(&cfg.SecretHeaders, "secret-headers", cfg.SecretHeaders, "header and query parameter names, comma-separated, redacted like Authorization (BARRAGE_SECRET_HEADERS)")
	if err := fs.Parse(args); err != nil {
		return Config{}, err
	}
	cfg.Environ = environ
	if fs.NArg() > 0 {
		return Config{}, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	return cfg, cfg.Validate()
}

// debugFlags declares the flags of the debug listener.
func (c *Config) debugFlags(fs *flag.FlagSet) {
	fs.StringVar(&c.DebugAddr, "debug-addr", c.DebugAddr, "serve net/http/pprof on this address, e.g. 127.0.0.1:6060; empty = off (BARRAGE_DEBUG_ADDR)")
}

// DatabaseFlags declares the flags every subcommand that talks to Postgres takes.
func (c *Config) DatabaseFlags(fs *flag.FlagSet) {
	fs.StringVar(&c.DatabaseURL, "database-url", c.DatabaseURL, "Postgres URL; the database is created if missing (DATABASE_URL)")
	fs.IntVar(&c.DBMaxConns, "db-max-conns", c.DBMaxConns, "most open Postgres connections (BARRAGE_DB_MAX_CONNS)")
}

// Validate checks the settings that the parsers cannot.
func (c Config) Validate() error {
	var errs []error
	if c.DatabaseURL == "" {
		errs = append(errs, errors.New("-database-url: must not be empty"))
	}
	if c.DBMaxConns < 1 {
		errs = append(errs, fmt.Errorf("-db-max-conns %d: must be at least 1", c.DBMaxConns))
	}
	if c.AdminToken != "" {
		if _, err := auth.ParseToken(c.AdminToken); err != nil {
			errs = append(errs, fmt.Errorf("-admin-token: %w; make one with `barrage-api token new`", err))
		}
	}
	if _, err := mail.ParseAddress(c.AdminEmail); err != nil {
		errs = append(errs, fmt.Errorf("-admin-email %q: not an email address", c.AdminEmail))
	}
	if c.AdminPassword != "" && len(c.AdminPassword) < 12 {
		errs = append(errs, errors.New("-admin-password: must be at least 12 characters"))
	}
	if c.MaxBodyBytes < 1024 || c.MaxBodyBytes > 64<<20 {
		errs = append(errs, fmt.Errorf("-max-body-bytes %d: must be from 1024 to %d", c.MaxBodyBytes, 64<<20))
	}
	if c.RateLimit < 0 || (c.RateLimit > 0 && c.RateBurst < 1) {
		errs = append(errs, errors.New("-rate-limit must be 0 or more, and -rate-burst at least 1 when it is set"))
	}
	if c.SessionTTL < time.Minute {
		errs = append(errs, fmt.Errorf("-session-ttl %v: must be at least 1m", c.SessionTTL))
	}
	if c.NATSURL == "" && c.NATSDataDir == "" {
		errs = append(errs, errors.New("-nats-data-dir: must not be empty when the embedded NATS runs (no -nats-url)"))
	}
	if c.BaseURL != "" {
		if u, err := url.Parse(c.BaseURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			errs = append(errs, fmt.Errorf("-base-url %q: must be an http or https URL", c.BaseURL))
		}
	}
	if c.SyncTick < 0 || c.SyncRequestTimeout < time.Second {
		errs = append(errs, errors.New("-sync-tick must be 0 or more and -sync-request-timeout at least 1s"))
	}
	if c.ScheduleTick < 0 {
		errs = append(errs, fmt.Errorf("-schedule-tick %v: must not be negative", c.ScheduleTick))
	}
	if c.SearchLease < 3*time.Second || c.SearchLease > 10*time.Minute {
		errs = append(errs, fmt.Errorf("-search-lease %v: must be from 3s to 10m", c.SearchLease))
	}
	if c.AllInOne && (c.AgentCapacity < 1 || c.AgentCapacity > 1000) {
		errs = append(errs, fmt.Errorf("-agent-capacity %d: must be from 1 to 1000", c.AgentCapacity))
	}
	if c.DispatchWait < 0 {
		errs = append(errs, fmt.Errorf("-dispatch-wait %v: must not be negative", c.DispatchWait))
	}
	if c.ShutdownTimeout <= 0 {
		errs = append(errs, fmt.Errorf("-shutdown-timeout %v: must be positive", c.ShutdownTimeout))
	}
	if c.SecretKey != "" {
		if _, err := sealer.ParseKey(c.SecretKey); err != nil {
			errs = append(errs, fmt.Errorf("-secret-key: %w; make one with `barrage-api key new`", err))
		}
	}
	for i, k := range c.PreviousKeys() {
		if _, err := sealer.ParseKey(k); err != nil {
			errs = append(errs, fmt.Errorf("-secret-keys-previous: key %d: %w", i+1, err))
		}
	}
	if len(c.PreviousKeys()) > 0 && c.SecretKey == "" {
		errs = append(errs, errors.New("-secret-keys-previous needs -secret-key, the key that seals from now on"))
	}
	for _, name := range splitList(c.SecretHeaders) {
		if !validHeaderName(name) {
			errs = append(errs, fmt.Errorf("-secret-headers: %q is not a header name", name))
		}
	}
	if err := c.Limits().Validate(); err != nil {
		errs = append(errs, err)
	}
	if err := c.OIDC().Validate(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// validHeaderName reports whether name is an HTTP header name (RFC 9110
// token).
func validHeaderName(name string) bool {
	for _, r := range name {
		if r > 0x7e || r <= ' ' || strings.ContainsRune(`"(),/:;<=>?@[\]{}`, r) {
			return false
		}
	}
	return name != ""
}

package app

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/mail"
	"net/netip"
	"net/url"
	"strings"
	"time"

	"github.com/barrage-dev/barrage/pkg/envconf"
	"github.com/barrage-dev/barrage/pkg/netguard"
	"github.com/barrage-dev/barrage/pkg/pprofserve"
	"github.com/barrage-dev/barrage/pkg/spec"
	"github.com/barrage-dev/barrage/services/api/internal/auth"
	"github.com/barrage-dev/barrage/services/api/internal/policy"
	"github.com/barrage-dev/barrage/services/api/internal/sealer"
	"github.com/barrage-dev/barrage/services/api/internal/sso"
)

// Config is barrage-api's configuration. Every field is a flag and an
// environment variable of the same meaning; flags win.
type Config struct {
	Listen        string `env:"BARRAGE_LISTEN" envDefault:":8080"`
	DatabaseURL   string `env:"DATABASE_URL" envDefault:"postgres://postgres@127.0.0.1:5432/barrage?sslmode=disable"`
	DBMaxConns    int    `env:"BARRAGE_DB_MAX_CONNS" envDefault:"20"`
	AdminToken    string `env:"BARRAGE_ADMIN_TOKEN"`
	AdminEmail    string `env:"BARRAGE_ADMIN_EMAIL" envDefault:"admin@barrage.local"`
	AdminPassword string `env:"BARRAGE_ADMIN_PASSWORD"`
	// AdminCredentialsFile is where the first start writes the credentials
	// it generated (mode 0600); they never go to the log.
	AdminCredentialsFile string `env:"BARRAGE_ADMIN_CREDENTIALS_FILE" envDefault:"data/admin-credentials"`
	// AdminTokenTTL is how long the bootstrap admin token works.
	AdminTokenTTL   time.Duration `env:"BARRAGE_ADMIN_TOKEN_TTL" envDefault:"720h"`
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
	NATSKeys string `env:"BARRAGE_NATS_KEYS"`
	// NATSReplicas is how many servers of the JetStream cluster hold each
	// stream and bucket (wire.SetupOptions): 3 on a 3-node cluster
	// (docs/reliability.md), 1 on a single server.
	NATSReplicas int           `env:"BARRAGE_NATS_REPLICAS" envDefault:"1"`
	DispatchWait time.Duration `env:"BARRAGE_DISPATCH_WAIT" envDefault:"10s"`
	// AgentMaxCapacity caps the shards the dispatcher gives one agent at
	// once, whatever capacity the agent reports (docs/security.md "Agents");
	// 0 for no cap beyond what its credential binds.
	AgentMaxCapacity int  `env:"BARRAGE_AGENT_MAX_CAPACITY" envDefault:"64"`
	AllInOne         bool `env:"BARRAGE_ALL_IN_ONE"`
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
	TargetResolver *net.Resolver `env:"-"`
	// TargetDeny lists more addresses no run or sync may reach, whatever
	// any policy says, on top of the API's own, its Postgres's and its
	// NATS's (netguard entries, comma-separated; an entry without a port
	// denies every port of its host).
	TargetDeny string `env:"BARRAGE_TARGET_DENY"`
	// TargetDenyRefresh is how often the deny list's names are resolved
	// again, so DNS changes and database failovers are followed.
	TargetDenyRefresh  time.Duration `env:"BARRAGE_TARGET_DENY_REFRESH" envDefault:"1m"`
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
	// RetentionInterval is the time between passes of the projects'
	// retention (package retention); 0 turns retention off.
	RetentionInterval time.Duration `env:"BARRAGE_RETENTION_INTERVAL" envDefault:"1h"`
	// SearchLease is how long a replica's claim on a capacity search lasts
	// unless renewed (package searches).
	SearchLease time.Duration `env:"BARRAGE_SEARCH_LEASE" envDefault:"30s"`
	// DebugAddr serves net/http/pprof when set (pkg/pprofserve): for soak
	// runs and leak hunts, on loopback only unless DebugAddrInsecure.
	DebugAddr        string `env:"BARRAGE_DEBUG_ADDR"`
	OIDCIssuer       string `env:"BARRAGE_OIDC_ISSUER"`
	OIDCClientID     string `env:"BARRAGE_OIDC_CLIENT_ID"`
	OIDCClientSecret string `env:"BARRAGE_OIDC_CLIENT_SECRET"`
	OIDCRedirectURL  string `env:"BARRAGE_OIDC_REDIRECT_URL"`
	OIDCEmailDomain  string `env:"BARRAGE_OIDC_EMAIL_DOMAIN"`
	// OIDCAutoProvision creates a user on the first OIDC sign-in of an
	// identity no user is linked to; off, such sign-ins are refused.
	OIDCAutoProvision bool `env:"BARRAGE_OIDC_AUTO_PROVISION"`
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
	// RedactBody is a regular expression whose matches (or, with groups,
	// the groups' text) are redacted from request bodies wherever secret
	// headers are, and sealed for the agents; "" redacts no body.
	RedactBody string `env:"BARRAGE_REDACT_BODY"`
	Edge
}

// Edge is the configuration of the HTTP edge: proxies, sign-in limits,
// timeouts, live stream caps, /metrics, the debug listener and the Fortio
// REST token (docs/security.md, "The HTTP edge").
type Edge struct {
	// TrustedProxies are CIDRs (or addresses), comma-separated, whose
	// X-Forwarded-For, X-Real-IP, X-Forwarded-Host and X-Forwarded-Proto
	// are believed; empty trusts none.
	TrustedProxies string  `env:"BARRAGE_TRUSTED_PROXIES"`
	LoginRate      float64 `env:"BARRAGE_LOGIN_RATE_LIMIT" envDefault:"0.1"`
	LoginBurst     int     `env:"BARRAGE_LOGIN_RATE_BURST" envDefault:"20"`
	MaxHashes      int     `env:"BARRAGE_MAX_CONCURRENT_HASHES" envDefault:"4"`
	// HashHold runs while a sign-in's password check holds its slot; nil
	// in production. Not a setting: tests hold a slot with it.
	HashHold           func()        `env:"-"`
	StreamsPerCaller   int           `env:"BARRAGE_STREAMS_PER_CALLER" envDefault:"20"`
	StreamsPerRun      int           `env:"BARRAGE_STREAMS_PER_RUN" envDefault:"200"`
	StreamWriteTimeout time.Duration `env:"BARRAGE_STREAM_WRITE_TIMEOUT" envDefault:"30s"`
	ReadHeaderTimeout  time.Duration `env:"BARRAGE_HTTP_READ_HEADER_TIMEOUT" envDefault:"10s"`
	ReadTimeout        time.Duration `env:"BARRAGE_HTTP_READ_TIMEOUT" envDefault:"1m"`
	WriteTimeout       time.Duration `env:"BARRAGE_HTTP_WRITE_TIMEOUT" envDefault:"1m"`
	IdleTimeout        time.Duration `env:"BARRAGE_HTTP_IDLE_TIMEOUT" envDefault:"2m"`
	// MetricsToken, when set, is the bearer token /metrics asks for.
	MetricsToken string `env:"BARRAGE_METRICS_TOKEN"`
	// MetricsListen, when set, serves /metrics on this address alone and
	// no longer on the API's.
	MetricsListen string `env:"BARRAGE_METRICS_LISTEN"`
	// DebugAddrInsecure lets DebugAddr be other than a loopback address.
	DebugAddrInsecure bool `env:"BARRAGE_DEBUG_ADDR_INSECURE"`
	// FortioURLToken lets the Fortio REST routes take a token in ?token=.
	FortioURLToken bool `env:"BARRAGE_FORTIO_URL_TOKEN"`
	// OTelTraces exports spans of the HTTP requests and of dispatch over
	// OTLP/HTTP to where the standard OTEL_EXPORTER_OTLP_* variables say
	// (package tracing); off by default.
	OTelTraces bool `env:"BARRAGE_OTEL_TRACES"`
}

// edgeFlags declares the flags of Edge.
func (c *Edge) edgeFlags(fs *flag.FlagSet) {
	fs.StringVar(&c.TrustedProxies, "trusted-proxies", c.TrustedProxies, "CIDRs, comma-separated, of the proxies whose X-Forwarded-For/-Host/-Proto are believed; empty = none (BARRAGE_TRUSTED_PROXIES)")
	fs.Float64Var(&c.LoginRate, "login-rate-limit", c.LoginRate, "sign-ins per second per client address and per email, and failed authentications per client address; 0 = unlimited (BARRAGE_LOGIN_RATE_LIMIT)")
	fs.IntVar(&c.LoginBurst, "login-rate-burst", c.LoginBurst, "burst of -login-rate-limit (BARRAGE_LOGIN_RATE_BURST)")
	fs.IntVar(&c.MaxHashes, "max-concurrent-hashes", c.MaxHashes, "password checks (64 MiB each) that run at once; more sign-ins get 429 (BARRAGE_MAX_CONCURRENT_HASHES)")
	fs.IntVar(&c.StreamsPerCaller, "streams-per-caller", c.StreamsPerCaller, "live streams one user (or anonymous client address) may hold open; -1 = no bound (BARRAGE_STREAMS_PER_CALLER)")
	fs.IntVar(&c.StreamsPerRun, "streams-per-run", c.StreamsPerRun, "live streams of one run open at once; -1 = no bound (BARRAGE_STREAMS_PER_RUN)")
	fs.DurationVar(&c.StreamWriteTimeout, "stream-write-timeout", c.StreamWriteTimeout, "deadline of each write of a live stream (BARRAGE_STREAM_WRITE_TIMEOUT)")
	fs.DurationVar(&c.ReadHeaderTimeout, "http-read-header-timeout", c.ReadHeaderTimeout, "time to read a request's headers (BARRAGE_HTTP_READ_HEADER_TIMEOUT)")
	fs.DurationVar(&c.ReadTimeout, "http-read-timeout", c.ReadTimeout, "time to read a whole request (BARRAGE_HTTP_READ_TIMEOUT)")
	fs.DurationVar(&c.WriteTimeout, "http-write-timeout", c.WriteTimeout, "time to write a response; streams and waits get their own (BARRAGE_HTTP_WRITE_TIMEOUT)")
	fs.DurationVar(&c.IdleTimeout, "http-idle-timeout", c.IdleTimeout, "how long an idle keep-alive connection stays open (BARRAGE_HTTP_IDLE_TIMEOUT)")
	fs.StringVar(&c.MetricsToken, "metrics-token", c.MetricsToken, "bearer token that /metrics asks for; empty = none (BARRAGE_METRICS_TOKEN)")
	fs.StringVar(&c.MetricsListen, "metrics-listen", c.MetricsListen, "serve /metrics on this address only, not on -listen (BARRAGE_METRICS_LISTEN)")
	fs.BoolVar(&c.DebugAddrInsecure, "debug-addr-force", c.DebugAddrInsecure, "let -debug-addr be a non-loopback address: pprof has no authentication (BARRAGE_DEBUG_ADDR_INSECURE)")
	fs.BoolVar(&c.FortioURLToken, "fortio-url-token", c.FortioURLToken, "let the Fortio REST routes take an API token in ?token= (it ends up in logs) (BARRAGE_FORTIO_URL_TOKEN)")
	fs.BoolVar(&c.OTelTraces, "otel-traces", c.OTelTraces, "export traces of HTTP requests and dispatch over OTLP/HTTP, configured by the OTEL_EXPORTER_OTLP_* variables (BARRAGE_OTEL_TRACES)")
}

// Proxies returns the parsed TrustedProxies.
func (c Edge) Proxies() ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, item := range splitList(c.TrustedProxies) {
		p, err := netip.ParsePrefix(item)
		if err != nil {
			a, aerr := netip.ParseAddr(item)
			if aerr != nil {
				return nil, fmt.Errorf("-trusted-proxies: %q is not a CIDR or an address", item)
			}
			p = netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen())
		}
		out = append(out, p.Masked())
	}
	return out, nil
}

// validate checks the edge settings.
func (c Edge) validate() []error {
	var errs []error
	if _, err := c.Proxies(); err != nil {
		errs = append(errs, err)
	}
	if c.LoginRate < 0 || (c.LoginRate > 0 && c.LoginBurst < 1) {
		errs = append(errs, errors.New("-login-rate-limit must be 0 or more, and -login-rate-burst at least 1 when it is set"))
	}
	if c.MaxHashes < 1 || c.MaxHashes > 1024 {
		errs = append(errs, fmt.Errorf("-max-concurrent-hashes %d: must be from 1 to 1024", c.MaxHashes))
	}
	if c.StreamsPerCaller == 0 || c.StreamsPerRun == 0 {
		errs = append(errs, errors.New("-streams-per-caller and -streams-per-run: must be at least 1, or -1 for no bound"))
	}
	for name, d := range map[string]time.Duration{
		"-stream-write-timeout": c.StreamWriteTimeout, "-http-read-header-timeout": c.ReadHeaderTimeout,
		"-http-read-timeout": c.ReadTimeout, "-http-write-timeout": c.WriteTimeout, "-http-idle-timeout": c.IdleTimeout,
	} {
		if d < 0 {
			errs = append(errs, fmt.Errorf("%s %v: must not be negative (0 = none)", name, d))
		}
	}
	return errs
}

// targetDenyErrors checks -target-deny and -target-deny-refresh.
func (c Config) targetDenyErrors() []error {
	var errs []error
	if _, err := netguard.ParseAllowList(splitList(c.TargetDeny)); err != nil {
		errs = append(errs, fmt.Errorf("-target-deny: %w", err))
	}
	if c.TargetDenyRefresh < 100*time.Millisecond {
		errs = append(errs, fmt.Errorf("-target-deny-refresh %v: must be at least 100ms", c.TargetDenyRefresh))
	}
	return errs
}

// Redactor returns the redactor of the built-in secret names,
// SecretHeaders and RedactBody (checked by Validate: a pattern that does
// not compile redacts no body here).
func (c Config) Redactor() spec.Redactor {
	r := spec.NewRedactor(splitList(c.SecretHeaders))
	if withBody, err := r.WithBodyPattern(c.RedactBody); err == nil {
		return withBody
	}
	return r
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
		Lockout:   auth.Lockout{Threshold: c.LockThreshold, First: c.LockFirst, Max: c.LockMax},
		MaxHashes: c.MaxHashes, HashHold: c.HashHold,
	}
}

// OIDC returns the single sign-on settings of the configuration.
func (c Config) OIDC() sso.Options {
	return sso.Options{
		Issuer: c.OIDCIssuer, ClientID: c.OIDCClientID, ClientSecret: c.OIDCClientSecret,
		RedirectURL: c.OIDCRedirectURL, EmailDomain: c.OIDCEmailDomain, AutoProvision: c.OIDCAutoProvision,
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
	cfg.edgeFlags(fs)
	fs.StringVar(&cfg.Listen, "listen", cfg.Listen, "HTTP listen address; :0 picks a free port (BARRAGE_LISTEN)")
	cfg.accountFlags(fs)
	fs.Int64Var(&cfg.MaxBodyBytes, "max-body-bytes", cfg.MaxBodyBytes, "largest request body (BARRAGE_MAX_BODY_BYTES)")
	fs.Float64Var(&cfg.RateLimit, "rate-limit", cfg.RateLimit, "requests per second per caller; 0 = unlimited (BARRAGE_RATE_LIMIT)")
	fs.IntVar(&cfg.RateBurst, "rate-burst", cfg.RateBurst, "burst of requests per caller (BARRAGE_RATE_BURST)")
	fs.DurationVar(&cfg.ShutdownTimeout, "shutdown-timeout", cfg.ShutdownTimeout, "how long in-flight requests may finish on SIGTERM (BARRAGE_SHUTDOWN_TIMEOUT)")
	fs.StringVar(&cfg.NATSURL, "nats-url", cfg.NATSURL, "NATS server(s) with JetStream; unset = an embedded server in this process (NATS_URL)")
	fs.StringVar(&cfg.NATSListen, "nats-listen", cfg.NATSListen, "where the embedded NATS listens; :0 picks a free port (BARRAGE_NATS_LISTEN)")
	fs.StringVar(&cfg.NATSKeys, "nats-keys", cfg.NATSKeys, "NATS operator-mode keys file from `barrage-api nats-auth init` (BARRAGE_NATS_KEYS)")
	fs.IntVar(&cfg.NATSReplicas, "nats-replicas", cfg.NATSReplicas, "servers of the JetStream cluster holding each stream and bucket: 3 on a 3-node cluster (BARRAGE_NATS_REPLICAS)")
	fs.StringVar(&cfg.NATSDataDir, "nats-data-dir", cfg.NATSDataDir, "JetStream files of the embedded NATS (BARRAGE_NATS_DATA_DIR)")
	fs.BoolVar(&cfg.ReadOnly, "read-only", cfg.ReadOnly, "serve results only: no sign-in, every write 403, public projects browsable without credentials (BARRAGE_READ_ONLY)")
	fs.BoolVar(&cfg.AllInOne, "all-in-one", cfg.AllInOne, "also run one agent and the echo server in this process (BARRAGE_ALL_IN_ONE)")
	fs.IntVar(&cfg.AgentCapacity, "agent-capacity", cfg.AgentCapacity, "shards the all-in-one agent runs at once (BARRAGE_AGENT_CAPACITY)")
	fs.DurationVar(&cfg.DispatchWait, "dispatch-wait", cfg.DispatchWait, "how long a run waits for a free matching agent before it fails (BARRAGE_DISPATCH_WAIT)")
	fs.IntVar(&cfg.AgentMaxCapacity, "agent-max-capacity", cfg.AgentMaxCapacity, "most shards one agent is given at once, whatever it reports; 0 = no cap (BARRAGE_AGENT_MAX_CAPACITY)")
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
	fs.DurationVar(&cfg.RetentionInterval, "retention-interval", cfg.RetentionInterval, "time between passes of the projects' data retention, on the replica that leads the scheduler; 0 = never (BARRAGE_RETENTION_INTERVAL)")
	fs.StringVar(&cfg.TargetDeny, "target-deny", cfg.TargetDeny, "more hosts, IPs or CIDRs no run or sync may reach, comma-separated; without :port every port (BARRAGE_TARGET_DENY)")
	fs.DurationVar(&cfg.TargetDenyRefresh, "target-deny-refresh", cfg.TargetDenyRefresh, "how often the control-plane deny list's names are resolved again (BARRAGE_TARGET_DENY_REFRESH)")
	fs.DurationVar(&cfg.SearchLease, "search-lease", cfg.SearchLease, "how long a replica's claim on a capacity search lasts unless renewed: the longest a search waits for another replica after its driver died (BARRAGE_SEARCH_LEASE)")
	fs.StringVar(&cfg.SecretKey, "secret-key", cfg.SecretKey, "base64 of 32 bytes that seal run secrets in Postgres; set it in production (`barrage-api key new`); unset = a key of this process only (BARRAGE_SECRET_KEY)")
	fs.StringVar(&cfg.SecretKeysPrevious, "secret-keys-previous", cfg.SecretKeysPrevious, "older secret keys, comma-separated, that still open what they sealed until `barrage-api key rotate` (BARRAGE_SECRET_KEYS_PREVIOUS)")
	fs.StringVar(&cfg.SecretHeaders, "secret-headers", cfg.SecretHeaders, "header and query parameter names, comma-separated, redacted like Authorization (BARRAGE_SECRET_HEADERS)")
	fs.StringVar(&cfg.RedactBody, "redact-body", cfg.RedactBody, "regular expression redacted from request bodies; with groups, only their text (BARRAGE_REDACT_BODY)")
	if err := fs.Parse(args); err != nil {
		return Config{}, err
	}
	cfg.Environ = environ
	if fs.NArg() > 0 {
		return Config{}, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	return cfg, cfg.Validate()
}

// accountFlags defines the flags of the first admin, sessions, single
// sign-on and sign-in lockout.
func (c *Config) accountFlags(fs *flag.FlagSet) {
	fs.StringVar(&c.AdminToken, "admin-token", c.AdminToken, "API token of the first admin, created on first start; unset = generated into -admin-credentials-file (BARRAGE_ADMIN_TOKEN)")
	fs.StringVar(&c.AdminEmail, "admin-email", c.AdminEmail, "email of the first admin (BARRAGE_ADMIN_EMAIL)")
	fs.StringVar(&c.AdminPassword, "admin-password", c.AdminPassword, "password of the first admin; unset = generated into -admin-credentials-file (BARRAGE_ADMIN_PASSWORD)")
	fs.StringVar(&c.AdminCredentialsFile, "admin-credentials-file", c.AdminCredentialsFile, "file (mode 0600) the first start writes the generated admin password and token to (BARRAGE_ADMIN_CREDENTIALS_FILE)")
	fs.DurationVar(&c.AdminTokenTTL, "admin-token-ttl", c.AdminTokenTTL, "lifetime of the bootstrap admin token (BARRAGE_ADMIN_TOKEN_TTL)")
	fs.DurationVar(&c.SessionTTL, "session-ttl", c.SessionTTL, "dashboard session lifetime (BARRAGE_SESSION_TTL)")
	fs.BoolVar(&c.SecureCookie, "secure-cookie", c.SecureCookie, "mark the session cookie Secure; set behind a TLS proxy, automatic on TLS requests (BARRAGE_SECURE_COOKIE)")
	fs.DurationVar(&c.SessionRotate, "session-rotate", c.SessionRotate, "re-issue a session id this old on its next use; negative never (BARRAGE_SESSION_ROTATE)")
	fs.DurationVar(&c.SessionGrace, "session-grace", c.SessionGrace, "how long a re-issued session's old cookie keeps working (BARRAGE_SESSION_GRACE)")
	fs.StringVar(&c.OIDCIssuer, "oidc-issuer", c.OIDCIssuer, "OpenID Connect issuer URL; set to offer single sign-on (BARRAGE_OIDC_ISSUER)")
	fs.StringVar(&c.OIDCClientID, "oidc-client-id", c.OIDCClientID, "OIDC client id (BARRAGE_OIDC_CLIENT_ID)")
	fs.StringVar(&c.OIDCRedirectURL, "oidc-redirect-url", c.OIDCRedirectURL, "OIDC redirect URL: <base URL>/api/v1/auth/oidc/callback (BARRAGE_OIDC_REDIRECT_URL)")
	fs.StringVar(&c.OIDCEmailDomain, "oidc-email-domain", c.OIDCEmailDomain, "only this email domain may sign in with OIDC; unset = any (BARRAGE_OIDC_EMAIL_DOMAIN)")
	fs.BoolVar(&c.OIDCAutoProvision, "oidc-auto-provision", c.OIDCAutoProvision, "create a user on the first OIDC sign-in of an unknown identity; off = refuse it (BARRAGE_OIDC_AUTO_PROVISION)")
	fs.IntVar(&c.LockThreshold, "lock-threshold", c.LockThreshold, "consecutive failed sign-ins that lock an email (BARRAGE_LOCK_THRESHOLD)")
	fs.DurationVar(&c.LockFirst, "lock-first", c.LockFirst, "first lock; doubles per further failure (BARRAGE_LOCK_FIRST)")
	fs.DurationVar(&c.LockMax, "lock-max", c.LockMax, "longest lock (BARRAGE_LOCK_MAX)")
}

// debugFlags declares the flags of the debug listener.
func (c *Config) debugFlags(fs *flag.FlagSet) {
	fs.StringVar(&c.DebugAddr, "debug-addr", c.DebugAddr, "serve net/http/pprof on this address, e.g. 127.0.0.1:6060; loopback only unless -debug-addr-force; empty = off (BARRAGE_DEBUG_ADDR)")
}

// checkDebugAddr refuses a debug address that is not loopback unless
// forced: pprof has no authentication.
func checkDebugAddr(addr string, force bool) error {
	if addr == "" || force {
		return nil
	}
	if err := pprofserve.CheckLoopback(addr); err != nil {
		return fmt.Errorf("-debug-addr: %w; -debug-addr-force (BARRAGE_DEBUG_ADDR_INSECURE) allows it", err)
	}
	return nil
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
	errs = append(errs, c.adminErrors()...)
	if c.MaxBodyBytes < 1024 || c.MaxBodyBytes > 64<<20 {
		errs = append(errs, fmt.Errorf("-max-body-bytes %d: must be from 1024 to %d", c.MaxBodyBytes, 64<<20))
	}
	if c.RateLimit < 0 || (c.RateLimit > 0 && c.RateBurst < 1) {
		errs = append(errs, errors.New("-rate-limit must be 0 or more, and -rate-burst at least 1 when it is set"))
	}
	if c.SessionTTL < time.Minute {
		errs = append(errs, fmt.Errorf("-session-ttl %v: must be at least 1m", c.SessionTTL))
	}
	errs = append(errs, c.natsErrors()...)
	if c.BaseURL != "" {
		if u, err := url.Parse(c.BaseURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			errs = append(errs, fmt.Errorf("-base-url %q: must be an http or https URL", c.BaseURL))
		}
	}
	if c.SyncTick < 0 || c.SyncRequestTimeout < time.Second {
		errs = append(errs, errors.New("-sync-tick must be 0 or more and -sync-request-timeout at least 1s"))
	}
	errs = append(errs, c.targetDenyErrors()...)
	if c.RetentionInterval < 0 {
		errs = append(errs, fmt.Errorf("-retention-interval %v: must not be negative", c.RetentionInterval))
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
	if c.AgentMaxCapacity < 0 || c.AgentMaxCapacity > 10000 {
		errs = append(errs, fmt.Errorf("-agent-max-capacity %d: must be from 0 to 10000", c.AgentMaxCapacity))
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
	if _, err := (spec.Redactor{}).WithBodyPattern(c.RedactBody); err != nil {
		errs = append(errs, fmt.Errorf("-redact-body: %w", err))
	}
	errs = append(errs, c.validate()...)
	if err := checkDebugAddr(c.DebugAddr, c.DebugAddrInsecure); err != nil {
		errs = append(errs, err)
	}
	if err := c.Limits().Validate(); err != nil {
		errs = append(errs, err)
	}
	if err := c.OIDC().Validate(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// adminErrors reports the first admin's settings that are wrong.
// natsErrors checks the NATS settings: the embedded server needs a data
// directory and, being a single server, one replica per stream.
func (c Config) natsErrors() []error {
	var errs []error
	if c.NATSReplicas < 1 || c.NATSReplicas > 5 || (c.NATSURL == "" && c.NATSReplicas != 1) {
		errs = append(errs, fmt.Errorf("-nats-replicas %d: must be from 1 to 5, and 1 with the embedded NATS (no -nats-url)", c.NATSReplicas))
	}
	if c.NATSURL == "" && c.NATSDataDir == "" {
		errs = append(errs, errors.New("-nats-data-dir: must not be empty when the embedded NATS runs (no -nats-url)"))
	}
	return errs
}

func (c Config) adminErrors() []error {
	var errs []error
	if c.AdminToken != "" {
		if _, err := auth.ParseToken(c.AdminToken); err != nil {
			errs = append(errs, fmt.Errorf("-admin-token: %w; make one with `barrage-api token new`", err))
		}
	}
	if _, err := mail.ParseAddress(c.AdminEmail); err != nil {
		errs = append(errs, fmt.Errorf("-admin-email %q: not an email address", c.AdminEmail))
	}
	if c.AdminPassword != "" && len(c.AdminPassword) < auth.MinPasswordLength {
		errs = append(errs, fmt.Errorf("-admin-password: must be at least %d characters", auth.MinPasswordLength))
	}
	if c.AdminTokenTTL < time.Hour {
		errs = append(errs, fmt.Errorf("-admin-token-ttl %v: must be at least 1h", c.AdminTokenTTL))
	}
	if c.AdminCredentialsFile == "" && (c.AdminToken == "" || c.AdminPassword == "") {
		errs = append(errs, errors.New("-admin-credentials-file: must be set unless -admin-token and -admin-password are"))
	}
	return errs
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

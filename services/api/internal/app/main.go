package app

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/barrage-dev/barrage/pkg/envconf"
	"github.com/barrage-dev/barrage/pkg/svclog"
	"github.com/barrage-dev/barrage/services/api/internal/auth"
	"github.com/barrage-dev/barrage/services/api/internal/projects"
	"github.com/barrage-dev/barrage/services/api/internal/tokens"
)

// usage is the command summary printed for -h and bad commands.
const usage = `usage:
  barrage-api [serve] [flags]                 run the API server (barrage-api serve -h lists flags)
  barrage-api migrate up|down|status [flags]  apply, undo one, or list the database migrations
  barrage-api token create -project P -role R [-name N] [-expires 720h]
                                              mint a project API token and print it
  barrage-api token revoke ID                 revoke any API token at once (the bootstrap admin's too)
  barrage-api admin reset-password EMAIL      set a new random password for a user, end their sessions, print it
  barrage-api token new                       print a random, well-formed token (for BARRAGE_ADMIN_TOKEN)
  barrage-api key new                         print a random secret key (for BARRAGE_SECRET_KEY)
  barrage-api key rotate [-batch 100]         re-seal the stored secrets under BARRAGE_SECRET_KEY, opening them
                                              with it or BARRAGE_SECRET_KEYS_PREVIOUS; prints the counts
  barrage-api nats-auth init FILE             create the NATS operator-mode keys file (for BARRAGE_NATS_KEYS)
  barrage-api nats-auth server-config [-nats-keys FILE] [-js-memory-mib N -js-disk-mib N -js-streams N -js-consumers N]
                                              print the nats-server configuration that trusts those keys,
                                              with the account's JetStream limits
  barrage-api nats-auth bootstrap -keys-dir D -server-dir D -agents-dir D [-agents N] [-agent-pool P] [-agent-capacity N]
                                              keys once, the trust file and agent credential slots (Compose, Helm)
  barrage-api agent-credentials create NAME [-o FILE] [-nats-keys FILE] [-pool POOL] [-capacity N] [-max-payload BYTES]
                                              issue an agent's own NATS credentials (.creds), binding its pool
                                              and capacity cap
  barrage-api echo-credentials create NAME [-o FILE] [-nats-keys FILE]
                                              issue a managed echo's NATS credentials (.creds)
  barrage-api healthcheck [-url URL]          exit 0 when the local server's /healthz answers 200 (container HEALTHCHECK)
`

// Exit codes.
const (
	exitOK      = 0
	exitFailure = 1
	exitUsage   = 2
)

// Main runs barrage-api with args (program name first) and environ; it
// prints command output to stdout and logs to stderr. It returns the
// process exit code: 0, 1 on a runtime failure, 2 on bad usage.
func Main(ctx context.Context, args, environ []string, stdout, stderr io.Writer) int {
	cmd, rest := "serve", args[1:]
	if len(rest) > 0 && !strings.HasPrefix(rest[0], "-") {
		cmd, rest = rest[0], rest[1:]
	}
	var err error
	switch cmd {
	case "serve":
		err = serve(ctx, rest, environ, stdout, stderr)
	case "migrate":
		err = migrate(ctx, rest, environ, stdout, stderr)
	case "token":
		err = token(ctx, rest, environ, stdout, stderr)
	case "admin":
		err = admin(ctx, rest, environ, stdout, stderr)
	case "key":
		err = key(ctx, rest, environ, stdout, stderr)
	case "nats-auth":
		err = natsAuth(rest, environ, stdout, stderr)
	case "agent-credentials":
		err = agentCredentials(rest, environ, stdout, stderr)
	case "echo-credentials":
		err = echoCredentials(rest, environ, stdout, stderr)
	case "healthcheck":
		err = healthcheck(ctx, rest, environ, stderr)
	case "help":
		_, _ = io.WriteString(stdout, usage)
		return exitOK
	default:
		err = usageError{fmt.Errorf("unknown command %q", cmd)}
	}
	var ue usageError
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return exitOK
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "barrage-api: %v\n%s", ue.err, usage)
		return exitUsage
	default:
		fmt.Fprintf(stderr, "barrage-api: %v\n", err)
		return exitFailure
	}
}

// usageError is a mistake in the command line (exit code 2).
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }

// serve runs the server until ctx is done.
func serve(ctx context.Context, args, environ []string, stdout, stderr io.Writer) error {
	cfg, err := ParseConfig(args, environ, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return err
	}
	if err != nil {
		return usageError{err}
	}
	log, err := svclog.New(stderr, cfg.LogLevel, environ)
	if err != nil {
		return usageError{err}
	}
	a, err := New(ctx, cfg, log, stdout)
	if err != nil {
		return err
	}
	return a.Run(ctx)
}

// dbConfig parses the database flags of a maintenance command into cfg
// and returns the remaining arguments.
func dbConfig(name string, args, environ []string, stderr io.Writer, extra func(*flag.FlagSet)) (Config, []string, error) {
	var cfg Config
	if err := envconf.Parse(&cfg, environ); err != nil {
		return Config{}, nil, usageError{err}
	}
	fs := flag.NewFlagSet("barrage-api "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfg.DatabaseFlags(fs)
	if extra != nil {
		extra(fs)
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return Config{}, nil, err
		}
		return Config{}, nil, usageError{err}
	}
	return cfg, fs.Args(), nil
}

// quietLog is the logger of maintenance commands: warnings and errors only.
func quietLog(stderr io.Writer) *slog.Logger {
	return slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
}

// migrate runs `migrate up|down|status`.
func migrate(ctx context.Context, args, environ []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		return usageError{errors.New("migrate needs up, down or status")}
	}
	sub := args[0]
	if sub != "up" && sub != "down" && sub != "status" {
		return usageError{fmt.Errorf("migrate %q: must be up, down or status", sub)}
	}
	cfg, rest, err := dbConfig("migrate "+sub, args[1:], environ, stderr, nil)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return usageError{fmt.Errorf("unexpected argument %q", rest[0])}
	}
	st, err := openStore(ctx, cfg, quietLog(stderr), nil)
	if err != nil {
		return err
	}
	defer st.Close()
	return st.Migrate(ctx, sub, stdout) //nolint:wrapcheck // the store's message names the step
}

// token runs `token create`, `token revoke` and `token new`.
func token(ctx context.Context, args, environ []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return usageError{errors.New("token needs create, revoke or new")}
	}
	switch args[0] {
	case "new":
		_, err := fmt.Fprintln(stdout, auth.NewToken().Text)
		return err //nolint:wrapcheck // a write to stdout
	case "create":
		return tokenCreate(ctx, args[1:], environ, stdout, stderr)
	case "revoke":
		return tokenRevoke(ctx, args[1:], environ, stderr)
	default:
		return usageError{fmt.Errorf("token %q: must be create, revoke or new", args[0])}
	}
}

// tokenCreate mints a project token with the authority of the first admin.
func tokenCreate(ctx context.Context, args, environ []string, stdout, stderr io.Writer) error {
	var project, role, name string
	var expires time.Duration
	cfg, rest, err := dbConfig("token create", args, environ, stderr, func(fs *flag.FlagSet) {
		fs.StringVar(&project, "project", "", "project id or slug (required)")
		fs.StringVar(&role, "role", "runner", "viewer, runner or admin")
		fs.StringVar(&name, "name", "cli", "name shown in token lists")
		fs.DurationVar(&expires, "expires", 0, "lifetime, e.g. 720h; 0 = never expires")
	})
	if err != nil {
		return err
	}
	r, rerr := auth.ParseRole(role)
	switch {
	case len(rest) > 0:
		return usageError{fmt.Errorf("unexpected argument %q", rest[0])}
	case project == "":
		return usageError{errors.New("-project is required")}
	case rerr != nil:
		return usageError{fmt.Errorf("-role: %w", rerr)}
	case expires < 0:
		return usageError{errors.New("-expires must not be negative")}
	}
	st, err := openStore(ctx, cfg, quietLog(stderr), nil)
	if err != nil {
		return err
	}
	defer st.Close()
	if err := st.MigrateUp(ctx); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	admin, err := st.SystemUser(ctx)
	if err != nil {
		return fmt.Errorf("find an admin to own the token (start barrage-api once first): %w", err)
	}
	system := &auth.Principal{UserID: admin, OrgAdmin: true}
	in := tokens.Input{Project: project, Name: name, Role: r}
	if expires > 0 {
		in.ExpiresAt = time.Now().Add(expires)
	}
	t, secret, err := tokens.NewService(st, projects.NewService(st, cfg.Limits())).Create(ctx, system, in)
	if err != nil {
		return err //nolint:wrapcheck // domain errors read well as they are
	}
	fmt.Fprintf(stderr, "token %s (%s in project %s) created; it is shown only now\n", t.ID, t.Role, project)
	_, err = fmt.Fprintln(stdout, secret)
	return err //nolint:wrapcheck // a write to stdout
}

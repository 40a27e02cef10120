package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"google.golang.org/protobuf/proto"

	"github.com/barrage-dev/barrage/pkg/envconf"
	"github.com/barrage-dev/barrage/pkg/natsauth"
	"github.com/barrage-dev/barrage/pkg/wire"
	barragev1 "github.com/barrage-dev/barrage/proto/barrage/v1"
)

// runHealthcheck is `barrage-agent healthcheck`: it succeeds when NATS holds
// a fresh heartbeat (younger than wire.AgentTTL) of the agent named like
// `serve` names it (BARRAGE_AGENT_NAME, else the hostname), which is what
// barrage-api sees of it. Container images have no shell or curl, so this
// is their HEALTHCHECK; it reads the same NATS_URL (and credentials).
func runHealthcheck(ctx context.Context, args, environ []string, stderr io.Writer) int {
	var c serveConfig
	if err := envconf.Parse(&c, environ); err != nil {
		_, _ = fmt.Fprintf(stderr, "barrage-agent healthcheck: %v\n", err)
		return ExitUsage
	}
	fs := flag.NewFlagSet("barrage-agent healthcheck", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&c.NATSURL, "nats-url", c.NATSURL, "NATS server URL (NATS_URL)")
	fs.StringVar(&c.Name, "name", c.Name, "agent name; default the hostname (BARRAGE_AGENT_NAME)")
	fs.StringVar(&c.Creds, "creds", c.Creds, "the agent's NATS credentials; the check then reads its own heartbeat (BARRAGE_AGENT_CREDS)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return ExitOK
		}
		return ExitUsage
	}
	if c.Name == "" {
		c.Name, _ = os.Hostname()
	}
	ctx, cancel := context.WithTimeout(ctx, 4*time.Second)
	defer cancel()
	if c.Creds == "" && c.CredsDir != "" { // serve -creds-dir recorded which file it took
		b, err := os.ReadFile(claimRecord())
		if err != nil {
			_, _ = fmt.Fprintf(stderr, "barrage-agent healthcheck: which credentials serve took: %v\n", err)
			return ExitFailure
		}
		c.Creds = string(b)
	}
	check := func() error { return checkHeartbeat(ctx, c.NATSURL, c.Name) }
	if c.Creds != "" {
		check = func() error { return checkOwnHeartbeat(ctx, c.NATSURL, c.Creds) }
	}
	if err := check(); err != nil {
		_, _ = fmt.Fprintf(stderr, "barrage-agent healthcheck: %v\n", err)
		return ExitFailure
	}
	return ExitOK
}

// checkHeartbeat looks for a fresh heartbeat of the agent called name.
func checkHeartbeat(ctx context.Context, url, name string) error {
	js, kv, closeConn, err := agentsBucket(ctx, url)
	if err != nil {
		return err
	}
	defer closeConn()
	entries, err := wire.Entries(ctx, js, kv)
	if err != nil {
		return fmt.Errorf("read heartbeats: %w", err)
	}
	for _, e := range entries {
		var hb barragev1.Heartbeat
		if proto.Unmarshal(e.Value(), &hb) == nil && hb.GetName() == name &&
			time.Since(hb.GetSentAt().AsTime()) < wire.AgentTTL {
			return nil
		}
	}
	return fmt.Errorf("no heartbeat of agent %q in the last %s", name, wire.AgentTTL)
}

// checkOwnHeartbeat looks for a fresh heartbeat of the agent whose
// credentials are in the file credsPath, which may read only its own.
func checkOwnHeartbeat(ctx context.Context, url, credsPath string) error {
	file, err := os.ReadFile(credsPath) //nolint:gosec // the operator names the file
	if err != nil {
		return fmt.Errorf("-creds: %w", err)
	}
	creds, id, err := natsauth.ParseCredentials(file)
	if err != nil {
		return fmt.Errorf("-creds %s: %w", credsPath, err)
	}
	_, kv, closeConn, err := agentsBucket(ctx, url,
		nats.UserJWTAndSeed(creds.JWT, string(creds.Seed)), nats.CustomInboxPrefix(natsauth.InboxPrefix(id)))
	if err != nil {
		return err
	}
	defer closeConn()
	e, err := kv.Get(ctx, id)
	if err != nil {
		return fmt.Errorf("heartbeat of agent %s: %w", id, err)
	}
	var hb barragev1.Heartbeat
	if err := proto.Unmarshal(e.Value(), &hb); err != nil {
		return fmt.Errorf("heartbeat of agent %s: %w", id, err)
	}
	if age := time.Since(hb.GetSentAt().AsTime()); age >= wire.AgentTTL {
		return fmt.Errorf("the heartbeat of agent %s is %s old", id, age.Round(time.Second))
	}
	return nil
}

// agentsBucket connects to NATS at url with opts and binds the heartbeat
// bucket; the returned function closes the connection.
func agentsBucket(ctx context.Context, url string, opts ...nats.Option) (jetstream.JetStream, jetstream.KeyValue, func(), error) {
	nc, err := nats.Connect(url, append([]nats.Option{nats.Name("barrage-agent healthcheck"), nats.Timeout(2 * time.Second)}, opts...)...)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("connect to NATS: %w", err)
	}
	js, err := jetstream.New(nc)
	if err != nil {
		nc.Close()
		return nil, nil, nil, fmt.Errorf("jetstream: %w", err)
	}
	kv, err := js.KeyValue(ctx, wire.AgentsBucket)
	if err != nil {
		nc.Close()
		return nil, nil, nil, fmt.Errorf("bucket %s: %w", wire.AgentsBucket, err)
	}
	return js, kv, nc.Close, nil
}

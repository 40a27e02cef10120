package natsauth_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/barrage-dev/barrage/pkg/natsauth"
	"github.com/barrage-dev/barrage/pkg/natsembed"
	"github.com/barrage-dev/barrage/pkg/wire"
)

// TestAgentAccountLimits: the JetStream limits signed into the account
// JWT hold for an agent. Agent credentials carry a subscription limit and
// an optional payload limit, and a hostile agent that publishes snapshots
// without end is stopped at the account's disk limit, not the server's.
func TestAgentAccountLimits(t *testing.T) {
	t.Parallel()
	srv, keys, _ := natsembed.StartOperatorLimitedT(t, natsauth.AccountLimits{MemoryBytes: 1 << 20, DiskBytes: 256 << 10, Streams: 8, Consumers: 16})
	url := srv.URL()

	a := connectAgentWith(t, url, keys, "flood", natsauth.AgentOptions{Payload: 16 << 10})
	// Disk: 8 KiB snapshots until the account's 256 KiB are used up.
	body := make([]byte, 8<<10)
	var refused error
	for i := range 64 {
		if _, err := a.js.Publish(ctx(t), wire.SnapSubject(a.id, "run-1", uint32(i)), body); err != nil {
			refused = err
			break
		}
	}
	var apiErr *jetstream.APIError
	if !errors.As(refused, &apiErr) || apiErr.ErrorCode != 10002 {
		t.Errorf("64 x 8 KiB snapshots into a 256 KiB account: last error %v, want 10002 resource limits exceeded for account", refused)
	}

	// Subscriptions: the agent's JWT allows natsauth.DefaultAgentSubs.
	b := connectAgentWith(t, url, keys, "subs", natsauth.AgentOptions{})
	for range natsauth.DefaultAgentSubs + 1 {
		if _, err := b.nc.SubscribeSync(wire.ControlSubject("run-1")); err != nil {
			break
		}
	}
	_ = b.nc.Flush()
	waitViolation(t, b, "maximum subscriptions exceeded")

	// Payload: a message above the credential's 16 KiB is refused. The
	// server tells the client the credential's limit in an INFO after the
	// connection is authorised; a client that has it refuses the publish
	// itself, one that has not yet sends it, and the server answers with
	// an error and closes the connection. Either way the limit is the
	// credential's, not the server's 1 MiB default.
	c := connectAgentWith(t, url, keys, "big", natsauth.AgentOptions{Payload: 16 << 10})
	err := c.nc.Publish(wire.SnapSubject(c.id, "run-1", 0), make([]byte, 32<<10))
	if errors.Is(err, nats.ErrMaxPayload) {
		if got := c.nc.MaxPayload(); got != 16<<10 {
			t.Errorf("the client refused 32 KiB with a max payload of %d, want the credential's 16 KiB", got)
		}
		return
	}
	if err != nil {
		t.Fatalf("publish 32 KiB: %v", err)
	}
	_ = c.nc.Flush()
	waitViolation(t, c, "maximum payload")
}

// waitViolation waits until the agent's connection reports text.
func waitViolation(t *testing.T, a *agentConn, text string) {
	t.Helper()
	end := time.Now().Add(3 * time.Second)
	for time.Now().Before(end) {
		if strings.Contains(strings.ToLower(a.violations()), text) ||
			a.nc.LastError() != nil && strings.Contains(strings.ToLower(a.nc.LastError().Error()), text) {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Errorf("no %q error; errors: %s; last: %v", text, a.violations(), a.nc.LastError())
}

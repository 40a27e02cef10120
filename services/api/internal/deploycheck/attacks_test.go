package deploycheck

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/barrage-dev/barrage/pkg/natsauth"
	"github.com/barrage-dev/barrage/pkg/wire"
)

// slotConn is an agent connected with the credentials file of its slot,
// as issued by `nats-auth bootstrap`, and the permission violations the
// server sent it.
type slotConn struct {
	id string
	nc *nats.Conn
	js jetstream.JetStream

	mu   sync.Mutex
	errs []error
}

func connectSlot(t *testing.T, s *natsServer, agentsDir, slot string) *slotConn {
	t.Helper()
	path := filepath.Join(agentsDir, slot+".creds")
	file, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	_, id, err := natsauth.ParseCredentials(file)
	if err != nil {
		t.Fatal(err)
	}
	c := &slotConn{id: id}
	c.nc, err = nats.Connect("nats://"+s.addr, nats.UserCredentials(path),
		nats.CustomInboxPrefix(natsauth.InboxPrefix(id)),
		nats.ErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) {
			c.mu.Lock()
			c.errs = append(c.errs, err)
			c.mu.Unlock()
		}))
	if err != nil {
		t.Fatalf("%s connects: %v", slot, err)
	}
	t.Cleanup(c.nc.Close)
	if c.js, err = jetstream.New(c.nc); err != nil {
		t.Fatal(err)
	}
	return c
}

// violation waits for the server's permissions violation for op
// ("Publish" or "Subscription") on subject and returns it.
func (c *slotConn) violation(op, subject string) error {
	want := op + ` to "` + subject + `"`
	end := time.Now().Add(3 * time.Second)
	for time.Now().Before(end) {
		c.mu.Lock()
		for _, err := range c.errs {
			if errors.Is(err, nats.ErrPermissionViolation) && strings.Contains(err.Error(), want) {
				c.mu.Unlock()
				return err
			}
		}
		c.mu.Unlock()
		time.Sleep(20 * time.Millisecond)
	}
	return nil
}

func quick(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	t.Cleanup(cancel)
	return ctx
}

// TestCompromisedAgentRefused is issue #25's hostile agent: agent-1 of a
// `nats-auth bootstrap` (its own real credentials file) against a real
// nats-server on deploy/nats/nats-operator.conf tries each of the four
// attacks a shared agent user allowed, and the server refuses each with a
// permissions violation naming the subject; agent-2's assignment,
// heartbeat and the streams are untouched afterwards.
func TestCompromisedAgentRefused(t *testing.T) {
	t.Parallel()
	s, keysPath, agentsDir := startOperatorNATS(t, t.TempDir())
	keys, err := natsauth.Load(keysPath)
	if err != nil {
		t.Fatal(err)
	}
	apiCreds, err := keys.APIUser()
	if err != nil {
		t.Fatal(err)
	}
	apiNC, err := nats.Connect("nats://"+s.addr, nats.UserJWTAndSeed(apiCreds.JWT, string(apiCreds.Seed)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(apiNC.Close)
	api, err := jetstream.New(apiNC)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := wire.Setup(ctx, api); err != nil {
		t.Fatal(err)
	}
	if _, err := api.CreateOrUpdateConsumer(ctx, wire.SnapStream, jetstream.ConsumerConfig{
		Durable: wire.IngestConsumer, AckPolicy: jetstream.AckExplicitPolicy,
	}); err != nil {
		t.Fatal(err)
	}

	// The victim, agent-2, does its own work: its consumer, its heartbeat,
	// and the API gives it a secret assignment.
	victim := connectSlot(t, s, agentsDir, "agent-2")
	victimCons, err := victim.js.CreateOrUpdateConsumer(ctx, wire.AssignStream, jetstream.ConsumerConfig{
		Durable: wire.AgentConsumer(victim.id), FilterSubject: wire.AssignSubject(victim.id), AckPolicy: jetstream.AckExplicitPolicy,
	})
	if err != nil {
		t.Fatalf("agent-2's own consumer: %v", err)
	}
	victimKV, err := victim.js.KeyValue(ctx, wire.AgentsBucket)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := api.Publish(ctx, wire.AssignSubject(victim.id), []byte("Authorization: Bearer secret-of-agent-2")); err != nil {
		t.Fatal(err)
	}

	attacker := connectSlot(t, s, agentsDir, "agent-1")
	kv, err := attacker.js.KeyValue(ctx, wire.AgentsBucket)
	if err != nil {
		t.Fatalf("agent-1 binds the agents bucket: %v", err)
	}
	assign, err := attacker.js.Stream(ctx, wire.AssignStream)
	if err != nil {
		t.Fatalf("agent-1 reads the assignment stream's info: %v", err)
	}
	victimConsumer := wire.AgentConsumer(victim.id)
	// Heartbeats live wire.AgentTTL: agent-2 beats again before each
	// heartbeat attack, and its beat is checked right after.
	heartbeat := func() {
		t.Helper()
		if _, err := victimKV.Put(ctx, victim.id, []byte("beat of agent-2")); err != nil {
			t.Fatalf("agent-2's own heartbeat: %v", err)
		}
	}
	type attack struct {
		name    string
		op      string // Publish or Subscription
		subject string
		try     func() error
	}
	sub := func(subject string) func() error {
		return func() error {
			_, err := attacker.nc.SubscribeSync(subject)
			if err == nil {
				err = attacker.nc.Flush()
			}
			return err
		}
	}
	attacks := []attack{
		// (a) Read another agent's assignments.
		{"a: subscribe to agent-2's assignment subject", "Subscription", wire.AssignSubject(victim.id), sub(wire.AssignSubject(victim.id))},
		{"a: subscribe to every assignment", "Subscription", wire.AssignSubjects, sub(wire.AssignSubjects)},
		{"a: subscribe to agent-2's reply inbox", "Subscription", natsauth.InboxPrefix(victim.id) + ".>", sub(natsauth.InboxPrefix(victim.id) + ".>")},
		{"a: subscribe to every inbox", "Subscription", "_INBOX.>", sub("_INBOX.>")},
		{"a: pull from agent-2's consumer", "Publish", "$JS.API.CONSUMER.MSG.NEXT." + wire.AssignStream + "." + victimConsumer, func() error {
			_, err := attacker.nc.Request("$JS.API.CONSUMER.MSG.NEXT."+wire.AssignStream+"."+victimConsumer, []byte(`{"batch":1}`), 500*time.Millisecond)
			return err
		}},
		{"a: a consumer on agent-2's subject", "Publish",
			"$JS.API.CONSUMER.CREATE." + wire.AssignStream + "." + wire.AgentConsumer(attacker.id) + "." + wire.AssignSubject(victim.id), func() error {
				_, err := attacker.js.CreateOrUpdateConsumer(quick(t), wire.AssignStream, jetstream.ConsumerConfig{
					Durable: wire.AgentConsumer(attacker.id), FilterSubject: wire.AssignSubject(victim.id), AckPolicy: jetstream.AckExplicitPolicy,
				})
				return err
			}},
		{"a: read agent-2's assignment from the stream", "Publish", "$JS.API.STREAM.MSG.GET." + wire.AssignStream, func() error {
			_, err := assign.GetLastMsgForSubject(quick(t), wire.AssignSubject(victim.id))
			return err
		}},
		// (b) Publish snapshots under another agent's id.
		{"b: a snapshot as agent-2", "Publish", wire.SnapSubject(victim.id, "run-1", 0), func() error {
			_, err := attacker.js.Publish(quick(t), wire.SnapSubject(victim.id, "run-1", 0), []byte("forged"))
			return err
		}},
		// (c) Overwrite or delete another agent's heartbeat.
		{"c: overwrite agent-2's heartbeat", "Publish", "$KV." + wire.AgentsBucket + "." + victim.id, func() error {
			_, err := kv.Put(quick(t), victim.id, []byte("forged beat"))
			return err
		}},
		{"c: delete agent-2's heartbeat", "Publish", "$KV." + wire.AgentsBucket + "." + victim.id, func() error {
			return kv.Delete(quick(t), victim.id)
		}},
		{"c: purge the agents bucket", "Publish", "$JS.API.STREAM.PURGE.KV_" + wire.AgentsBucket, func() error {
			st, err := attacker.js.Stream(quick(t), "KV_"+wire.AgentsBucket)
			if err != nil {
				return err
			}
			return st.Purge(quick(t))
		}},
		// (d) Update or delete streams and consumers.
		{"d: update the assignment stream", "Publish", "$JS.API.STREAM.UPDATE." + wire.AssignStream, func() error {
			cfg := assign.CachedInfo().Config
			cfg.Subjects = append(cfg.Subjects, "tap.>")
			_, err := attacker.js.UpdateStream(quick(t), cfg)
			return err
		}},
		{"d: delete the snapshot stream", "Publish", "$JS.API.STREAM.DELETE." + wire.SnapStream, func() error {
			return attacker.js.DeleteStream(quick(t), wire.SnapStream)
		}},
		{"d: delete the API's ingest consumer", "Publish", "$JS.API.CONSUMER.DELETE." + wire.SnapStream + "." + wire.IngestConsumer, func() error {
			return attacker.js.DeleteConsumer(quick(t), wire.SnapStream, wire.IngestConsumer)
		}},
		{"d: update the API's ingest consumer", "Publish", "$JS.API.CONSUMER.CREATE." + wire.SnapStream + "." + wire.IngestConsumer, func() error {
			_, err := attacker.js.CreateOrUpdateConsumer(quick(t), wire.SnapStream, jetstream.ConsumerConfig{
				Durable: wire.IngestConsumer, AckPolicy: jetstream.AckNonePolicy,
			})
			return err
		}},
		{"d: delete agent-2's consumer", "Publish", "$JS.API.CONSUMER.DELETE." + wire.AssignStream + "." + victimConsumer, func() error {
			return attacker.js.DeleteConsumer(quick(t), wire.AssignStream, victimConsumer)
		}},
	}
	for _, a := range attacks {
		if strings.HasPrefix(a.name, "c:") {
			heartbeat()
		}
		err := a.try()
		if a.op == "Publish" && err == nil {
			t.Errorf("%s: the call succeeded, want it refused", a.name)
		}
		if v := attacker.violation(a.op, a.subject); v == nil {
			t.Errorf("%s: no permissions violation for %s to %q", a.name, a.op, a.subject)
		} else {
			t.Logf("%s: refused: %v", a.name, v)
		}
		if strings.HasPrefix(a.name, "c:") {
			if e, err := victimKV.Get(ctx, victim.id); err != nil || string(e.Value()) != "beat of agent-2" {
				t.Errorf("agent-2's heartbeat after %q: %v %v", a.name, e, err)
			}
		}
	}

	// Nothing of agent-2's was read, forged or lost.
	batch, err := victimCons.Fetch(1, jetstream.FetchMaxWait(2*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	got := 0
	for m := range batch.Messages() {
		got++
		if !strings.Contains(string(m.Data()), "secret-of-agent-2") {
			t.Errorf("agent-2 got %q", m.Data())
		}
	}
	if got != 1 {
		t.Errorf("agent-2 fetched %d assignments, want its one", got)
	}
	snaps, err := api.Stream(ctx, wire.SnapStream)
	if err != nil {
		t.Fatalf("the snapshot stream after the attacks: %v", err)
	}
	if info, err := snaps.Info(ctx); err != nil || info.State.Msgs != 0 {
		t.Errorf("snapshot stream: %v, %+v; want no forged snapshot", err, info)
	}
	if info, err := api.Stream(ctx, wire.AssignStream); err != nil || len(info.CachedInfo().Config.Subjects) != 1 {
		t.Errorf("assignment stream after the attacks: %v", err)
	}
	if _, err := api.Consumer(ctx, wire.SnapStream, wire.IngestConsumer); err != nil {
		t.Errorf("ingest consumer after the attacks: %v", err)
	}
}

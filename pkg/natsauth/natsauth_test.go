package natsauth_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/barrage-dev/barrage/pkg/natsauth"
	"github.com/barrage-dev/barrage/pkg/natsembed"
	"github.com/barrage-dev/barrage/pkg/wire"
)

// secured starts an embedded server in operator mode with fresh keys and
// returns its URL, the keys, and the API's JetStream with the streams set up.
func secured(t *testing.T) (string, natsauth.Keys, jetstream.JetStream) {
	t.Helper()
	srv, keys, js := natsembed.StartOperatorT(t)
	return srv.URL(), keys, js
}

func ctx(t *testing.T) context.Context {
	t.Helper()
	c, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	t.Cleanup(cancel)
	return c
}

// short bounds a call the server is expected to refuse: a refused
// request gets no reply.
func short(t *testing.T) context.Context {
	t.Helper()
	c, cancel := context.WithTimeout(context.Background(), time.Second)
	t.Cleanup(cancel)
	return c
}

// agentConn is one agent's connection and the permission errors the
// server sent it.
type agentConn struct {
	id string
	nc *nats.Conn
	js jetstream.JetStream

	mu   sync.Mutex
	errs []string
}

func (a *agentConn) violations() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return strings.Join(a.errs, "\n")
}

func connectAgent(t *testing.T, url string, keys natsauth.Keys, name string) *agentConn {
	t.Helper()
	return connectAgentWith(t, url, keys, name, natsauth.AgentOptions{})
}

func connectAgentWith(t *testing.T, url string, keys natsauth.Keys, name string, opts natsauth.AgentOptions) *agentConn {
	t.Helper()
	creds, _, err := keys.AgentUser(name, opts)
	if err != nil {
		t.Fatal(err)
	}
	file, err := creds.File()
	if err != nil {
		t.Fatal(err)
	}
	parsed, id, err := natsauth.ParseCredentials(file)
	if err != nil {
		t.Fatalf("parse credentials: %v", err)
	}
	a := &agentConn{id: id}
	a.nc, err = nats.Connect(url, nats.UserJWTAndSeed(parsed.JWT, string(parsed.Seed)),
		nats.CustomInboxPrefix(natsauth.InboxPrefix(id)),
		nats.ErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) {
			a.mu.Lock()
			a.errs = append(a.errs, err.Error())
			a.mu.Unlock()
		}))
	if err != nil {
		t.Fatalf("agent connect: %v", err)
	}
	t.Cleanup(a.nc.Close)
	if a.js, err = jetstream.New(a.nc); err != nil {
		t.Fatal(err)
	}
	return a
}

// TestAgentPermissions runs two agents on a real server in operator mode:
// each can do its own work and none of the other's.
func TestAgentPermissions(t *testing.T) {
	t.Parallel()
	url, keys, api := secured(t)
	a := connectAgent(t, url, keys, "agent-a")
	b := connectAgent(t, url, keys, "agent-b")
	if a.id == b.id {
		t.Fatalf("two credentials share the id %s", a.id)
	}
	for _, to := range []string{a.id, b.id} {
		if _, err := api.Publish(ctx(t), wire.AssignSubject(to), []byte("secret assignment for "+to)); err != nil {
			t.Fatalf("api publish assignment: %v", err)
		}
	}

	// What agent a may do.
	agents, err := a.js.KeyValue(ctx(t), wire.AgentsBucket)
	if err != nil {
		t.Fatalf("bind agents bucket: %v", err)
	}
	if _, err := agents.Put(ctx(t), a.id, []byte("beat")); err != nil {
		t.Errorf("own heartbeat: %v", err)
	}
	if _, err := a.js.Publish(ctx(t), wire.SnapSubject(a.id, "run-1", 0), []byte("snap")); err != nil {
		t.Errorf("own snapshot: %v", err)
	}
	cons, err := a.js.CreateOrUpdateConsumer(ctx(t), wire.AssignStream, jetstream.ConsumerConfig{
		Durable: wire.AgentConsumer(a.id), FilterSubject: wire.AssignSubject(a.id), AckPolicy: jetstream.AckExplicitPolicy,
	})
	if err != nil {
		t.Fatalf("own assignment consumer: %v", err)
	}
	batch, err := cons.Fetch(10, jetstream.FetchMaxWait(2*time.Second))
	if err != nil {
		t.Fatalf("fetch own assignments: %v", err)
	}
	var got []string
	for m := range batch.Messages() {
		got = append(got, string(m.Data()))
		if err := m.DoubleAck(ctx(t)); err != nil {
			t.Errorf("ack own assignment: %v", err)
		}
	}
	if want := "secret assignment for " + a.id; len(got) != 1 || got[0] != want {
		t.Errorf("agent a read %q, want only %q", got, want)
	}
	ctl, err := a.nc.SubscribeSync(wire.ControlSubject("run-1"))
	if err != nil {
		t.Fatal(err)
	}
	if err := a.nc.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := api.Conn().Publish(wire.ControlSubject("run-1"), []byte("stop")); err != nil {
		t.Fatal(err)
	}
	if m, err := ctl.NextMsg(2 * time.Second); err != nil || string(m.Data) != "stop" {
		t.Errorf("run control: %v %v", m, err)
	}

	// What agent a may not do: each is refused by the server.
	// Each is refused by the server (a permission violation naming the
	// subject); the request itself gets no reply and times out.
	var wantPub []string
	refused := func(what, subject string, err error) {
		t.Helper()
		if err == nil {
			t.Errorf("%s: allowed, want a permission error", what)
		}
		wantPub = append(wantPub, subject)
	}
	_, err = agents.Put(short(t), b.id, []byte("forged beat"))
	refused("put b's heartbeat", "$KV."+wire.AgentsBucket+"."+b.id, err)
	_, err = a.js.Publish(short(t), wire.SnapSubject(b.id, "run-1", 0), []byte("forged snap"))
	refused("publish a snapshot as b", wire.SnapSubject(b.id, "run-1", 0), err)
	create := "$JS.API.CONSUMER.CREATE." + wire.AssignStream + "."
	for _, c := range []struct{ name, filter string }{
		{wire.AgentConsumer(b.id), wire.AssignSubject(b.id)},
		{wire.AgentConsumer(a.id), wire.AssignSubject(b.id)},
		{wire.AgentConsumer(a.id), wire.AssignSubjects},
	} {
		_, err = a.js.CreateOrUpdateConsumer(short(t), wire.AssignStream, jetstream.ConsumerConfig{
			Durable: c.name, FilterSubject: c.filter, AckPolicy: jetstream.AckExplicitPolicy,
		})
		refused("consumer "+c.name+" on "+c.filter, create+c.name+"."+c.filter, err)
	}
	stream, err := api.Stream(ctx(t), wire.AssignStream)
	if err != nil {
		t.Fatal(err)
	}
	ownStream, err := a.js.Stream(ctx(t), wire.AssignStream)
	if err != nil {
		t.Fatalf("assignment stream info: %v", err)
	}
	_, err = ownStream.GetLastMsgForSubject(short(t), wire.AssignSubject(b.id))
	refused("read b's assignment from the stream", "$JS.API.STREAM.MSG.GET."+wire.AssignStream, err)
	err = a.js.DeleteStream(short(t), wire.SnapStream)
	refused("delete the snapshot stream", "$JS.API.STREAM.DELETE."+wire.SnapStream, err)
	_, err = a.js.CreateOrUpdateStream(short(t), jetstream.StreamConfig{Name: "TAP", Subjects: []string{"barrage.v1.assign.>"}})
	refused("create a stream over the assignments", "$JS.API.STREAM.UPDATE.TAP", err)
	v := a.violations()
	for _, subj := range wantPub {
		if !strings.Contains(v, `Publish to "`+subj+`"`) {
			t.Errorf("no permission violation for publishing to %s; violations:\n%s", subj, v)
		}
	}

	// Core subscriptions that would show others' traffic: the server
	// refuses them asynchronously.
	for _, subj := range []string{wire.AssignSubjects, "_INBOX.>", natsauth.InboxPrefix(b.id) + ".>", wire.SnapSubjects, "$KV." + wire.RunsBucket + ".>"} {
		if _, err := a.nc.SubscribeSync(subj); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.nc.Flush(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(3 * time.Second)
	for strings.Count(a.violations(), "Subscription to") < 5 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	v = a.violations()
	for _, subj := range []string{wire.AssignSubjects, "_INBOX.>", natsauth.InboxPrefix(b.id) + ".>", wire.SnapSubjects} {
		if !strings.Contains(v, `Subscription to "`+subj+`"`) {
			t.Errorf("subscribing to %s was not refused; violations:\n%s", subj, v)
		}
	}

	// Nothing of b's left the stream: b's assignment is still there for b.
	info, err := stream.Info(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	if info.State.Msgs != 1 {
		t.Errorf("assignment stream holds %d messages, want b's one", info.State.Msgs)
	}
}

// TestCredentialsRoundTrip checks the .creds form and the refusals of
// ParseCredentials.
func TestCredentialsRoundTrip(t *testing.T) {
	t.Parallel()
	keys, err := natsauth.Generate()
	if err != nil {
		t.Fatal(err)
	}
	creds, id, err := keys.AgentUser("load-1", natsauth.AgentOptions{})
	if err != nil {
		t.Fatal(err)
	}
	file, err := creds.File()
	if err != nil {
		t.Fatal(err)
	}
	got, gotID, err := natsauth.ParseCredentials(file)
	if err != nil || gotID != id || got.JWT != creds.JWT || !bytes.Equal(got.Seed, creds.Seed) {
		t.Fatalf("round trip: id %q (want %q), err %v", gotID, id, err)
	}
	api, err := keys.APIUser()
	if err != nil {
		t.Fatal(err)
	}
	apiFile, err := api.File()
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := natsauth.ParseCredentials(apiFile); err == nil || !strings.Contains(err.Error(), "not an agent's") {
		t.Errorf("the API's credentials as an agent's: err = %v", err)
	}
	if _, _, err := natsauth.ParseCredentials([]byte("not a creds file")); err == nil {
		t.Error("garbage parsed as credentials")
	}
	for _, bad := range []string{"", "-x", "a b", strings.Repeat("a", 64), "a/b"} {
		if _, _, err := keys.AgentUser(bad, natsauth.AgentOptions{}); err == nil {
			t.Errorf("agent name %q accepted", bad)
		}
	}
}

// TestKeysFile round-trips the keys file and refuses broken ones.
func TestKeysFile(t *testing.T) {
	t.Parallel()
	keys, err := natsauth.Generate()
	if err != nil {
		t.Fatal(err)
	}
	path := t.TempDir() + "/keys.json"
	if err := keys.Save(path); err != nil {
		t.Fatal(err)
	}
	if err := keys.Save(path); err == nil {
		t.Error("Save overwrote an existing keys file")
	}
	back, err := natsauth.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := keys.Account.PublicKey()
	b, _ := back.Account.PublicKey()
	if a != b {
		t.Errorf("account key %s after a round trip, want %s", b, a)
	}
	for name, text := range map[string]string{
		"not json":     "{",
		"missing seed": `{"operator_seed":"","system_account_seed":"","account_seed":""}`,
	} {
		if _, err := natsauth.Unmarshal([]byte(text)); err == nil {
			t.Errorf("%s: parsed", name)
		}
	}
	raw, err := keys.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	swapped := strings.Replace(string(raw), `"operator_seed"`, `"x"`, 1)
	if _, err := natsauth.Unmarshal([]byte(swapped)); err == nil || !errors.Is(err, err) || !strings.Contains(err.Error(), "operator_seed is missing") {
		t.Errorf("missing operator seed: err = %v", err)
	}
}

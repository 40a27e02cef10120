package dispatch

import (
	"context"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"google.golang.org/protobuf/proto"

	"github.com/barrage-dev/barrage/pkg/natsauth"
	"github.com/barrage-dev/barrage/pkg/natsembed"
	"github.com/barrage-dev/barrage/pkg/wire"
	barragev1 "github.com/barrage-dev/barrage/proto/barrage/v1"
)

// credentialed is an agent connected with credentials binding opts.
type credentialed struct {
	id    string
	creds natsauth.Credentials
	kv    jetstream.KeyValue
}

func connectCredentialed(t *testing.T, url string, keys natsauth.Keys, name string, opts natsauth.AgentOptions) credentialed {
	t.Helper()
	creds, id, err := keys.AgentUser(name, opts)
	if err != nil {
		t.Fatal(err)
	}
	nc, err := nats.Connect(url, nats.UserJWTAndSeed(creds.JWT, string(creds.Seed)), nats.CustomInboxPrefix(natsauth.InboxPrefix(id)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	kv, err := js.KeyValue(context.Background(), wire.AgentsBucket)
	if err != nil {
		t.Fatal(err)
	}
	return credentialed{id: id, creds: creds, kv: kv}
}

// beat writes hb under the agent's own key, the only one its credentials
// may write.
func (c credentialed) beat(t *testing.T, hb *barragev1.Heartbeat) {
	t.Helper()
	b, err := proto.Marshal(hb)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := c.kv.Put(ctx, c.id, b); err != nil {
		t.Fatalf("own heartbeat: %v", err)
	}
}

// TestLiveTrustsKeyAndCredential: with real agent credentials on a server
// in operator mode, each agent writes a heartbeat under its own key that
// lies. The dispatcher takes the agent's id from the key, its pool from its
// credential and caps its capacity by the credential and the server; a
// heartbeat naming another agent, or carrying another agent's or a
// foreign deployment's credential, is ignored.
func TestLiveTrustsKeyAndCredential(t *testing.T) {
	t.Parallel()
	srv, keys, js := natsembed.StartOperatorT(t)
	foreign, err := natsauth.Generate()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	d, err := New(ctx, Config{JS: js, AgentAccount: keys.AccountPublic(), MaxAgentCapacity: 8})
	if err != nil {
		t.Fatal(err)
	}
	pooled := connectCredentialed(t, srv.URL(), keys, "pooled", natsauth.AgentOptions{Pool: "team-a", Capacity: 2})
	plain := connectCredentialed(t, srv.URL(), keys, "plain", natsauth.AgentOptions{})
	impostor := connectCredentialed(t, srv.URL(), keys, "impostor", natsauth.AgentOptions{})
	thief := connectCredentialed(t, srv.URL(), keys, "thief", natsauth.AgentOptions{})
	forger := connectCredentialed(t, srv.URL(), keys, "forger", natsauth.AgentOptions{})
	forged, _, err := foreign.AgentUser("forged", natsauth.AgentOptions{Pool: "team-a", Capacity: 100})
	if err != nil {
		t.Fatal(err)
	}

	// Lies about pool and capacity.
	pooled.beat(t, &barragev1.Heartbeat{AgentId: pooled.id, Name: "pooled", Labels: map[string]string{"pool": "team-b", "zone": "eu"},
		Capacity: 100, Credential: pooled.creds.JWT})
	plain.beat(t, &barragev1.Heartbeat{AgentId: plain.id, Name: "plain", Labels: map[string]string{"pool": "team-a"}, Capacity: 50})
	// Ignored: another agent's id, another agent's credential, a credential
	// of another deployment's keys.
	impostor.beat(t, &barragev1.Heartbeat{AgentId: pooled.id, Name: "impostor", Capacity: 4})
	thief.beat(t, &barragev1.Heartbeat{AgentId: thief.id, Name: "thief", Capacity: 4, Credential: pooled.creds.JWT})
	forger.beat(t, &barragev1.Heartbeat{AgentId: forger.id, Name: "forger", Capacity: 4, Credential: forged.JWT})

	live, err := d.live(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]*barragev1.Heartbeat{}
	for _, hb := range live {
		got[hb.GetName()] = hb
	}
	if len(got) != 2 || got["pooled"] == nil || got["plain"] == nil {
		names := make([]string, 0, len(got))
		for n := range got {
			names = append(names, n)
		}
		t.Fatalf("the dispatcher sees %v, want pooled and plain only", names)
	}
	if hb := got["pooled"]; hb.GetAgentId() != pooled.id || hb.GetLabels()[PoolLabel] != "team-a" || hb.GetLabels()["zone"] != "eu" || hb.GetCapacity() != 2 {
		t.Errorf("pooled: id %s, labels %v, capacity %d; want its key's id, pool team-a from its credential, capacity 2",
			hb.GetAgentId(), hb.GetLabels(), hb.GetCapacity())
	}
	if hb := got["plain"]; hb.GetLabels()[PoolLabel] != "" || hb.GetCapacity() != 8 {
		t.Errorf("plain: labels %v, capacity %d; want no pool (its credential binds none) and the server's cap 8", hb.GetLabels(), hb.GetCapacity())
	}
	if only := inPools(live, []string{"team-a"}); len(only) != 1 || only[0].GetAgentId() != pooled.id {
		t.Errorf("agents of pool team-a: %v, want pooled alone", only)
	}
}

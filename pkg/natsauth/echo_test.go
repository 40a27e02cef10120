package natsauth_test

import (
	"testing"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/barrage-dev/barrage/pkg/natsauth"
	"github.com/barrage-dev/barrage/pkg/wire"
)

func connectEcho(t *testing.T, url string, keys natsauth.Keys, name string) jetstream.JetStream {
	t.Helper()
	creds, err := keys.EchoUser(name)
	if err != nil {
		t.Fatal(err)
	}
	nc, err := nats.Connect(url, nats.UserJWTAndSeed(creds.JWT, string(creds.Seed)),
		nats.CustomInboxPrefix(natsauth.EchoInboxPrefix(name)))
	if err != nil {
		t.Fatalf("echo connect: %v", err)
	}
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	return js
}

// TestEchoPermissions runs two managed echoes in operator mode: each
// registers itself and reads its own profile, and nothing of the other's.
func TestEchoPermissions(t *testing.T) {
	t.Parallel()
	url, keys, api := secured(t)
	profiles, err := api.KeyValue(ctx(t), wire.EchoProfilesBucket)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"echo-a", "echo-b"} {
		if _, err := profiles.Put(ctx(t), name, []byte("status=503:"+name)); err != nil {
			t.Fatalf("api put profile: %v", err)
		}
	}
	js := connectEcho(t, url, keys, "echo-a")
	echoes, err := js.KeyValue(ctx(t), wire.EchoesBucket)
	if err != nil {
		t.Fatalf("bind echoes bucket: %v", err)
	}
	if _, err := echoes.Put(ctx(t), "echo-a", []byte("{}")); err != nil {
		t.Errorf("own registration: %v", err)
	}
	mine, err := js.KeyValue(ctx(t), wire.EchoProfilesBucket)
	if err != nil {
		t.Fatalf("bind profiles bucket: %v", err)
	}
	e, err := mine.Get(ctx(t), "echo-a")
	if err != nil || string(e.Value()) != "status=503:echo-a" {
		t.Fatalf("own profile = %v, %v; want status=503:echo-a", e, err)
	}
	if _, err := echoes.Put(short(t), "echo-b", []byte("{}")); err == nil {
		t.Error("put echo-b's registration: allowed")
	}
	if _, err := mine.Get(short(t), "echo-b"); err == nil {
		t.Error("read echo-b's profile: allowed")
	}
	if _, err := mine.Put(short(t), "echo-a", []byte("status=200")); err == nil {
		t.Error("write own profile: allowed")
	}
	if got, err := profiles.Get(ctx(t), "echo-a"); err != nil || string(got.Value()) != "status=503:echo-a" {
		t.Errorf("profile after refused write = %v, %v", got, err)
	}
	if _, err := keys.EchoUser("bad name"); err == nil {
		t.Error("EchoUser accepted a name with a space")
	}
}

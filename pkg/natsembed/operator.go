package natsembed

import (
	"context"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/barrage-dev/barrage/pkg/natsauth"
	"github.com/barrage-dev/barrage/pkg/wire"
)

// StartOperatorT starts a server in operator mode with fresh keys, as
// StartT does, connects to it as the API user and sets up the contract's
// streams and buckets. It returns the server, the keys (to issue agent and
// echo credentials) and the API's JetStream; all stop when the test ends.
func StartOperatorT(t testing.TB) (*Server, natsauth.Keys, jetstream.JetStream) {
	t.Helper()
	return StartOperatorLimitedT(t, natsauth.DefaultAccountLimits())
}

// StartOperatorLimitedT is StartOperatorT with the Barrage account's
// JetStream use bounded by limits.
func StartOperatorLimitedT(t testing.TB, limits natsauth.AccountLimits) (*Server, natsauth.Keys, jetstream.JetStream) {
	t.Helper()
	keys, err := natsauth.Generate()
	if err != nil {
		t.Fatal(err)
	}
	trust, err := keys.TrustLimited(limits)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := Start(Options{DataDir: t.TempDir(), Port: -1, Trust: &trust})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Shutdown)
	api, err := keys.APIUser()
	if err != nil {
		t.Fatal(err)
	}
	nc, err := nats.Connect(srv.URL(), nats.UserJWTAndSeed(api.JWT, string(api.Seed)))
	if err != nil {
		t.Fatalf("natsembed: connect as the API: %v", err)
	}
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := wire.Setup(ctx, js); err != nil {
		t.Fatalf("natsembed: set up the streams: %v", err)
	}
	return srv, keys, js
}

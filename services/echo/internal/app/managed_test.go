package app

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/barrage-dev/barrage/pkg/natsembed"
	"github.com/barrage-dev/barrage/pkg/wire"
)

// managedNATS starts NATS in operator mode with the buckets set up, and
// returns its URL, the API's JetStream and an echo credentials file for name.
func managedNATS(t *testing.T, name string) (string, jetstream.JetStream, string) {
	t.Helper()
	srv, keys, js := natsembed.StartOperatorT(t)
	creds, err := keys.EchoUser(name)
	if err != nil {
		t.Fatal(err)
	}
	file, err := creds.File()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), name+".creds")
	if err := os.WriteFile(path, file, 0o600); err != nil {
		t.Fatal(err)
	}
	return srv.URL(), js, path
}

// waitRegistered polls the echo bucket until name's registration shows profile.
func waitRegistered(t *testing.T, js jetstream.JetStream, name, profile string) wire.EchoRegistration {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	kv, err := js.KeyValue(ctx, wire.EchoesBucket)
	if err != nil {
		t.Fatal(err)
	}
	var last wire.EchoRegistration
	for ctx.Err() == nil {
		if e, err := kv.Get(ctx, name); err == nil {
			if err := json.Unmarshal(e.Value(), &last); err != nil {
				t.Fatal(err)
			}
			if last.Profile == profile {
				return last
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("echo %s never registered with profile %q; last %+v", name, profile, last)
	return last
}

func putProfile(t *testing.T, js jetstream.JetStream, echo, name, content string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	kv, err := js.KeyValue(ctx, wire.EchoProfilesBucket)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(wire.EchoProfile{ProfileID: "id-" + name, Name: name, Content: content, ActivatedAt: time.Now()})
	if _, err := kv.Put(ctx, echo, b); err != nil {
		t.Fatal(err)
	}
}

// share503 sends n requests without a query and returns the share of 503s in percent.
func share503(t *testing.T, addr string, n int) float64 {
	t.Helper()
	got := 0
	for range n {
		resp, err := http.Get("http://" + addr + "/")
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
		if resp.StatusCode == http.StatusServiceUnavailable {
			got++
		}
	}
	return 100 * float64(got) / float64(n)
}

// TestManagedEchoProfiles: the echo registers with its addresses, applies
// the active profile as its defaults (a request's own query still wins),
// follows changes, and takes the profile up again after a restart.
func TestManagedEchoProfiles(t *testing.T) {
	t.Parallel()
	url, js, creds := managedNATS(t, "echo-t")
	managed := func(c *Config) {
		c.NATSURL, c.Creds, c.Name, c.Project = url, creds, "echo-t", "proj"
		c.GRPCAddr, c.TCPAddr, c.UDPAddr = "", "", ""
	}
	a := startApp(t, managed)
	reg := waitRegistered(t, js, "echo-t", "")
	_, port, _ := net.SplitHostPort(a.HTTPAddr())
	if reg.Project != "proj" || !slices.Contains(reg.Addrs, "127.0.0.1:"+port) {
		t.Fatalf("registration = %+v, want project proj and 127.0.0.1:%s", reg, port)
	}
	putProfile(t, js, "echo-t", "twenty", "status=503:20")
	waitRegistered(t, js, "echo-t", "twenty")
	if got := share503(t, a.HTTPAddr(), 500); got < 15 || got > 25 {
		t.Errorf("503 share with status=503:20 = %.1f %%, want 20 ± 5", got)
	}
	resp, err := http.Get("http://" + a.HTTPAddr() + "/?status=202")
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		t.Errorf("own query under a profile: %d, want 202", resp.StatusCode)
	}
	putProfile(t, js, "echo-t", "none", "status=503:0")
	waitRegistered(t, js, "echo-t", "none")
	if got := share503(t, a.HTTPAddr(), 200); got != 0 {
		t.Errorf("503 share with status=503:0 = %.1f %%, want 0", got)
	}

	// A second echo process started after the activation takes it up.
	putProfile(t, js, "echo-t", "all", "status=503")
	b := startApp(t, managed)
	waitRegistered(t, js, "echo-t", "all")
	if got := share503(t, b.HTTPAddr(), 50); got != 100 {
		t.Errorf("restarted echo: 503 share = %.1f %%, want 100", got)
	}
}

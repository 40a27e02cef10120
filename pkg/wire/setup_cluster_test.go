package wire_test

import (
	"context"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/barrage-dev/barrage/pkg/wire"
)

// freePorts reserves n distinct TCP ports on 127.0.0.1.
func freePorts(t *testing.T, n int) []int {
	t.Helper()
	var ports []int
	var ls []net.Listener
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	for _, l := range ls {
		_ = l.Close()
	}
	return ports
}

// startCluster starts three nats-servers with JetStream as one cluster,
// each with its own store, and returns the client URLs once JetStream has
// a meta leader.
func startCluster(t *testing.T) string {
	t.Helper()
	ports := freePorts(t, 6)
	var routes []string
	for i := range 3 {
		routes = append(routes, fmt.Sprintf("nats://127.0.0.1:%d", ports[3+i]))
	}
	var urls []string
	for i := range 3 {
		opts := &server.Options{
			ServerName: fmt.Sprintf("n%d", i), Host: "127.0.0.1", Port: ports[i],
			JetStream: true, StoreDir: t.TempDir(), NoSigs: true, NoLog: true,
			Cluster: server.ClusterOpts{Name: "barrage", Host: "127.0.0.1", Port: ports[3+i]},
			Routes:  server.RoutesFromStr(strings.Join(routes, ",")),
		}
		srv, err := server.NewServer(opts)
		if err != nil {
			t.Fatal(err)
		}
		go srv.Start()
		t.Cleanup(srv.Shutdown)
		if !srv.ReadyForConnections(10 * time.Second) {
			t.Fatalf("server %d not ready", i)
		}
		urls = append(urls, srv.ClientURL())
	}
	return strings.Join(urls, ",")
}

// TestSetupReplicatesInACluster: on a 3-node cluster, SetupWith(Replicas 3)
// makes every stream and bucket R3, scaling up those an agent's Setup had
// made R1 first, and an agent's later Setup leaves them at R3.
func TestSetupReplicatesInACluster(t *testing.T) {
	url := startCluster(t)
	nc, err := nats.Connect(url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	// The cluster elects its meta leader a moment after the servers start.
	for {
		actx, acancel := context.WithTimeout(ctx, 3*time.Second)
		err := wire.Setup(actx, js)
		acancel()
		if err == nil {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("setup on the cluster: %v", err)
		}
		t.Logf("setup: %v", err)
		time.Sleep(200 * time.Millisecond)
	}
	streams := []string{wire.AssignStream, wire.SnapStream}
	for _, b := range []string{wire.AgentsBucket, wire.RunsBucket, wire.EchoesBucket, wire.EchoProfilesBucket} {
		streams = append(streams, "KV_"+b)
	}
	replicas := func() map[string]int {
		got := map[string]int{}
		for _, name := range streams {
			s, err := js.Stream(ctx, name)
			if err != nil {
				t.Fatalf("stream %s: %v", name, err)
			}
			got[name] = s.CachedInfo().Config.Replicas
		}
		return got
	}
	for name, n := range replicas() {
		if n != 1 {
			t.Errorf("after Setup: %s has %d replicas, want 1", name, n)
		}
	}
	if err := wire.SetupWith(ctx, js, wire.SetupOptions{Replicas: 3}); err != nil {
		t.Fatalf("setup with 3 replicas: %v", err)
	}
	for name, n := range replicas() {
		if n != 3 {
			t.Errorf("after SetupWith(3): %s has %d replicas, want 3", name, n)
		}
	}
	s, err := js.Stream(ctx, wire.SnapStream)
	if err != nil {
		t.Fatal(err)
	}
	// Scaling up is asynchronous: the new peers catch up after the update.
	for {
		info, err := s.Info(ctx)
		if err == nil && info.Cluster != nil && info.Cluster.Leader != "" && len(info.Cluster.Replicas) == 2 &&
			info.Cluster.Replicas[0].Current && info.Cluster.Replicas[1].Current {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("snap stream never had a leader and 2 current replicas: %+v (%v)", info, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err := wire.Setup(ctx, js); err != nil {
		t.Fatal(err)
	}
	for name, n := range replicas() {
		if n != 3 {
			t.Errorf("after an agent's Setup: %s has %d replicas, want 3 still", name, n)
		}
	}
	if err := wire.SetupWith(ctx, js, wire.SetupOptions{Replicas: -1}); err == nil {
		t.Error("SetupWith(Replicas -1) succeeded, want an error")
	}
}

package deploycheck

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/compose-spec/compose-go/v2/loader"
	"github.com/compose-spec/compose-go/v2/types"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/barrage-dev/barrage/pkg/natsauth"
	"github.com/barrage-dev/barrage/pkg/wire"
	"github.com/barrage-dev/barrage/services/api/internal/app"
)

// clusterEnv is .env.example with the settings its "NATS cluster" section
// names for the nats-cluster profile.
func clusterEnv(t *testing.T) map[string]string {
	t.Helper()
	env := exampleEnv(t)
	example := mustRead(t, ".env.example")
	for k, v := range map[string]string{
		"COMPOSE_PROFILES":      "nats-cluster",
		"BARRAGE_NATS_CONF":     "nats-cluster.conf",
		"BARRAGE_NATS_SERVERS":  "nats://nats:4222,nats://nats-2:4222,nats://nats-3:4222",
		"BARRAGE_NATS_REPLICAS": "3",
	} {
		if !strings.Contains(example, "#   "+k+"="+v+"\n") {
			t.Errorf(".env.example does not show %s=%s for the cluster", k, v)
		}
		env[k] = v
	}
	return env
}

// TestComposeNATSClusterProfile: the nats-cluster profile adds nats-2 and
// nats-3, which with `nats` on deploy/nats/nats-cluster.conf are three
// nodes of their own names and stores, healthchecked; api and agents dial
// all three and the API asks for R3. Without the profile nothing changes
// (TestComposeServices).
func TestComposeNATSClusterProfile(t *testing.T) {
	t.Parallel()
	dir, err := filepath.Abs(root)
	if err != nil {
		t.Fatal(err)
	}
	p, err := loader.LoadWithContext(context.Background(), types.ConfigDetails{
		WorkingDir:  dir,
		ConfigFiles: []types.ConfigFile{{Filename: filepath.Join(dir, "docker-compose.yml")}},
		Environment: clusterEnv(t),
	}, func(o *loader.Options) { o.SetProjectName("barrage", true); o.Profiles = []string{"nats-cluster"} })
	if err != nil {
		t.Fatalf("docker-compose.yml with the nats-cluster profile: %v", err)
	}
	names, stores := map[string]bool{}, map[string]bool{}
	for _, svc := range []string{"nats", "nats-2", "nats-3"} {
		s, ok := p.Services[svc]
		if !ok {
			t.Fatalf("the nats-cluster profile has no service %s (services %v)", svc, p.ServiceNames())
		}
		if hc := s.HealthCheck; hc == nil || hc.Disable || !strings.Contains(strings.Join(hc.Test, " "), "/healthz") {
			t.Errorf("%s: healthcheck %+v, want /healthz", svc, hc)
		}
		if n := s.Environment["NATS_SERVER_NAME"]; n == nil || *n != svc {
			t.Errorf("%s: NATS_SERVER_NAME %v, want the service's name", svc, n)
		} else {
			names[*n] = true
		}
		var conf string
		for _, v := range s.Volumes {
			switch v.Target {
			case "/etc/nats/nats.conf":
				conf = v.Source
			case "/data":
				stores[v.Source] = true
			}
		}
		if filepath.Base(conf) != "nats-cluster.conf" {
			t.Errorf("%s runs %q, want deploy/nats/nats-cluster.conf", svc, conf)
		}
	}
	if len(names) != 3 || len(stores) != 3 {
		t.Errorf("server names %v and stores %v: want three of each", names, stores)
	}
	env := composeEnviron(t, "api")
	env = append(env, "BARRAGE_NATS_REPLICAS="+*p.Services["api"].Environment["BARRAGE_NATS_REPLICAS"],
		"NATS_URL="+*p.Services["api"].Environment["NATS_URL"])
	cfg, err := app.ParseConfig(nil, env, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.NATSReplicas != 3 || strings.Count(cfg.NATSURL, "nats://") != 3 {
		t.Errorf("api: replicas %d, NATS_URL %q; want 3 and the three nodes", cfg.NATSReplicas, cfg.NATSURL)
	}
	if u := p.Services["agent"].Environment["NATS_URL"]; u == nil || *u != cfg.NATSURL {
		t.Errorf("agent NATS_URL %v, want the api's %q", u, cfg.NATSURL)
	}
}

// TestNATSClusterConfRuns: three nats-servers on deploy/nats/nats-cluster.conf
// (ports and routes moved to free local ones, operator mode with the trust
// file nats-auth bootstrap writes) form one JetStream cluster, on which
// barrage-api's user makes every stream and bucket R3.
func TestNATSClusterConfRuns(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	_, keysPath, _ := startOperatorNATS(t, dir) // bootstrap: keys and trust file in dir/conf/auth
	text := mustRead(t, "deploy/nats/nats-cluster.conf")
	routes := []int{freePort(t), freePort(t), freePort(t)}
	for i, host := range []string{"nats", "nats-2", "nats-3"} {
		old := "nats-route://" + host + ":6222"
		if !strings.Contains(text, old) {
			t.Fatalf("nats-cluster.conf: no route %s", old)
		}
		text = strings.Replace(text, old, fmt.Sprintf("nats-route://127.0.0.1:%d", routes[i]), 1)
	}
	var urls []string
	for i, name := range []string{"nats", "nats-2", "nats-3"} {
		nodeText := strings.Replace(text, "listen: 0.0.0.0:6222", fmt.Sprintf("listen: 127.0.0.1:%d", routes[i]), 1)
		nodeDir := filepath.Join(dir, name)
		if err := os.MkdirAll(nodeDir, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(filepath.Join(dir, "conf", "auth"), filepath.Join(nodeDir, "auth")); err != nil {
			t.Fatal(err)
		}
		s := runNATSText(t, "deploy/nats/nats-cluster.conf", nodeText, nodeDir, []string{"NATS_SERVER_NAME=" + name})
		urls = append(urls, "nats://"+s.addr)
	}
	keys, err := natsauth.Load(keysPath)
	if err != nil {
		t.Fatal(err)
	}
	api, err := keys.APIUser()
	if err != nil {
		t.Fatal(err)
	}
	var nc *nats.Conn
	waitFor(t, 20*time.Second, func() error {
		nc, err = nats.Connect(strings.Join(urls, ","), nats.UserJWTAndSeed(api.JWT, string(api.Seed)))
		return err
	})
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, 30*time.Second, func() error { // until the cluster has elected its meta leader
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		defer cancel()
		return wire.SetupWith(ctx, js, wire.SetupOptions{Replicas: 3})
	})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, name := range []string{wire.SnapStream, wire.AssignStream, "KV_" + wire.RunsBucket} {
		s, err := js.Stream(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		if info := s.CachedInfo(); info.Config.Replicas != 3 || info.Cluster == nil || info.Cluster.Name != "barrage" {
			t.Errorf("%s: replicas %d, cluster %+v; want 3 in cluster barrage", name, info.Config.Replicas, info.Cluster)
		}
	}
}

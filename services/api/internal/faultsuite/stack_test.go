//go:build faults || soak

package faultsuite

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/barrage-dev/barrage/services/api/client"
)

// stack is one Barrage deployment of separate processes.
type stack struct {
	pg   *pgCluster
	nats *proc // the single nats-server, nil with stackConfig.natsCluster
	// natsNodes are the servers of a NATS cluster (stackConfig.natsCluster).
	natsNodes []*natsNode
	natsURL   string // comma-separated with a cluster
	apis      []*proc
	apiURL    string   // of the replica the helpers call, the first at start
	apiURLs   []string // of every replica
	token     string
	agents    []*proc
	// agentDebug holds each agent's pprof base URL and apiDebug the first
	// API replica's, with stackConfig.debug.
	agentDebug []string
	apiDebug   string
	echo       *proc
	echoURL    string
}

// stackConfig shapes a stack: how many API replicas and agents, the
// agents' capacity (default 2), whether agents serve pprof, extra
// environment of the API processes (later entries win), whether NATS is a
// three-node JetStream cluster (the API then asks for 3 replicas), whether
// the cluster's second and third nodes start only once the API has met the
// first alone and said it will retry its setup (natsQuorumLate), the
// address nats-server, Postgres (besides 127.0.0.1) and the echo listen on
// (default 127.0.0.1; a test host's rootIP makes them reachable from that
// host's namespace), and the test hosts the API replicas and the echo run
// on (default none: the root namespace; the echo then listens on
// listenHost, else on its host's address).
type stackConfig struct {
	replicas, agents, capacity int
	debug, natsCluster         bool
	natsQuorumLate             bool
	apiEnv                     []string
	listenHost                 string
	apiHost, echoOn            *testHost
}

// startStack starts Postgres, NATS, replicas API processes, n agents and
// the echo server, and waits until the agents are registered.
func startStack(t *testing.T, replicas, n int) *stack {
	t.Helper()
	return startStackWith(t, stackConfig{replicas: replicas, agents: n})
}

// startStackWith starts the stack cfg describes.
func startStackWith(t *testing.T, cfg stackConfig) *stack {
	t.Helper()
	replicas, n := cfg.replicas, cfg.agents
	if cfg.capacity == 0 {
		cfg.capacity = 2
	}
	if cfg.listenHost == "" {
		cfg.listenHost = "127.0.0.1"
	}
	apiIP, startAPI := "127.0.0.1", newProc
	if cfg.apiHost != nil {
		apiIP, startAPI = cfg.apiHost.ip, cfg.apiHost.proc
	}
	s := &stack{pg: newPG(t, cfg.listenHost)}
	if cfg.natsCluster {
		s.natsNodes, s.natsURL = newNATSCluster(t, cfg.natsQuorumLate)
		cfg.apiEnv = append([]string{"BARRAGE_NATS_REPLICAS=3"}, cfg.apiEnv...)
	} else {
		s.nats, s.natsURL = newNATS(t, cfg.listenHost)
	}
	token := strings.TrimSpace(output(t, bins.api, "token", "new"))
	secret := strings.TrimSpace(output(t, bins.api, "key", "new"))
	s.token = token
	for i := range replicas {
		port := freePort(t)
		apiEnv := cfg.apiEnv
		if cfg.debug && i == 0 {
			addr := "127.0.0.1:" + strconv.Itoa(freePort(t))
			apiEnv = append(slices.Clone(apiEnv), "BARRAGE_DEBUG_ADDR="+addr)
			s.apiDebug = "http://" + addr
		}
		api := startAPI(t, fmt.Sprintf("barrage-api-%d", i), bins.api, []string{"serve"}, append([]string{
			"DATABASE_URL=" + s.pg.url(), "NATS_URL=" + s.natsURL, "BARRAGE_LISTEN=" + net.JoinHostPort(apiIP, strconv.Itoa(port)),
			"BARRAGE_ADMIN_TOKEN=" + token, "BARRAGE_ADMIN_CREDENTIALS_FILE=" + filepath.Join(t.TempDir(), "admin-credentials"), "BARRAGE_SECRET_KEY=" + secret, "BARRAGE_RATE_LIMIT=0",
			"BARRAGE_LOG_FORMAT=json", "BARRAGE_DISPATCH_WAIT=20s", "BARRAGE_DB_MAX_CONNS=10",
			// One token opens every stream (the soak's 200 subscribers) and
			// every request: no edge limits (docs/security.md, "The HTTP edge").
			"BARRAGE_LOGIN_RATE_LIMIT=0", "BARRAGE_STREAMS_PER_CALLER=-1", "BARRAGE_STREAMS_PER_RUN=-1",
		}, apiEnv...))
		api.start(t)
		if cfg.natsQuorumLate && i == 0 {
			waitFor(t, 30*time.Second, api.name+" retrying its NATS setup", func() error {
				if len(api.jsonLines(setupRetryMsg)) == 0 {
					return fmt.Errorf("no %q in its log", setupRetryMsg)
				}
				return nil
			})
			startRest(t, s.natsNodes)
		}
		url := "http://" + net.JoinHostPort(apiIP, strconv.Itoa(port))
		waitFor(t, 60*time.Second, api.name+" ready", func() error { return s.ready(url) })
		s.apis = append(s.apis, api)
		s.apiURLs = append(s.apiURLs, url)
		if i == 0 {
			s.apiURL = url
		}
	}
	echoIP, startEcho := cfg.listenHost, newProc
	if cfg.echoOn != nil {
		echoIP, startEcho = cfg.echoOn.ip, cfg.echoOn.proc
	}
	echoAddr := net.JoinHostPort(echoIP, strconv.Itoa(freePort(t)))
	s.echo = startEcho(t, "barrage-echo", bins.echo, []string{"-http-addr", echoAddr,
		"-grpc-addr", "", "-tcp-addr", "", "-udp-addr", ""}, []string{"BARRAGE_LOG_FORMAT=json"})
	s.echo.start(t)
	s.echoURL = "http://" + echoAddr
	waitFor(t, 10*time.Second, "echo up", func() error {
		_, err := s.echoCount()
		return err
	})
	for i := range n {
		env := []string{
			"NATS_URL=" + s.natsURL, "BARRAGE_AGENT_NAME=" + fmt.Sprintf("agent-%d", i), "BARRAGE_LOG_FORMAT=json",
			"BARRAGE_AGENT_CAPACITY=" + strconv.Itoa(cfg.capacity),
		}
		if cfg.debug {
			addr := "127.0.0.1:" + strconv.Itoa(freePort(t))
			env = append(env, "BARRAGE_AGENT_DEBUG_ADDR="+addr)
			s.agentDebug = append(s.agentDebug, "http://"+addr)
		}
		a := newProc(t, fmt.Sprintf("agent-%d", i), bins.agent, []string{"serve"}, env)
		a.start(t)
		s.agents = append(s.agents, a)
	}
	waitFor(t, 30*time.Second, "agents registered", func() error {
		var list client.AgentList
		if err := s.get("/agents", &list); err != nil {
			return err
		}
		if len(list.Items) < n {
			return fmt.Errorf("%d agents registered, want %d", len(list.Items), n)
		}
		return nil
	})
	return s
}

func output(t *testing.T, bin string, args ...string) string {
	t.Helper()
	b, err := exec.Command(bin, args...).Output()
	if err != nil {
		t.Fatalf("%s %v: %v", bin, args, err)
	}
	return string(b)
}

// ready is nil when the API at url answers /readyz 200.
func (s *stack) ready(url string) error {
	resp, err := http.Get(url + "/readyz")
	if err != nil {
		return err
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("/readyz %d", resp.StatusCode)
	}
	return nil
}

// do calls the API; out receives a 2xx JSON answer.
func (s *stack) do(method, path string, body, out any) error {
	var rd io.Reader = http.NoBody
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, s.apiURL+"/api/v1"+path, rd)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+s.token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("%s %s: %d %s", method, path, resp.StatusCode, raw)
	}
	return json.Unmarshal(raw, out)
}

func (s *stack) get(path string, out any) error { return s.do(http.MethodGet, path, nil, out) }

// submit starts a run of the echo at qps for length on n agents.
func (s *stack) submit(t *testing.T, qps, n int, length time.Duration) client.Run {
	t.Helper()
	r, err := s.submitSpec(map[string]any{"url": s.echoURL + "/?delay=2ms", "qps": qps, "connections": 2 * n,
		"duration": length.String(), "agents": map[string]any{"count": n}})
	if err != nil {
		t.Fatalf("submit: %v", err)
	}
	return r
}

// submitSpec starts a run of spec in project default.
func (s *stack) submitSpec(spec map[string]any) (client.Run, error) {
	var r client.Run
	err := s.do(http.MethodPost, "/runs", map[string]any{"project": "default", "spec": spec}, &r)
	return r, err
}

// waitRunning waits until every shard of the run has sent a snapshot.
func (s *stack) waitRunning(t *testing.T, id string, n int) {
	t.Helper()
	waitFor(t, 30*time.Second, "run "+id+" running on every shard", func() error {
		var sh client.ShardList
		if err := s.get("/runs/"+id+"/shards", &sh); err != nil {
			return err
		}
		if len(sh.Items) != n {
			return fmt.Errorf("%d shards", len(sh.Items))
		}
		for _, x := range sh.Items {
			if x.Snapshots < 1 {
				return fmt.Errorf("a shard without snapshots")
			}
		}
		return nil
	})
}

// waitTerminal waits for the run's terminal state within within (the
// suite's bound: its deadline plus 30 s).
func (s *stack) waitTerminal(t *testing.T, id string, within time.Duration) client.Run {
	t.Helper()
	var r client.Run
	waitFor(t, within, "run "+id+" terminal", func() error {
		if err := s.get("/runs/"+id, &r); err != nil {
			return err
		}
		switch r.Status {
		case "completed", "failed", "canceled":
			return nil
		}
		return fmt.Errorf("status %s", r.Status)
	})
	return r
}

func (s *stack) shards(t *testing.T, id string) []client.RunShard {
	t.Helper()
	var sh client.ShardList
	if err := s.get("/runs/"+id+"/shards", &sh); err != nil {
		t.Fatal(err)
	}
	return sh.Items
}

// intervalTotal sums the run's per-second counts, page by page.
func (s *stack) intervalTotal(t *testing.T, id string) int64 {
	t.Helper()
	var n int64
	for from := 0; ; {
		var page client.IntervalPage
		if err := s.get(fmt.Sprintf("/runs/%s/intervals?limit=1000&from=%d", id, from), &page); err != nil {
			t.Fatal(err)
		}
		for i := range page.Items {
			n += page.Items[i].Count
		}
		if page.NextFrom == nil {
			return n
		}
		from = *page.NextFrom
	}
}

// echoCount reads how many requests the echo answered 200.
func (s *stack) echoCount() (int64, error) {
	resp, err := http.Get(s.echoURL + "/metrics")
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "barrage_echo_http_requests_total{") && strings.Contains(line, `code="200"`) {
			f := strings.Fields(line)
			v, err := strconv.ParseFloat(f[len(f)-1], 64)
			return int64(v), err
		}
	}
	return 0, nil
}

// agentCounts returns what each agent process said it counted for the
// run's shards ("shard finished" log lines), by shard index.
func (s *stack) agentCounts(id string) map[int]int64 {
	out := map[int]int64{}
	for _, a := range s.agents {
		for _, rec := range a.jsonLines("shard finished") {
			if rec["run"] == id {
				out[int(rec["shard"].(float64))] = int64(rec["count"].(float64))
			}
		}
	}
	return out
}

// checkLedger is the suite's invariant for shards that finished: the
// stored count of each done shard is what its agent counted, and the
// run's seconds add up to its result.
func (s *stack) checkLedger(t *testing.T, r client.Run) {
	t.Helper()
	counted := s.agentCounts(r.Id.String())
	var doneSum int64
	for _, sh := range s.shards(t, r.Id.String()) {
		if sh.Status != "done" {
			continue
		}
		doneSum += sh.Count
		if n, ok := counted[sh.Shard]; !ok || n != sh.Count {
			t.Errorf("shard %d (%s): stored %d, its agent counted %d (logged %v)", sh.Shard, sh.AgentName, sh.Count, n, ok)
		}
	}
	if r.Summary == nil {
		t.Fatalf("run %s has no summary", r.Id.String())
	}
	if !r.Degraded {
		if doneSum != r.Summary.Count {
			t.Errorf("done shards sum to %d, the result counts %d", doneSum, r.Summary.Count)
		}
		// Interval snapshots refused during an outage come back after the
		// ingester's retry delay, possibly after the finals ended the run:
		// the seconds must add up within the suite's 30 s bound.
		waitFor(t, 30*time.Second, "the run's seconds sum to its result", func() error {
			if got := s.intervalTotal(t, r.Id.String()); got != r.Summary.Count {
				return fmt.Errorf("the run's seconds sum to %d, its result counts %d: a snapshot was lost or counted twice", got, r.Summary.Count)
			}
			return nil
		})
	}
}

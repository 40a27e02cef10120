// Package promtest gives tests a real Prometheus server of their own:
// Start runs Debian's prometheus binary (the prometheus package, which
// .ci/run installs) on a free loopback port with the remote-write receiver
// on and nothing to scrape, its data in the test's temporary directory,
// and stops it when the test ends. Query evaluates PromQL through its HTTP
// API.
//
// It is for tests only. It never skips: without the binary the test fails
// and says how to install it.
package promtest

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// Server is a running Prometheus.
type Server struct {
	// URL is its base URL, http://127.0.0.1:port.
	URL string
}

// WriteURL is its remote-write endpoint.
func (s *Server) WriteURL() string { return s.URL + "/api/v1/write" }

// Start runs a Prometheus until t ends and waits until it is ready.
func Start(t testing.TB) *Server {
	t.Helper()
	bin, err := exec.LookPath("prometheus")
	if err != nil {
		t.Fatalf("promtest: no prometheus binary (apt-get install prometheus): %v", err)
	}
	dir := t.TempDir()
	cfg := filepath.Join(dir, "prometheus.yml")
	if err := os.WriteFile(cfg, []byte("global:\n  scrape_interval: 1m\nscrape_configs: []\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	addr := freeAddr(t)
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin, "--config.file="+cfg, //nolint:gosec // the prometheus on PATH, with arguments of this function's making
		"--storage.tsdb.path="+filepath.Join(dir, "data"),
		"--web.listen-address="+addr, "--web.enable-remote-write-receiver", "--log.level=warn")
	logs := &lockedBuffer{}
	cmd.Stdout, cmd.Stderr = logs, logs
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatalf("promtest: start prometheus: %v", err)
	}
	done := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(done)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cancel()
			<-done
		}
		cancel()
		if t.Failed() {
			t.Logf("prometheus logs:\n%s", logs.String())
		}
	})
	s := &Server{URL: "http://" + addr}
	end := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get(s.URL + "/-/ready")
		if err == nil {
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return s
			}
		}
		select {
		case <-done:
			t.Fatalf("promtest: prometheus exited:\n%s", logs.String())
		default:
		}
		if time.Now().After(end) {
			t.Fatalf("promtest: prometheus not ready after 30 s:\n%s", logs.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// Sample is one element of an instant vector.
type Sample struct {
	Labels map[string]string
	Value  float64
}

// Query evaluates an instant PromQL query now and returns its vector (a
// scalar comes back as one sample without labels).
func (s *Server) Query(t testing.TB, promql string) []Sample {
	t.Helper()
	resp, err := http.Get(s.URL + "/api/v1/query?" + url.Values{"query": {promql}}.Encode())
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct {
		Status string `json:"status"`
		Error  string `json:"error"`
		Data   struct {
			ResultType string          `json:"resultType"`
			Result     json.RawMessage `json:"result"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatalf("promtest: query %q: %v", promql, err)
	}
	if body.Status != "success" {
		t.Fatalf("promtest: query %q: %s", promql, body.Error)
	}
	switch body.Data.ResultType {
	case "scalar":
		var v [2]any
		if err := json.Unmarshal(body.Data.Result, &v); err != nil {
			t.Fatal(err)
		}
		return []Sample{{Value: parse(t, v[1])}}
	case "vector":
		var vec []struct {
			Metric map[string]string `json:"metric"`
			Value  [2]any            `json:"value"`
		}
		if err := json.Unmarshal(body.Data.Result, &vec); err != nil {
			t.Fatal(err)
		}
		out := make([]Sample, len(vec))
		for i, v := range vec {
			out[i] = Sample{Labels: v.Metric, Value: parse(t, v.Value[1])}
		}
		return out
	default:
		t.Fatalf("promtest: query %q gave a %s", promql, body.Data.ResultType)
		return nil
	}
}

// Value is the value of a query that must give exactly one sample.
func (s *Server) Value(t testing.TB, promql string) float64 {
	t.Helper()
	v := s.Query(t, promql)
	if len(v) != 1 {
		t.Fatalf("promtest: query %q gave %d samples, want 1: %v", promql, len(v), v)
	}
	return v[0].Value
}

func parse(t testing.TB, v any) float64 {
	t.Helper()
	str, ok := v.(string)
	if !ok {
		t.Fatalf("promtest: value %v is not a string", v)
	}
	f, err := strconv.ParseFloat(str, 64)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// freeAddr is a loopback address with a port free a moment ago.
func freeAddr(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

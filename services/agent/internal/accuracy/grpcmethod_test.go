//go:build accuracy

package accuracy_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/barrage-dev/barrage/services/agent/internal/cli"
	"github.com/barrage-dev/barrage/services/agent/internal/report"
)

// agentLoad runs `barrage-agent load -native-json FILE args...` and returns the exit
// code, stderr and, on success, the native result.
func agentLoad(t *testing.T, args ...string) (int, string, report.Result) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "result.json")
	var stdout, stderr strings.Builder
	argv := append([]string{"barrage-agent", "load", "-quiet", "-native-json", out}, args...)
	code := cli.Main(runCtx(t), argv, nil, &stdout, &stderr)
	var res report.Result
	if code == cli.ExitOK {
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &res); err != nil {
			t.Fatalf("result JSON: %v", err)
		}
	}
	return code, stderr.String(), res
}

// echoMetric reads one counter of barrage-echo's /metrics.
func echoMetric(t *testing.T, a echoAddrs, name string) int64 {
	t.Helper()
	m := regexp.MustCompile(`(?m)^` + name + ` (\d+)$`).FindStringSubmatch(get(t, "http://"+a.http+"/metrics"))
	if m == nil {
		t.Fatalf("no %s in barrage-echo's metrics", name)
	}
	n, _ := strconv.ParseInt(m[1], 10, 64)
	return n
}

// TestGRPCMethodAgainstEcho: -grpc-method calls the echo's Ping and health
// check by server reflection, with the JSON payload as the request; the codes
// are gRPC status names and the bytes the framed messages.
func TestGRPCMethodAgainstEcho(t *testing.T) {
	a := startEcho(t)
	const calls = 40
	tests := []struct {
		name, method, payload string
		code                  string
		errors                int64
		sent, received        int64 // per call; 0 = not checked
		pings                 int64 // pings the echo answered
	}{
		// seq=1 2 bytes + payload "hi" 4 bytes; the reply adds ts (10 bytes).
		{"ping", "fgrpc.PingServer/Ping", `{"seq": 1, "payload": "hi"}`, "OK", 0, 11, 21, calls},
		{"health", "grpc.health.v1.Health/Check", `{"service": "ping"}`, "OK", 0, 11, 7, 0},
		{"health whole server", "grpc.health.v1.Health/Check", ``, "OK", 0, 5, 7, 0},
		{"health unknown service", "grpc.health.v1.Health/Check", `{"service": "nope"}`, "NotFound", calls, 0, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pings := echoMetric(t, a, "barrage_echo_grpc_pings_total")
			args := []string{"-grpc-method", tt.method, "-qps", "0", "-c", "2", "-n", strconv.Itoa(calls)}
			if tt.payload != "" {
				args = append(args, "-payload", tt.payload)
			}
			code, stderr, res := agentLoad(t, append(args, a.grpc)...)
			if code != cli.ExitOK {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if res.Count != calls || res.RetCodes[tt.code] != calls || res.Errors != tt.errors || len(res.RetCodes) != 1 {
				t.Fatalf("count %d codes %v errors %d, want %d × %s", res.Count, res.RetCodes, res.Errors, calls, tt.code)
			}
			if tt.sent > 0 && (res.BytesSent != calls*tt.sent || res.BytesReceived != calls*tt.received) {
				t.Errorf("bytes sent %d received %d, want %d and %d", res.BytesSent, res.BytesReceived, calls*tt.sent, calls*tt.received)
			}
			if got := echoMetric(t, a, "barrage_echo_grpc_pings_total") - pings; got != tt.pings {
				t.Errorf("the echo answered %d pings, want %d", got, tt.pings)
			}
			if want := "GRPC Method " + tt.method; res.RunType != want {
				t.Errorf("run type %q, want %q", res.RunType, want)
			}
		})
	}
}

// TestGRPCMethodErrors: a malformed method or payload is a usage error (exit
// 2); a method the server does not have, or a payload that is not its request
// message, fails the run (exit 1) saying so, before any call is made.
func TestGRPCMethodErrors(t *testing.T) {
	a := startEcho(t)
	badFile := filepath.Join(t.TempDir(), "req.json")
	if err := os.WriteFile(badFile, []byte(`{"sequence": 1}`), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		exit int
		want string
	}{
		{"method shape", []string{"-grpc-method", "fgrpc.PingServer.Ping"}, cli.ExitUsage, "grpc.method"},
		{"payload not JSON", []string{"-grpc-method", "fgrpc.PingServer/Ping", "-payload", "seq=1"}, cli.ExitUsage, "payload: must be the request message as a JSON object"},
		{"no such method", []string{"-grpc-method", "fgrpc.PingServer/Pong"}, cli.ExitFailure, "service fgrpc.PingServer has no method Pong (it has Ping)"},
		{"no such service", []string{"-grpc-method", "fgrpc.Nope/Ping"}, cli.ExitFailure, "server reflection: NotFound"},
		{"payload field unknown", []string{"-grpc-method", "fgrpc.PingServer/Ping", "-payload-file", badFile}, cli.ExitFailure,
			`payload is not a valid fgrpc.PingMessage in JSON`},
		{"streaming method", []string{"-grpc-method", "grpc.health.v1.Health/Watch"}, cli.ExitFailure, "is a streaming method"},
	}
	pings := echoMetric(t, a, "barrage_echo_grpc_pings_total")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stderr, _ := agentLoad(t, append(tt.args, "-n", "5", a.grpc)...)
			if code != tt.exit || !strings.Contains(stderr, tt.want) {
				t.Fatalf("exit %d, stderr %q; want %d and %q", code, stderr, tt.exit, tt.want)
			}
		})
	}
	if got := echoMetric(t, a, "barrage_echo_grpc_pings_total"); got != pings {
		t.Errorf("failed runs made %d pings", got-pings)
	}
}

// TestGRPCMethodAgainstFortio: `fortio server` offers server reflection too,
// so -grpc-method calls its ping.
func TestGRPCMethodAgainstFortio(t *testing.T) {
	target := startFortioServer(t)
	code, stderr, res := agentLoad(t, "-grpc-method", "fgrpc.PingServer/Ping", "-payload", `{"seq": 7, "payload": "x"}`,
		"-qps", "0", "-c", "2", "-n", "30", target)
	if code != cli.ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if res.Count != 30 || res.RetCodes["OK"] != 30 || res.Errors != 0 || res.BytesSent != 30*(5+2+3) {
		t.Fatalf("count %d codes %v errors %d sent %d", res.Count, res.RetCodes, res.Errors, res.BytesSent)
	}
}

// TestGRPCStreams: -c 2 -s 4 opens 2 connections to the echo and keeps 8
// pings in flight: with a 50 ms ping delay, about 8 / 50 ms = 160 calls/s.
func TestGRPCStreams(t *testing.T) {
	a := startEcho(t)
	before := echoMetric(t, a, "barrage_echo_grpc_connections_total")
	code, stderr, res := agentLoad(t, "-grpc", "-ping", "-grpc-ping-delay", "50ms", "-c", "2", "-s", "4",
		"-qps", "0", "-t", "2s", a.grpc)
	if code != cli.ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if got := echoMetric(t, a, "barrage_echo_grpc_connections_total") - before; got != 2 {
		t.Errorf("the echo accepted %d gRPC connections, want 2", got)
	}
	if res.Errors != 0 || res.RetCodes["SERVING"] != res.Count || res.Connections != 2 {
		t.Fatalf("codes %v errors %d connections %d", res.RetCodes, res.Errors, res.Connections)
	}
	t.Logf("-c 2 -s 4, 50 ms pings: %.1f calls/s, %d connections", res.ActualQPS, res.Connections)
	// The ceiling is exact (8 callers, each call ≥ 50 ms); the floor leaves
	// room for a loaded machine, yet is well above what 2 callers reach (40/s).
	const want = 8 / 0.050
	if res.ActualQPS > 1.05*want || res.ActualQPS < 0.6*want {
		t.Errorf("%.1f calls/s, want about %.0f (2 connections × 4 streams / 50 ms)", res.ActualQPS, want)
	}
	var stdout, errOut strings.Builder
	_ = cli.Main(context.Background(), []string{"barrage-agent", "load", "-quiet", "-format", "fortio", "-grpc", "-c", "2", "-s", "3",
		"-n", "12", "-qps", "0", a.grpc}, nil, &stdout, &errOut)
	var f struct{ NumThreads, SocketCount, Streams int }
	if err := json.Unmarshal([]byte(stdout.String()), &f); err != nil || f.NumThreads != 6 || f.SocketCount != 2 || f.Streams != 3 {
		t.Errorf("fortio JSON NumThreads %d SocketCount %d Streams %d (%v), want 6, 2, 3", f.NumThreads, f.SocketCount, f.Streams, err)
	}
}

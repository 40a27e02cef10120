package grpcclient

import (
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
)

// TestMethod calls unary methods found by server reflection: the request is
// the JSON payload, the code the gRPC status, and the bytes the framed
// messages.
func TestMethod(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		method  string
		payload string
		want    codes.Code
		// Framed sizes: 5 + the protobuf encoding; 0 = not checked.
		wantSent, wantReceived int64
	}{
		// seq=1 is 2 bytes, payload "hi" 4; the reply adds ts (1 + 9 bytes).
		{"ping", "fgrpc.PingServer/Ping", `{"seq": 1, "payload": "hi"}`, codes.OK, 11, 21},
		{"ping leading slash, JSON names", "/fgrpc.PingServer/Ping", `{"seq": "1", "delayNanos": 0, "payload": "hi"}`, codes.OK, 11, 21},
		// Request "" encodes to nothing; response status=1 to 2 bytes.
		{"health", "grpc.health.v1.Health/Check", "", codes.OK, 5, 7},
		{"health service", "grpc.health.v1.Health/Check", `{"service": "ping"}`, codes.OK, 11, 7},
		{"health unknown service", "grpc.health.v1.Health/Check", `{"service": "nope"}`, codes.NotFound, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ts := startTestServer(t, serverOptions{})
			f, c := mustClient(t, Options{Target: ts.addr, Mode: ModeMethod, Method: tt.method, Payload: tt.payload})
			for i := range 3 {
				res := c.Do(t.Context())
				if res.Code != int32(tt.want) || res.OK != (tt.want == codes.OK) {
					t.Fatalf("call %d: %s (OK %v), want %s", i, f.CodeName(res.Code), res.OK, tt.want)
				}
				if res.Sent != tt.wantSent || res.Received != tt.wantReceived {
					t.Errorf("call %d: sent %d received %d, want %d %d", i, res.Sent, res.Received, tt.wantSent, tt.wantReceived)
				}
			}
			if got := f.CodeName(int32(tt.want)); got != tt.want.String() {
				t.Errorf("CodeName = %q, want %q", got, tt.want.String())
			}
		})
	}
}

// TestMethodRequestContent: the server receives the message the JSON says,
// on every call, and the method is looked up once per factory whatever the
// number of clients.
func TestMethodRequestContent(t *testing.T) {
	t.Parallel()
	ts := startTestServer(t, serverOptions{})
	f, err := New(Options{Target: ts.addr, Mode: ModeMethod, Method: "fgrpc.PingServer/Ping",
		Payload: `{"seq": 42, "payload": "héllo"}`, Streams: 2})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 4 {
		c, err := f.NewClient(t.Context(), i)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = c.Close() })
		for range 2 {
			if res := c.Do(t.Context()); !res.OK {
				t.Fatalf("client %d: %s", i, f.CodeName(res.Code))
			}
		}
	}
	seqs, _ := ts.ping.received()
	ts.ping.mu.Lock()
	payloads := append([]string(nil), ts.ping.payloads...)
	ts.ping.mu.Unlock()
	if len(seqs) != 8 {
		t.Fatalf("server got %d pings, want 8", len(seqs))
	}
	for i := range seqs {
		if seqs[i] != 42 || payloads[i] != "héllo" {
			t.Fatalf("ping %d: seq %d payload %q, want 42 and héllo", i, seqs[i], payloads[i])
		}
	}
	if got := ts.reflections.Load(); got != 1 {
		t.Errorf("%d reflection streams for 4 clients, want 1", got)
	}
	if got := ts.accepted.Load(); got != 2 {
		t.Errorf("server accepted %d connections for 4 clients of 2 streams, want 2", got)
	}
	if got := f.RunType(); got != "GRPC Method fgrpc.PingServer/Ping" {
		t.Errorf("RunType %q", got)
	}
}

// TestMethodErrors: a method the server does not have, a payload that is not
// its request message, a streaming method and a server without reflection
// fail NewClient with a message saying so.
func TestMethodErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name         string
		method       string
		payload      string
		noReflection bool
		want         string
	}{
		{name: "unknown method", method: "fgrpc.PingServer/Pong", want: "service fgrpc.PingServer has no method Pong (it has Ping)"},
		{name: "unknown service", method: "fgrpc.Nope/Ping", want: "grpc method fgrpc.Nope/Ping: server reflection: NotFound"},
		{name: "unknown field", method: "fgrpc.PingServer/Ping", payload: `{"sequence": 1}`,
			want: `payload is not a valid fgrpc.PingMessage in JSON`},
		{name: "wrong type", method: "fgrpc.PingServer/Ping", payload: `{"seq": "one"}`, want: "payload is not a valid fgrpc.PingMessage"},
		{name: "not JSON", method: "grpc.health.v1.Health/Check", payload: `service=x`, want: "payload is not a valid grpc.health.v1.HealthCheckRequest"},
		{name: "streaming", method: "grpc.health.v1.Health/Watch", want: "grpc method grpc.health.v1.Health/Watch: is a streaming method"},
		{name: "no reflection", method: "fgrpc.PingServer/Ping", noReflection: true, want: "does not offer server reflection"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ts := startTestServer(t, serverOptions{noReflection: tt.noReflection})
			f, err := New(Options{Target: ts.addr, Mode: ModeMethod, Method: tt.method, Payload: tt.payload})
			if err != nil {
				t.Fatal(err)
			}
			for range 2 { // the error is kept: the second client fails alike
				c, err := f.NewClient(t.Context(), 0)
				if err == nil {
					_ = c.Close()
					t.Fatal("NewClient succeeded")
				}
				if !strings.Contains(err.Error(), tt.want) {
					t.Fatalf("NewClient: %v, want an error containing %q", err, tt.want)
				}
			}
			if seqs, _ := ts.ping.received(); len(seqs) != 0 {
				t.Errorf("the server got %d pings", len(seqs))
			}
			if n := f.pool.open(); n != 0 {
				t.Errorf("%d connections left open by failed clients", n)
			}
		})
	}
}

// TestMethodUnreachable: a server that is down fails the lookup, with the
// reason, within the timeout.
func TestMethodUnreachable(t *testing.T) {
	t.Parallel()
	f, err := New(Options{Target: closedPort(t), Mode: ModeMethod, Method: "fgrpc.PingServer/Ping"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.NewClient(t.Context(), 0)
	if err == nil || !strings.Contains(err.Error(), "server reflection: rpc error: code = Unavailable") {
		t.Fatalf("NewClient: %v, want Unavailable from server reflection", err)
	}
}

package grpcclient

import (
	"slices"
	"strings"
	"testing"
	"time"
)

func TestDo(t *testing.T) {
	t.Parallel()
	const delay = 20 * time.Millisecond
	tests := []struct {
		name   string
		server string // "plain", "tls" or "down"
		opts   Options
		want   int32
		// Framed message sizes: 5 + the protobuf encoding.
		wantSent, wantReceived int64
		minDuration            time.Duration
	}{
		// Request "" encodes to nothing; response status=1 to 2 bytes.
		{name: "health server", server: "plain", want: CodeServing, wantSent: 5, wantReceived: 7},
		{name: "health service", server: "plain", opts: Options{Service: "ping"}, want: CodeServing, wantSent: 11, wantReceived: 7},
		{name: "health not serving", server: "plain", opts: Options{Service: "down"}, want: CodeError, wantSent: 11, wantReceived: 7},
		{name: "health unknown service", server: "plain", opts: Options{Service: "nope"}, want: CodeError},
		{name: "health server down", server: "down", want: CodeError},
		// seq 2 bytes + ts 10 bytes, echoed with the server's ts.
		{name: "ping", server: "plain", opts: Options{Mode: ModePing}, want: CodeServing, wantSent: 17, wantReceived: 17},
		// + payload 7 bytes + delayNanos 5 bytes.
		{
			name: "ping delay and payload", server: "plain", opts: Options{Mode: ModePing, PingDelay: delay, Payload: "hello"},
			want: CodeServing, wantSent: 29, wantReceived: 29, minDuration: delay,
		},
		{name: "ping timeout", server: "plain", opts: Options{Mode: ModePing, PingDelay: time.Minute, Timeout: 50 * time.Millisecond}, want: CodeError},
		{name: "ping server down", server: "down", opts: Options{Mode: ModePing}, want: CodeError},
		{name: "tls insecure", server: "tls", opts: Options{Insecure: true}, want: CodeServing, wantSent: 5, wantReceived: 7},
		{name: "tls unknown authority", server: "tls", opts: Options{TLS: true}, want: CodeError},
		{name: "plaintext to tls server", server: "tls", want: CodeError},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			opts := tt.opts
			switch tt.server {
			case "plain":
				opts.Target, _ = startServer(t, nil)
			case "tls":
				opts.Target, _ = startServer(t, selfSigned(t))
			default:
				opts.Target = closedPort(t)
			}
			f, c := mustClient(t, opts)
			for i := range 3 {
				start := time.Now()
				res := c.Do(t.Context())
				took := time.Since(start)
				if res.Code != tt.want || res.OK != (tt.want == CodeServing) {
					t.Fatalf("request %d: %s (OK %v), want %s", i, f.CodeName(res.Code), res.OK, f.CodeName(tt.want))
				}
				if res.Sent != tt.wantSent || res.Received != tt.wantReceived {
					t.Errorf("request %d: sent %d received %d, want %d %d", i, res.Sent, res.Received, tt.wantSent, tt.wantReceived)
				}
				if took < tt.minDuration {
					t.Errorf("request %d took %v, want at least %v", i, took, tt.minDuration)
				}
			}
		})
	}
}

func TestPingSequence(t *testing.T) {
	t.Parallel()
	addr, srv := startServer(t, nil)
	f, c := mustClient(t, Options{Target: addr, Mode: ModePing})
	before := time.Now().UnixNano()
	for i := range 3 {
		if res := c.Do(t.Context()); !res.OK {
			t.Fatalf("ping %d: %s", i, f.CodeName(res.Code))
		}
	}
	after := time.Now().UnixNano()
	// Another connection of the same factory counts from 1 again.
	other, err := f.NewClient(t.Context(), 1)
	if err != nil {
		t.Fatalf("NewClient: %v", err)
	}
	defer other.Close()
	if res := other.Do(t.Context()); !res.OK {
		t.Fatalf("ping on connection 1: %s", f.CodeName(res.Code))
	}
	seqs, ts := srv.received()
	if want := []int64{1, 2, 3, 1}; !slices.Equal(seqs, want) {
		t.Errorf("server saw seq %v, want %v", seqs, want)
	}
	for i, v := range ts[:3] {
		if v < before || v > after {
			t.Errorf("ping %d: ts %d not the send time (between %d and %d)", i, v, before, after)
		}
	}
}

func TestCloseInterruptsDo(t *testing.T) {
	t.Parallel()
	addr, srv := startServer(t, nil)
	f, c := mustClient(t, Options{Target: addr, Mode: ModePing, PingDelay: time.Minute, Timeout: 2 * time.Minute})
	done := make(chan int32, 1)
	go func() { done <- c.Do(t.Context()).Code }()
	select {
	case <-srv.got:
	case <-time.After(5 * time.Second):
		t.Fatal("the ping did not reach the server")
	}
	if err := c.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	select {
	case code := <-done:
		if code != CodeError {
			t.Errorf("interrupted Do: %s, want ERROR", f.CodeName(code))
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Close did not interrupt Do")
	}
	if res := c.Do(t.Context()); res.Code != CodeError {
		t.Errorf("Do after Close: %s, want ERROR", f.CodeName(res.Code))
	}
	if err := c.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

// TestMetadata: the metadata goes with every call, in every mode, with its
// name in lower case.
func TestMetadata(t *testing.T) {
	t.Parallel()
	ts := startTestServer(t, serverOptions{})
	md := []Header{{"X-Tenant", "a"}, {"x-tenant", "b"}, {"Host", "svc.test"}}
	for _, opts := range []Options{
		{Target: ts.addr, Mode: ModePing, Metadata: md},
		{Target: ts.addr, Mode: ModeMethod, Method: "fgrpc.PingServer/Ping", Metadata: md},
	} {
		f, c := mustClient(t, opts)
		for range 2 {
			if res := c.Do(t.Context()); !res.OK {
				t.Fatalf("%s: %s", opts.Mode, f.CodeName(res.Code))
			}
		}
	}
	ts.ping.mu.Lock()
	defer ts.ping.mu.Unlock()
	if want := []string{"a,b", "a,b", "a,b", "a,b"}; !slices.Equal(ts.ping.tenants, want) {
		t.Fatalf("x-tenant of each ping %q, want %q", ts.ping.tenants, want)
	}
	if want := []string{"svc.test", "svc.test", "svc.test", "svc.test"}; !slices.Equal(ts.ping.authorities, want) {
		t.Fatalf(":authority of each ping %q, want %q", ts.ping.authorities, want)
	}
}

func TestRunType(t *testing.T) {
	t.Parallel()
	tests := []struct {
		opts Options
		want string
	}{
		{Options{}, "GRPC Health for ''"},
		{Options{Service: "ping"}, "GRPC Health for 'ping'"},
		{Options{Mode: ModePing}, "GRPC Ping"},
		{Options{Mode: ModePing, PingDelay: time.Second}, "GRPC Ping Delay=1s"},
		{Options{Mode: ModePing, PingDelay: 250 * time.Millisecond, Payload: "abc"}, "GRPC Ping Delay=250ms PayloadLength=3"},
		{Options{Mode: ModePing, Payload: "abc"}, "GRPC Ping PayloadLength=3"},
		{Options{Mode: ModeMethod, Method: "/a.B/C", Payload: "{}"}, "GRPC Method a.B/C"},
	}
	for _, tt := range tests {
		tt.opts.Target = "localhost:8079"
		f, err := New(tt.opts)
		if err != nil {
			t.Fatalf("New(%+v): %v", tt.opts, err)
		}
		if got := f.RunType(); got != tt.want {
			t.Errorf("RunType %q, want %q", got, tt.want)
		}
	}
	f, _ := New(Options{Target: "localhost:8079"})
	for code, want := range map[int32]string{CodeServing: "SERVING", CodeError: "ERROR", 7: "7"} {
		if got := f.CodeName(code); got != want {
			t.Errorf("CodeName(%d) = %q, want %q", code, got, want)
		}
	}
}

func TestNewRejects(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		opts Options
		want string
	}{
		{"no target", Options{}, "target"},
		{"no port", Options{Target: "localhost"}, "target"},
		{"mode", Options{Target: "localhost:1", Mode: "stream"}, "mode"},
		{"payload in health mode", Options{Target: "localhost:1", Payload: "x"}, "ping mode only"},
		{"delay in health mode", Options{Target: "localhost:1", PingDelay: time.Second}, "ping mode only"},
		{"service in ping mode", Options{Target: "localhost:1", Mode: ModePing, Service: "x"}, "health mode only"},
		{"negative delay", Options{Target: "localhost:1", Mode: ModePing, PingDelay: -time.Second}, "negative"},
		{"reserved metadata", Options{Target: "localhost:1", Metadata: []Header{{"grpc-timeout", "1S"}}}, `metadata "grpc-timeout"`},
		{"metadata name", Options{Target: "localhost:1", Metadata: []Header{{"X!", "1"}}}, `metadata "X!"`},
		{"negative streams", Options{Target: "localhost:1", Streams: -1}, "streams -1"},
		{"method in health mode", Options{Target: "localhost:1", Method: "a.B/C"}, "method mode only"},
		{"method mode without method", Options{Target: "localhost:1", Mode: ModeMethod}, "want package.Service/Method"},
		{"method shape", Options{Target: "localhost:1", Mode: ModeMethod, Method: "a.B.C"}, `method "a.B.C"`},
		{"service in method mode", Options{Target: "localhost:1", Mode: ModeMethod, Method: "a.B/C", Service: "x"}, "method mode"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := New(tt.opts)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("New: %v, want an error about %q", err, tt.want)
			}
		})
	}
}

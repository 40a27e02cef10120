package netclient

import (
	"net"
	"strings"
	"testing"
	"time"
)

func TestDo(t *testing.T) {
	t.Parallel()
	fixed := []byte("hello, echo")
	const gen = GeneratedPayloadSize
	tests := []struct {
		name    string
		network string
		start   func(tb testing.TB) string
		payload []byte
		timeout time.Duration
		want    int32
		// wantSent and wantReceived are the bytes of each request.
		wantSent, wantReceived int64
	}{
		{"tcp echo fixed", "tcp", tcpWith(echoTCP), fixed, 0, CodeOK, 11, 11},
		{"tcp echo generated", "tcp", tcpWith(echoTCP), nil, 0, CodeOK, gen, gen},
		{"tcp wrong bytes", "tcp", tcpWith(func(c net.Conn) { serveTCP(c, flipFirst) }), nil, 0, CodeMismatch, gen, gen},
		{"tcp short then close", "tcp", tcpWith(onceTCP(gen, half)), nil, 0, CodeShortRead, gen, gen / 2},
		{"tcp close without reply", "tcp", tcpWith(onceTCP(gen, none)), nil, 0, CodeShortRead, gen, 0},
		{"tcp no reply", "tcp", tcpWith(blackHoleTCP(nil)), nil, 50 * time.Millisecond, CodeTimeout, gen, 0},
		{"tcp closed port", "tcp", closedWith("tcp"), nil, 0, CodeRefused, 0, 0},
		{"udp echo fixed", "udp", udpWith(same), fixed, 0, CodeOK, 11, 11},
		{"udp echo generated", "udp", udpWith(same), nil, 0, CodeOK, gen, gen},
		{"udp wrong bytes", "udp", udpWith(flipFirst), nil, 0, CodeMismatch, gen, gen},
		{"udp short datagram", "udp", udpWith(half), nil, 0, CodeShortRead, gen, gen / 2},
		{"udp long datagram", "udp", udpWith(longer), nil, 0, CodeMismatch, gen, gen + 1},
		{"udp black hole", "udp", udpWith(none), nil, 50 * time.Millisecond, CodeTimeout, gen, 0},
		{"udp closed port", "udp", closedWith("udp"), fixed, 0, CodeRefused, 11, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := mustNew(t, Options{Network: tt.network, Address: tt.start(t), Payload: tt.payload, Timeout: tt.timeout}, 3)
			for i := range 3 {
				res := c.Do(t.Context())
				if res.Code != tt.want || res.OK != (tt.want == CodeOK) {
					t.Fatalf("request %d: code %d (%s) OK %v, want %d (%s)", i, res.Code,
						c.f.CodeName(res.Code), res.OK, tt.want, c.f.CodeName(tt.want))
				}
				if res.Sent != tt.wantSent || res.Received != tt.wantReceived {
					t.Fatalf("request %d: sent %d received %d, want %d %d", i, res.Sent, res.Received, tt.wantSent, tt.wantReceived)
				}
			}
		})
	}
}

func tcpWith(handle func(net.Conn)) func(testing.TB) string {
	return func(tb testing.TB) string {
		addr, _ := startTCP(tb, handle)
		return addr
	}
}

func udpWith(reply func([]byte) []byte) func(testing.TB) string {
	return func(tb testing.TB) string { return startUDP(tb, reply) }
}

func closedWith(network string) func(testing.TB) string {
	return func(tb testing.TB) string { return closedPort(tb, network) }
}

// blackHoleTCP reads and never replies; it signals got (if not nil) on the first read.
func blackHoleTCP(got chan<- struct{}) func(net.Conn) {
	return func(c net.Conn) {
		buf := make([]byte, 1024)
		for first := true; ; first = false {
			if _, err := c.Read(buf); err != nil {
				return
			}
			if first && got != nil {
				got <- struct{}{}
			}
		}
	}
}

func TestGeneratedPayload(t *testing.T) {
	t.Parallel()
	got := make(chan string, 3)
	addr, _ := startTCP(t, func(c net.Conn) {
		serveTCP(c, func(b []byte) []byte {
			got <- string(b)
			return b
		})
	})
	c := mustNew(t, Options{Network: "tcp", Address: addr}, 7)
	for i := range 3 {
		if res := c.Do(t.Context()); !res.OK {
			t.Fatalf("request %d: code %d", i, res.Code)
		}
	}
	for _, want := range []string{"Fortio\n0007\n000000000001", "Fortio\n0007\n000000000002", "Fortio\n0007\n000000000003"} {
		if p := <-got; p != want {
			t.Errorf("payload %q, want %q", p, want)
		}
	}
}

func TestRedial(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		handle func(net.Conn)
		codes  []int32
		conns  int
	}{
		// The server closes after each echo: the stale connection is retried at once.
		{"server closes idle connection", onceTCP(GeneratedPayloadSize, same), []int32{CodeOK, CodeOK, CodeOK}, 3},
		// A failed request drops its connection; the next one dials again.
		{"after an error", firstConnWrong(), []int32{CodeMismatch, CodeOK, CodeOK}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			addr, accepted := startTCP(t, tt.handle)
			c := mustNew(t, Options{Network: "tcp", Address: addr}, 0)
			for i, want := range tt.codes {
				if res := c.Do(t.Context()); res.Code != want {
					t.Fatalf("request %d: code %d, want %d", i, res.Code, want)
				}
			}
			if n := accepted(); n != tt.conns {
				t.Errorf("server accepted %d connections, want %d", n, tt.conns)
			}
		})
	}
}

// firstConnWrong garbles the echo on the first connection and echoes on later ones.
func firstConnWrong() func(net.Conn) {
	first := make(chan struct{}, 1)
	first <- struct{}{}
	return func(c net.Conn) {
		select {
		case <-first:
			serveTCP(c, flipFirst)
		default:
			echoTCP(c)
		}
	}
}

func TestCloseInterruptsDo(t *testing.T) {
	t.Parallel()
	for _, network := range []string{"tcp", "udp"} {
		t.Run(network, func(t *testing.T) {
			t.Parallel()
			got := make(chan struct{}, 1)
			var addr string
			if network == "tcp" {
				addr, _ = startTCP(t, blackHoleTCP(got))
			} else {
				addr = startUDP(t, func([]byte) []byte {
					select {
					case got <- struct{}{}:
					default:
					}
					return nil
				})
			}
			c := mustNew(t, Options{Network: network, Address: addr, Timeout: time.Minute}, 0)
			done := make(chan int32, 1)
			go func() { done <- c.Do(t.Context()).Code }()
			waitOrFail(t, got, "the request to reach the server")
			if err := c.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
			select {
			case code := <-done:
				if code != CodeError {
					t.Errorf("interrupted Do: code %d, want %d", code, CodeError)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("Close did not interrupt Do")
			}
			if res := c.Do(t.Context()); res.Code != CodeError || res.Sent != 0 {
				t.Errorf("Do after Close: %+v, want code %d and nothing sent", res, CodeError)
			}
		})
	}
}

func waitOrFail(tb testing.TB, ch <-chan struct{}, what string) {
	tb.Helper()
	select {
	case <-ch:
	case <-time.After(5 * time.Second):
		tb.Fatalf("timed out waiting for %s", what)
	}
}

func TestNewRejects(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		opts Options
		want string
	}{
		{"network", Options{Network: "sctp", Address: "localhost:1"}, "network"},
		{"no address", Options{Network: "tcp"}, "address"},
		{"no port", Options{Network: "tcp", Address: "localhost"}, "address"},
		{"udp payload too big", Options{Network: "udp", Address: "localhost:1", Payload: make([]byte, 70000)}, "payload"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := New(tt.opts)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("New: %v, want an error about %s", err, tt.want)
			}
		})
	}
}

func TestFactoryNames(t *testing.T) {
	t.Parallel()
	tests := []struct {
		network, runType string
		timeout          time.Duration
	}{
		{"tcp", "TCP", DefaultTCPTimeout},
		{"udp", "UDP", DefaultUDPTimeout},
	}
	for _, tt := range tests {
		f, err := New(Options{Network: tt.network, Address: "127.0.0.1:1"})
		if err != nil {
			t.Fatalf("New: %v", err)
		}
		if got := f.RunType(); got != tt.runType {
			t.Errorf("RunType %q, want %q", got, tt.runType)
		}
		if f.opts.Timeout != tt.timeout {
			t.Errorf("%s default timeout %v, want %v", tt.network, f.opts.Timeout, tt.timeout)
		}
	}
	f, _ := New(Options{Network: "tcp", Address: "127.0.0.1:1"})
	names := map[int32]string{
		CodeOK: "OK", CodeShortRead: "short read", CodeMismatch: "read not echoing writes",
		CodeTimeout: "timeout", CodeRefused: "connection refused", CodeError: "error", 42: "42",
	}
	for code, want := range names {
		if got := f.CodeName(code); got != want {
			t.Errorf("CodeName(%d) = %q, want %q", code, got, want)
		}
	}
}

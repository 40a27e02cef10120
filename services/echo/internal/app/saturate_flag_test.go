package app

import (
	"bytes"
	"context"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/barrage-dev/barrage/proto/fgrpc"
)

// TestSaturateFlagDelaysGRPCTCPAndUDP checks -saturate 10ms:20ms on the
// gRPC ping and health check, the TCP echo and the UDP echo: alone a round
// trip waits about 10 ms; with four clients of the same listener looping
// round trips, at least 10ms + 20ms × 3 (the probe's own listener only:
// the other listeners are idle meanwhile).
func TestSaturateFlagDelaysGRPCTCPAndUDP(t *testing.T) {
	t.Parallel()
	a := startApp(t, func(c *Config) { c.Saturate = "10ms:20ms" })
	conn, err := grpc.NewClient(a.GRPCAddr(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	ping, health := fgrpc.NewPingServerClient(conn), healthpb.NewHealthClient(conn)
	tests := []struct {
		name string
		// client returns a round trip on its own connection or socket.
		client func(t *testing.T) func() error
	}{
		{"grpc ping", func(*testing.T) func() error {
			return func() error {
				_, err := ping.Ping(t.Context(), &fgrpc.PingMessage{Payload: "p"})
				return err
			}
		}},
		{"grpc health", func(*testing.T) func() error {
			return func() error {
				_, err := health.Check(t.Context(), &healthpb.HealthCheckRequest{})
				return err
			}
		}},
		{"tcp", func(t *testing.T) func() error { return netRoundTrip(t, "tcp", a.TCPAddr()) }},
		{"udp", func(t *testing.T) func() error { return netRoundTrip(t, "udp", a.UDPAddr()) }},
	}
	// One after the other: the gRPC ones share a listener. A probe repeats
	// until the 200 ms window holds what it should.
	for _, tt := range tests {
		probe := tt.client(t)
		alone := time.Hour
		for end := time.Now().Add(time.Second); alone >= 50*time.Millisecond && time.Now().Before(end); {
			alone = timed(t, probe)
		}
		if alone < 10*time.Millisecond || alone >= 50*time.Millisecond {
			t.Errorf("%s: alone it took %v, want about 10ms", tt.name, alone)
		}
		ctx, cancel := context.WithTimeout(t.Context(), 700*time.Millisecond)
		var wg sync.WaitGroup
		for range 4 {
			rt := tt.client(t)
			wg.Go(func() {
				for ctx.Err() == nil {
					_ = rt()
				}
			})
		}
		loaded := time.Duration(0)
		for ctx.Err() == nil && loaded < 70*time.Millisecond {
			loaded = timed(t, probe)
		}
		cancel()
		wg.Wait()
		t.Logf("%s: alone %v, with 4 looping clients %v", tt.name, alone, loaded)
		if loaded < 70*time.Millisecond {
			t.Errorf("%s: with 4 looping clients it took %v, want at least 10ms + 20ms × 3", tt.name, loaded)
		}
	}
	if m := metricsText(t, a); !strings.Contains(m, `barrage_echo_injected_delay_seconds_count{protocol="tcp"}`) ||
		!strings.Contains(m, `barrage_echo_injected_delay_seconds_count{protocol="udp"}`) ||
		!strings.Contains(m, `barrage_echo_injected_delay_seconds_count{protocol="grpc"}`) {
		t.Errorf("injected delays not counted per protocol:\n%s", grepLines(m, "injected_delay_seconds_count"))
	}
}

// netRoundTrip dials network addr and returns a function that sends 16
// bytes and reads them back.
func netRoundTrip(t *testing.T, network, addr string) func() error {
	t.Helper()
	c, err := net.Dial(network, addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	msg, buf := []byte("0123456789abcdef"), make([]byte, 16)
	return func() error {
		_ = c.SetDeadline(time.Now().Add(2 * time.Second))
		if _, err := c.Write(msg); err != nil {
			return err
		}
		if _, err := io.ReadFull(c, buf); err != nil {
			return err
		}
		if !bytes.Equal(buf, msg) {
			t.Errorf("%s echoed %q", network, buf)
		}
		return nil
	}
}

// timed runs rt and returns how long it took.
func timed(t *testing.T, rt func() error) time.Duration {
	t.Helper()
	start := time.Now()
	if err := rt(); err != nil {
		t.Fatal(err)
	}
	return time.Since(start)
}

package app

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/tls"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	reflectpb "google.golang.org/grpc/reflection/grpc_reflection_v1"

	"github.com/barrage-dev/barrage/pkg/testcert"
	"github.com/barrage-dev/barrage/proto/fgrpc"
)

// startApp boots barrage-echo on free loopback ports and stops it when the test ends.
func startApp(t *testing.T, mutate func(*Config)) *App {
	t.Helper()
	cfg, err := ParseConfig([]string{
		"-http-addr", "127.0.0.1:0", "-grpc-addr", "127.0.0.1:0",
		"-tcp-addr", "127.0.0.1:0", "-udp-addr", "127.0.0.1:0", "-max-delay", "300ms",
	}, nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if mutate != nil {
		mutate(&cfg)
	}
	a, err := New(cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- a.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	})
	return a
}

func TestHTTP1AndH2C(t *testing.T) {
	t.Parallel()
	a := startApp(t, nil)
	url := "http://" + a.HTTPAddr() + "/hello?status=202&header=X-Echo:yes"

	h1, err := http.Post(url, "text/plain", strings.NewReader("over http/1.1"))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(h1.Body)
	_ = h1.Body.Close()
	if h1.ProtoMajor != 1 || h1.StatusCode != 202 || string(body) != "over http/1.1" || h1.Header.Get("X-Echo") != "yes" {
		t.Fatalf("HTTP/1.1: %s %d %q %v", h1.Proto, h1.StatusCode, body, h1.Header)
	}

	protocols := new(http.Protocols)
	protocols.SetUnencryptedHTTP2(true)
	h2c := &http.Client{Transport: &http.Transport{Protocols: protocols}}
	resp, err := h2c.Post(url, "text/plain", strings.NewReader("over h2c"))
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if resp.ProtoMajor != 2 || resp.StatusCode != 202 || string(body) != "over h2c" {
		t.Fatalf("h2c: %s %d %q", resp.Proto, resp.StatusCode, body)
	}
}

func TestTLSServesH2(t *testing.T) {
	t.Parallel()
	certFile, keyFile, pool := testcert.Write(t)
	a := startApp(t, func(c *Config) { c.CertFile, c.KeyFile = certFile, keyFile })
	client := &http.Client{Transport: &http.Transport{
		TLSClientConfig:   &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12},
		ForceAttemptHTTP2: true,
	}}
	resp, err := client.Post("https://"+a.HTTPAddr()+"/", "text/plain", strings.NewReader("secure"))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if resp.ProtoMajor != 2 || string(body) != "secure" {
		t.Fatalf("TLS: %s %q, want HTTP/2 echo", resp.Proto, body)
	}
}

func TestGRPC(t *testing.T) {
	t.Parallel()
	a := startApp(t, nil)
	conn, err := grpc.NewClient(a.GRPCAddr(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	before := time.Now().UnixNano()
	start := time.Now()
	reply, err := fgrpc.NewPingServerClient(conn).Ping(ctx, &fgrpc.PingMessage{Seq: 7, Ts: 1, Payload: "abc", DelayNanos: int64(20 * time.Millisecond)})
	if err != nil {
		t.Fatal(err)
	}
	if reply.GetSeq() != 7 || reply.GetPayload() != "abc" || reply.GetTs() < before || time.Since(start) < 20*time.Millisecond {
		t.Fatalf("ping reply %+v after %v", reply, time.Since(start))
	}
	// delayNanos is clamped to -max-delay (300ms).
	start = time.Now()
	if _, err := fgrpc.NewPingServerClient(conn).Ping(ctx, &fgrpc.PingMessage{DelayNanos: int64(time.Minute)}); err != nil {
		t.Fatal(err)
	}
	if elapsed := time.Since(start); elapsed > 5*time.Second {
		t.Fatalf("1 min delay not clamped: %v", elapsed)
	}

	health := healthpb.NewHealthClient(conn)
	for _, svc := range []string{"", "ping"} {
		res, err := health.Check(ctx, &healthpb.HealthCheckRequest{Service: svc})
		if err != nil || res.GetStatus() != healthpb.HealthCheckResponse_SERVING {
			t.Fatalf("health %q: %v %v", svc, res, err)
		}
	}

	stream, err := reflectpb.NewServerReflectionClient(conn).ServerReflectionInfo(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := stream.Send(&reflectpb.ServerReflectionRequest{MessageRequest: &reflectpb.ServerReflectionRequest_ListServices{}}); err != nil {
		t.Fatal(err)
	}
	res, err := stream.Recv()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range res.GetListServicesResponse().GetService() {
		names = append(names, s.GetName())
	}
	if !strings.Contains(strings.Join(names, ","), "fgrpc.PingServer") {
		t.Fatalf("reflection lists %v, want fgrpc.PingServer", names)
	}
	// Every call above went over the one connection.
	if m := metricsText(t, a); !strings.Contains(m, "\nbarrage_echo_grpc_connections_total 1\n") {
		t.Fatalf("metrics do not count 1 gRPC connection:\n%s", grepLines(m, "grpc_"))
	}
}

// grepLines returns the lines of s that contain sub.
func grepLines(s, sub string) string {
	var out []string
	for line := range strings.SplitSeq(s, "\n") {
		if strings.Contains(line, sub) {
			out = append(out, line)
		}
	}
	return strings.Join(out, "\n")
}

func TestTCPAndUDPEcho(t *testing.T) {
	t.Parallel()
	a := startApp(t, nil)
	payload := make([]byte, 100_000)
	_, _ = rand.Read(payload)

	c, err := net.Dial("tcp", a.TCPAddr())
	if err != nil {
		t.Fatal(err)
	}
	go func() { _, _ = c.Write(payload) }()
	got := make([]byte, len(payload))
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.ReadFull(c, got); err != nil {
		t.Fatal(err)
	}
	_ = c.Close()
	if !bytes.Equal(got, payload) {
		t.Fatal("TCP echo differs from what was sent")
	}

	u, err := net.Dial("udp", a.UDPAddr())
	if err != nil {
		t.Fatal(err)
	}
	defer u.Close()
	buf := make([]byte, 2048)
	for i := range 3 {
		msg := []byte(strings.Repeat("u", 100+i))
		if _, err := u.Write(msg); err != nil {
			t.Fatal(err)
		}
		_ = u.SetReadDeadline(time.Now().Add(5 * time.Second))
		n, err := u.Read(buf)
		if err != nil || !bytes.Equal(buf[:n], msg) {
			t.Fatalf("UDP echo %d: %q, %v", i, buf[:n], err)
		}
	}
}

func TestGracefulShutdownFinishesInFlight(t *testing.T) {
	t.Parallel()
	cfg, err := ParseConfig([]string{"-http-addr", "127.0.0.1:0", "-grpc-addr", "", "-tcp-addr", "", "-udp-addr", ""}, nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	a, err := New(cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- a.Run(ctx) }()

	codec := make(chan int, 1)
	errc := make(chan error, 1)
	go func() {
		resp, err := http.Get("http://" + a.HTTPAddr() + "/?delay=300ms&status=201")
		if err != nil {
			errc <- err
			return
		}
		_ = resp.Body.Close()
		codec <- resp.StatusCode
	}()
	waitFor(t, 5*time.Second, func() bool { return strings.Contains(metricsText(t, a), "in_flight_requests 1") })
	cancel()
	select {
	case code := <-codec:
		if code != 201 {
			t.Fatalf("in-flight request got %d, want 201", code)
		}
	case err := <-errc:
		t.Fatalf("in-flight request failed during shutdown: %v", err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if _, err := net.DialTimeout("tcp", a.HTTPAddr(), time.Second); err == nil {
		t.Fatal("listener still accepts after shutdown")
	}
}

func metricsText(t *testing.T, a *App) string {
	t.Helper()
	resp, err := http.Get("http://" + a.HTTPAddr() + "/metrics")
	if err != nil {
		return ""
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

func waitFor(t *testing.T, timeout time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("condition not met within %v", timeout)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// writeCert writes a self-signed certificate for 127.0.0.1 and returns its files and pool.

//go:build accuracy

package accuracy_test

import (
	"context"
	"math"
	"net"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/barrage-dev/barrage/services/agent/internal/cli"
)

// TestGRPCPingInterop: Fortio's grpcping against barrage-echo and ours
// against `fortio server` both work, and on loopback the median RTTs that
// the two tools measure of one server agree within 1 ms, in one try each.
// Medians, not means: one 100 ms scheduling stall of a loaded machine moves
// a mean of 20 pings by 5 ms, and the median not at all.
func TestGRPCPingInterop(t *testing.T) {
	ours := startEcho(t).grpc
	fortioServer := startFortioServer(t)
	for name, target := range map[string]string{"barrage-echo": ours, "fortio server": fortioServer} {
		theirs := fortioPingMedian(t, target)
		mine := ourPingMedian(t, target)
		t.Logf("%s: median RTT %.1f µs (fortio grpcping), %.1f µs (barrage-agent grpcping)", name, theirs, mine)
		if math.Abs(theirs-mine) > 1000 {
			t.Errorf("%s: median RTTs %.1f µs (fortio) vs %.1f µs (barrage), want within 1 ms", name, theirs, mine)
		}
	}
}

// startFortioServer runs `fortio server` with its gRPC ping on a free port.
func startFortioServer(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, fortioBin(t), "server", "-http-port", "127.0.0.1:0", "-grpc-port", addr, "-redirect-port", "disabled")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		_ = cmd.Wait()
	})
	deadline := time.Now().Add(15 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			_ = c.Close()
			return addr
		}
		if time.Now().After(deadline) {
			t.Fatalf("fortio server did not listen on %s: %v", addr, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// fortioPingMedian runs `fortio grpcping -n 20` and returns the median RTT
// it reports (its RTT histogram's "# target 50%"), in µs.
func fortioPingMedian(t *testing.T, target string) float64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, fortioBin(t), "grpcping", "-n", "20", target).CombinedOutput()
	if err != nil {
		t.Fatalf("fortio grpcping %s: %v\n%s", target, err, out)
	}
	// The RTT histogram comes after the clock skew's, each with its median.
	_, rtt, found := strings.Cut(string(out), "RTT histogram usec : count")
	m := regexp.MustCompile(`# target 50% ([0-9.]+)`).FindStringSubmatch(rtt)
	if !found || m == nil {
		t.Fatalf("no RTT histogram with a median in fortio's output:\n%s", out)
	}
	v, _ := strconv.ParseFloat(string(m[1]), 64)
	return v
}

// ourPingMedian runs `barrage-agent grpcping -n 20` and returns the median
// of the RTTs of its ping lines, in µs.
func ourPingMedian(t *testing.T, target string) float64 {
	t.Helper()
	var out, errOut strings.Builder
	if code := cli.Main(context.Background(), []string{"barrage-agent", "grpcping", "-n", "20", target}, nil, &out, &errOut); code != cli.ExitOK {
		t.Fatalf("barrage-agent grpcping %s: exit %d: %s", target, code, errOut.String())
	}
	var rtts []float64
	for _, m := range regexp.MustCompile(`ping \d+: RTT (\d+) ns`).FindAllStringSubmatch(out.String(), -1) {
		ns, _ := strconv.ParseFloat(m[1], 64)
		rtts = append(rtts, ns/1000)
	}
	if len(rtts) != 20 || !strings.Contains(out.String(), "RTT usec : count 20 avg") {
		t.Fatalf("%d ping lines and a summary of 20 wanted:\n%s", len(rtts), out.String())
	}
	slices.Sort(rtts)
	return (rtts[9] + rtts[10]) / 2
}

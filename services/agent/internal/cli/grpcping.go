package cli

import (
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"net"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/barrage-dev/barrage/pkg/netguard"
	"github.com/barrage-dev/barrage/proto/fgrpc"
)

// maxPings bounds grpcping -n.
const maxPings = 100_000

// runGRPCPing is `barrage-agent grpcping host:port`: n pings to
// fgrpc.PingServer/Ping, one after the other on one connection, each
// printed with its round-trip time and the clock skew the server's
// timestamp shows (its receive time against the middle of the round
// trip), then the min, mean and max of both, as Fortio's grpcping prints.
func runGRPCPing(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("barrage-agent grpcping", flag.ContinueOnError)
	fs.SetOutput(stderr)
	n := fs.Int("n", 5, "number of pings")
	payload := fs.String("payload", "", "payload of each ping")
	delay := fs.Duration("grpc-ping-delay", 0, "delay the server waits before replying")
	useTLS := fs.Bool("tls", false, "connect with TLS")
	skipVerify := fs.Bool("k", false, "with -tls: do not verify the certificate")
	timeout := fs.Duration("timeout", 5*time.Second, "bound on each ping")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return ExitOK
		}
		return ExitUsage
	}
	if fs.NArg() != 1 || *n < 1 || *n > maxPings {
		_, _ = fmt.Fprintf(stderr, "barrage-agent grpcping: want one host:port and -n from 1 to %d\n", maxPings)
		return ExitUsage
	}
	target := fs.Arg(0)
	if _, _, err := net.SplitHostPort(target); err != nil {
		_, _ = fmt.Fprintf(stderr, "barrage-agent grpcping: %q: %v\n", target, err)
		return ExitUsage
	}
	creds := insecure.NewCredentials()
	if *useTLS {
		creds = credentials.NewTLS(&tls.Config{InsecureSkipVerify: *skipVerify, MinVersion: tls.VersionTLS12}) //nolint:gosec // the user asked for -k
	}
	guard := netguard.Unrestricted()
	cc, err := grpc.NewClient("passthrough:///"+target, grpc.WithTransportCredentials(creds),
		grpc.WithContextDialer(func(ctx context.Context, addr string) (net.Conn, error) {
			return guard.DialContext(ctx, "tcp", addr)
		}))
	if err != nil {
		_, _ = fmt.Fprintf(stderr, "barrage-agent grpcping: %v\n", err)
		return ExitUsage
	}
	defer func() { _ = cc.Close() }()
	client := fgrpc.NewPingServerClient(cc)
	var rtt, skew stats
	for i := range *n {
		pctx, cancel := context.WithTimeout(ctx, *timeout)
		sent := time.Now()
		resp, err := client.Ping(pctx, &fgrpc.PingMessage{Seq: int64(i + 1), Ts: sent.UnixNano(), Payload: *payload, DelayNanos: delay.Nanoseconds()})
		got := time.Now()
		cancel()
		if err != nil {
			_, _ = fmt.Fprintf(stderr, "barrage-agent grpcping: ping %d: %v\n", i+1, err)
			return ExitFailure
		}
		d := got.Sub(sent)
		s := time.Duration(resp.GetTs() - sent.Add(d/2).UnixNano())
		rtt.add(d)
		skew.add(s)
		_, _ = fmt.Fprintf(stdout, "ping %d: RTT %d ns, clock skew %d ns\n", i+1, d.Nanoseconds(), s.Nanoseconds())
	}
	_, _ = fmt.Fprintf(stdout, "RTT usec : count %d avg %.3f min %.3f max %.3f\n", rtt.n, rtt.mean(), rtt.min, rtt.max)
	_, _ = fmt.Fprintf(stdout, "Clock skew usec : count %d avg %.3f min %.3f max %.3f\n", skew.n, skew.mean(), skew.min, skew.max)
	return ExitOK
}

// stats are the count, sum, min and max of durations, in µs.
type stats struct {
	n             int
	sum, min, max float64
}

func (s *stats) add(d time.Duration) {
	us := float64(d.Nanoseconds()) / 1e3
	if s.n == 0 {
		s.min, s.max = us, us
	}
	s.n++
	s.sum += us
	s.min, s.max = math.Min(s.min, us), math.Max(s.max, us)
}

func (s *stats) mean() float64 { return s.sum / float64(max(s.n, 1)) }

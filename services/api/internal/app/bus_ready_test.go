package app

import (
	"context"
	"io"
	"log/slog"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/barrage-dev/barrage/pkg/natsembed"
)

// blackHole forwards TCP to dest until swallow is set; from then on it
// reads and discards both ways and closes nothing: a network that drops
// packets, as the client sees it (no reset, the connection stays open).
type blackHole struct {
	ln      net.Listener
	swallow atomic.Bool
}

func newBlackHole(t *testing.T, dest string) *blackHole {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ln.Close() })
	h := &blackHole{ln: ln}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			up, err := net.Dial("tcp", dest)
			if err != nil {
				_ = c.Close()
				continue
			}
			t.Cleanup(func() { _ = c.Close(); _ = up.Close() })
			go h.pipe(up, c)
			go h.pipe(c, up)
		}
	}()
	return h
}

func (h *blackHole) pipe(dst io.Writer, src io.Reader) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if err != nil {
			return
		}
		if h.swallow.Load() {
			continue
		}
		if _, err := dst.Write(buf[:n]); err != nil {
			return
		}
	}
}

// TestBusNotReadyWhenNATSSilent: when the network to NATS drops packets
// the connection stays CONNECTED for minutes (until the client's pings go
// unanswered); /readyz's check must still fail within its 2 s, because it
// asks the server for a round trip. The fault suite's
// TestAPISilentlyPartitionedFromNATSThenPostgres checks it with iptables.
func TestBusNotReadyWhenNATSSilent(t *testing.T) {
	ns := natsembed.StartT(t)
	hole := newBlackHole(t, ns.URL()[len("nats://"):])
	ctx := context.Background()
	b, err := openBus(ctx, Config{NATSURL: "nats://" + hole.ln.Addr().String()}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	// The swallowed bytes broke the protocol stream: close, do not drain.
	t.Cleanup(func() { b.nc.Close(); b.close() })
	if err := b.ready(ctx); err != nil {
		t.Fatalf("ready before the partition: %v", err)
	}
	hole.swallow.Store(true)
	rctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	start := time.Now()
	if err := b.ready(rctx); err == nil {
		t.Fatalf("ready while every packet to NATS is dropped (connection status %s)", b.nc.Status())
	} else {
		t.Logf("not ready after %s: %v", time.Since(start).Round(time.Millisecond), err)
	}
}

package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"strings"
	"time"

	"github.com/barrage-dev/barrage/pkg/netguard"
)

// ncBuffer is the largest chunk nc reads or sends at once (one UDP datagram).
const ncBuffer = 64 << 10

// RunNC is `barrage-agent nc [tcp://|udp://]host:port`, Fortio's nc: stdin
// goes to the connection and what comes back goes to stdout. Over TCP it
// half-closes after stdin's end and exits when the peer closes; over UDP
// each read of stdin is one datagram, and it exits once stdin has ended and
// nothing arrived for -timeout.
func RunNC(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("barrage-agent nc", flag.ContinueOnError)
	fs.SetOutput(stderr)
	timeout := fs.Duration("timeout", time.Second, "UDP: how long to wait for replies after stdin ends")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return ExitOK
		}
		return ExitUsage
	}
	if fs.NArg() != 1 {
		_, _ = fmt.Fprintln(stderr, "barrage-agent nc: want one [tcp://|udp://]host:port")
		return ExitUsage
	}
	network, addr := "tcp", fs.Arg(0)
	if rest, ok := strings.CutPrefix(addr, "udp://"); ok {
		network, addr = "udp", rest
	} else {
		addr = strings.TrimPrefix(addr, "tcp://")
	}
	if _, _, err := net.SplitHostPort(addr); err != nil {
		_, _ = fmt.Fprintf(stderr, "barrage-agent nc: %q: %v\n", fs.Arg(0), err)
		return ExitUsage
	}
	conn, err := netguard.Unrestricted().DialContext(ctx, network, addr)
	if err != nil {
		_, _ = fmt.Fprintf(stderr, "barrage-agent nc: %v\n", err)
		return ExitFailure
	}
	defer func() { _ = conn.Close() }()
	stop := context.AfterFunc(ctx, func() { _ = conn.Close() })
	defer stop()
	if network == "udp" {
		err = ncUDP(conn, stdin, stdout, *timeout)
	} else {
		err = ncTCP(conn, stdin, stdout)
	}
	if err != nil && ctx.Err() == nil {
		_, _ = fmt.Fprintf(stderr, "barrage-agent nc: %v\n", err)
		return ExitFailure
	}
	return ExitOK
}

// ncTCP copies stdin to conn (then half-closes it) and conn to stdout
// until the peer closes.
func ncTCP(conn net.Conn, stdin io.Reader, stdout io.Writer) error {
	sent := make(chan error, 1)
	go func() {
		_, err := io.Copy(conn, stdin)
		if cw, ok := conn.(interface{ CloseWrite() error }); ok {
			_ = cw.CloseWrite()
		}
		sent <- err
	}()
	if _, err := io.Copy(stdout, conn); err != nil && !errors.Is(err, net.ErrClosed) {
		return fmt.Errorf("receive: %w", err)
	}
	select {
	case err := <-sent:
		if err != nil {
			return fmt.Errorf("send: %w", err)
		}
	default: // the peer closed first; what stdin still holds is not sent
	}
	return nil
}

// ncUDP sends each read of stdin as a datagram and prints the datagrams
// that come back, until stdin has ended and none came for idle.
func ncUDP(conn net.Conn, stdin io.Reader, stdout io.Writer, idle time.Duration) error {
	done := make(chan error, 1)
	go func() {
		buf := make([]byte, ncBuffer)
		for {
			n, err := stdin.Read(buf)
			if n > 0 {
				if _, werr := conn.Write(buf[:n]); werr != nil {
					done <- fmt.Errorf("send: %w", werr)
					return
				}
			}
			if err != nil {
				done <- nil
				return
			}
		}
	}()
	buf := make([]byte, ncBuffer)
	ended := false
	for {
		if ended {
			_ = conn.SetReadDeadline(time.Now().Add(idle))
		} else {
			select {
			case err := <-done:
				if err != nil {
					return err
				}
				ended = true
				continue
			default:
				_ = conn.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
			}
		}
		n, err := conn.Read(buf)
		if n > 0 {
			if _, werr := stdout.Write(buf[:n]); werr != nil {
				return fmt.Errorf("write: %w", werr)
			}
			continue
		}
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			if ended {
				return nil
			}
			continue
		}
		if err != nil {
			return fmt.Errorf("receive: %w", err)
		}
	}
}

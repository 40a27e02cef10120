package app

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"strings"
	"sync"

	"github.com/barrage-dev/barrage/pkg/natsauth"
	"github.com/barrage-dev/barrage/services/agent/agent"
	"github.com/barrage-dev/barrage/services/echo/echo"
)

// companions are what -all-in-one runs beside the API: one agent (the same
// worker as `barrage-agent serve`, talking to the API over NATS) and the
// echo server, so one command gives a working Barrage.
type companions struct {
	agent *agent.Agent
	echo  *echo.Server
}

// allInOneEcho is the name of the all-in-one echo in the control plane,
// and allInOneProject the project whose profiles it takes.
const (
	allInOneEcho    = "all-in-one"
	allInOneProject = "default"
)

// startCompanions builds the agent and the echo server; the echo reads its
// BARRAGE_ECHO_* settings from environ. Unless BARRAGE_ECHO_NATS_URL says
// otherwise, the echo is a managed echo on the API's NATS, named
// all-in-one (or BARRAGE_ECHO_NAME), taking the profiles of the default
// project (or BARRAGE_ECHO_PROJECT), so that a profile activated in the
// dashboard applies to it.
func startCompanions(cfg Config, natsURL string, keys *natsauth.Keys, log *slog.Logger) (*companions, error) {
	eopts, err := echo.OptionsFromEnv(cfg.Environ)
	if err != nil {
		return nil, fmt.Errorf("all-in-one: %w", err)
	}
	if eopts.NATSURL == "" && eopts.HTTPAddr != "" {
		eopts.NATSURL = natsURL
		eopts.Name, eopts.Project = cmp.Or(eopts.Name, allInOneEcho), cmp.Or(eopts.Project, allInOneProject)
		if keys != nil && eopts.CredsFile == "" {
			c, err := keys.EchoUser(eopts.Name)
			if err != nil {
				return nil, fmt.Errorf("all-in-one echo: %w", err)
			}
			eopts.Credentials = &c
		}
	}
	// A taken echo port does not stop make run, as a taken NATS port does not
	// (bus.go): that listener moves to a free port, printed in the notice.
	eopts.HTTPAddr = freeIfTaken(log, "tcp", "HTTP", eopts.HTTPAddr)
	eopts.GRPCAddr = freeIfTaken(log, "tcp", "gRPC", eopts.GRPCAddr)
	eopts.TCPAddr = freeIfTaken(log, "tcp", "TCP", eopts.TCPAddr)
	eopts.UDPAddr = freeIfTaken(log, "udp", "UDP", eopts.UDPAddr)
	eopts.Logger = log.With(slog.String("component", "echo"))
	echoSrv, err := echo.New(eopts)
	if err != nil {
		return nil, fmt.Errorf("all-in-one: %w", err)
	}
	name, _ := os.Hostname()
	var creds []byte
	if keys != nil {
		c, _, err := keys.AgentUser("all-in-one", natsauth.AgentOptions{})
		if err == nil {
			creds, err = c.File()
		}
		if err != nil {
			echoSrv.Close()
			return nil, fmt.Errorf("all-in-one agent: %w", err)
		}
	}
	ag, err := agent.New(agent.Options{
		NATSURL: natsURL, Name: "all-in-one@" + name, Credentials: creds, Labels: map[string]string{"mode": "all-in-one"},
		Capacity: cfg.AgentCapacity, Logger: log.With(slog.String("component", "agent")),
	})
	if err != nil {
		echoSrv.Close()
		return nil, fmt.Errorf("all-in-one agent: %w", err)
	}
	return &companions{agent: ag, echo: echoSrv}, nil
}

// freeIfTaken returns addr, or the same host with port 0 (a free port) when
// another process holds addr's port. Disabled ("") and Unix socket
// addresses, and port 0, are returned as they are.
func freeIfTaken(log *slog.Logger, network, what, addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil || port == "0" {
		return addr
	}
	if !addrTaken(network, addr) {
		return addr
	}
	log.Warn("all-in-one echo: port taken; using a free one", slog.String("listener", what), slog.String("wanted", addr))
	return net.JoinHostPort(host, "0")
}

// EchoURL is the in-process echo server's HTTP URL; a wildcard listen
// address is shown as 127.0.0.1.
func (c *companions) EchoURL() string {
	addr := c.echo.HTTPAddr()
	if host, port, err := net.SplitHostPort(addr); err == nil {
		if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
			addr = net.JoinHostPort("127.0.0.1", port)
		}
	}
	return "http://" + addr + "/"
}

// echoPorts names the echo's other listeners for the start-up notice, or
// "" when none is enabled.
func (c *companions) echoPorts() string {
	var parts []string
	for _, l := range []struct{ name, addr string }{
		{"gRPC", c.echo.GRPCAddr()}, {"TCP", c.echo.TCPAddr()}, {"UDP", c.echo.UDPAddr()},
	} {
		if l.addr != "" {
			parts = append(parts, l.name+" "+l.addr)
		}
	}
	return strings.Join(parts, ", ")
}

// run runs both until ctx ends and returns their errors.
func (c *companions) run(ctx context.Context) error {
	var wg sync.WaitGroup
	var aerr, eerr error
	wg.Go(func() { aerr = c.agent.Run(ctx) })
	wg.Go(func() { eerr = c.echo.Run(ctx) })
	wg.Wait()
	return errors.Join(aerr, eerr)
}

package app

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"sync"

	echoapp "github.com/barrage-dev/barrage/services/echo/app"

	"github.com/barrage-dev/barrage/pkg/natsauth"
	"github.com/barrage-dev/barrage/services/agent/worker"
)

// companions are what -all-in-one runs beside the API: one agent (the same
// worker as `barrage-agent serve`, talking to the API over NATS) and the
// echo server, so one command gives a working Barrage.
type companions struct {
	agent *worker.Worker
	echo  *echoapp.App
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
	ecfg, err := echoapp.ParseConfig(nil, cfg.Environ, io.Discard)
	if err != nil {
		return nil, fmt.Errorf("all-in-one echo: %w", err)
	}
	if ecfg.NATSURL == "" && ecfg.HTTPAddr != "" {
		ecfg.NATSURL = natsURL
		ecfg.Name, ecfg.Project = cmp.Or(ecfg.Name, allInOneEcho), cmp.Or(ecfg.Project, allInOneProject)
		if keys != nil && ecfg.Creds == "" {
			c, err := keys.EchoUser(ecfg.Name)
			if err != nil {
				return nil, fmt.Errorf("all-in-one echo: %w", err)
			}
			ecfg.Credentials = &c
		}
	}
	echo, err := echoapp.New(ecfg, log.With(slog.String("component", "echo")))
	if err != nil {
		return nil, fmt.Errorf("all-in-one echo: %w", err)
	}
	name, _ := os.Hostname()
	var creds []byte
	if keys != nil {
		c, _, err := keys.AgentUser("all-in-one")
		if err == nil {
			creds, err = c.File()
		}
		if err != nil {
			echo.Close()
			return nil, fmt.Errorf("all-in-one agent: %w", err)
		}
	}
	agent, err := worker.New(worker.Config{
		NATSURL: natsURL, Name: "all-in-one@" + name, Credentials: creds, Labels: map[string]string{"mode": "all-in-one"},
		Capacity: cfg.AgentCapacity, Logger: log.With(slog.String("component", "agent")),
	})
	if err != nil {
		echo.Close()
		return nil, fmt.Errorf("all-in-one agent: %w", err)
	}
	return &companions{agent: agent, echo: echo}, nil
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

// run runs both until ctx ends and returns their errors.
func (c *companions) run(ctx context.Context) error {
	var wg sync.WaitGroup
	var aerr, eerr error
	wg.Go(func() { aerr = c.agent.Run(ctx) })
	wg.Go(func() { eerr = c.echo.Run(ctx) })
	wg.Wait()
	return errors.Join(aerr, eerr)
}

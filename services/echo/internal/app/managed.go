package app

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"strings"
	"time"

	"github.com/barrage-dev/barrage/pkg/natsauth"
	"github.com/barrage-dev/barrage/pkg/version"
	"github.com/barrage-dev/barrage/pkg/wire"
	"github.com/barrage-dev/barrage/services/echo/internal/managed"
)

// managedFlags adds the flags of a managed echo to fs.
func managedFlags(fs *flag.FlagSet, cfg *Config) {
	fs.StringVar(&cfg.NATSURL, "nats", cfg.NATSURL, "NATS URL of the control plane: register and apply the echo profile the API activates; empty = unmanaged (BARRAGE_ECHO_NATS_URL)")
	fs.StringVar(&cfg.Creds, "creds", cfg.Creds, "NATS credentials from `barrage-api echo-credentials create NAME` (BARRAGE_ECHO_CREDS)")
	fs.StringVar(&cfg.Name, "name", cfg.Name, "this echo's name in the control plane; default the hostname; must match -creds (BARRAGE_ECHO_NAME)")
	fs.StringVar(&cfg.Project, "project", cfg.Project, "project (id or slug) whose echo profiles this echo takes; needed with -nats (BARRAGE_ECHO_PROJECT)")
	fs.Func("advertise", "host:port runs reach the HTTP echo on, repeatable; default hostname, localhost and 127.0.0.1 with the HTTP port (BARRAGE_ECHO_ADVERTISE, comma-separated)",
		func(s string) error {
			cfg.Advertise = append(cfg.Advertise, s)
			return nil
		})
}

// validateManaged checks the managed-echo settings.
func (c Config) validateManaged() []error {
	if c.NATSURL == "" {
		return nil
	}
	var errs []error
	if c.Project == "" {
		errs = append(errs, errors.New("-nats needs -project"))
	}
	if c.HTTPAddr == "" {
		errs = append(errs, errors.New("-nats needs the HTTP echo (-http-addr)"))
	}
	if c.Creds != "" && c.Credentials != nil {
		errs = append(errs, errors.New("-creds and in-process credentials are exclusive"))
	}
	if c.Name != "" {
		if err := natsauth.CheckName(c.Name); err != nil {
			errs = append(errs, fmt.Errorf("-name: %w", err))
		}
	}
	for _, a := range c.Advertise {
		if _, _, err := net.SplitHostPort(a); err != nil {
			errs = append(errs, fmt.Errorf("-advertise %q: want host:port", a))
		}
	}
	return errs
}

// runManaged follows the control plane until ctx ends.
func (a *App) runManaged(ctx context.Context) error {
	name := a.cfg.Name
	if name == "" {
		host, err := os.Hostname()
		if err != nil {
			return fmt.Errorf("managed echo name: %w", err)
		}
		name = host
	}
	return managed.Run(ctx, managed.Options{
		URL: a.cfg.NATSURL, Creds: a.cfg.Creds, Credentials: a.cfg.Credentials, Logger: a.log,
		Registration: wire.EchoRegistration{
			Name: name, Project: a.cfg.Project, Addrs: a.advertised(), Version: version.String(),
			StartedAt: time.Now().UTC(),
		},
		Apply: a.applyDefaults,
	})
}

// advertised are the addresses a run's target may name this echo by.
func (a *App) advertised() []string {
	if len(a.cfg.Advertise) > 0 {
		return a.cfg.Advertise
	}
	_, port, err := net.SplitHostPort(a.HTTPAddr())
	if err != nil {
		return nil
	}
	hosts := []string{"localhost", "127.0.0.1"}
	if host, err := os.Hostname(); err == nil {
		hosts = append([]string{strings.ToLower(host)}, hosts...)
	}
	out := make([]string, 0, len(hosts))
	for _, h := range hosts {
		out = append(out, net.JoinHostPort(h, port))
	}
	return out
}

// applyDefaults sets content as the default parameters of every HTTP echo
// handler (HTTP/1.1, h2, h3).
func (a *App) applyDefaults(content string) error {
	for _, h := range a.handlers {
		if err := h.SetDefaults(content); err != nil {
			return err
		}
	}
	return nil
}

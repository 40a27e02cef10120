// Package natsembed runs a NATS server with JetStream inside the process:
// barrage-api uses it when NATS_URL is unset, and tests use it instead of an
// external server.
package natsembed

import (
	"errors"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/nats-io/jwt/v2"
	"github.com/nats-io/nats-server/v2/server"

	"github.com/barrage-dev/barrage/pkg/natsauth"
)

// Options configure an embedded server.
type Options struct {
	// DataDir holds JetStream's files; it is created if missing.
	DataDir string
	// Host and Port are where clients connect; Port -1 picks a free port.
	Host string
	Port int
	// ReadyTimeout bounds the wait for the server to accept clients.
	ReadyTimeout time.Duration
	// Trust, when set, runs the server in operator mode with Barrage's
	// accounts (natsauth): clients must present user JWTs signed by the
	// Barrage account, and each may do only what its JWT allows. Without
	// it the server has no authentication (tests, and a process alone).
	Trust *natsauth.Trust
}

// Server is a running embedded NATS server.
type Server struct {
	srv *server.Server
}

// Start starts a server and waits until it accepts clients.
func Start(o Options) (*Server, error) {
	if o.DataDir == "" {
		return nil, errors.New("natsembed: a data directory is required")
	}
	if err := os.MkdirAll(o.DataDir, 0o750); err != nil {
		return nil, fmt.Errorf("natsembed: data directory: %w", err)
	}
	if o.Host == "" {
		o.Host = "127.0.0.1"
	}
	if o.ReadyTimeout == 0 {
		o.ReadyTimeout = 10 * time.Second
	}
	opts := &server.Options{
		ServerName: "barrage-embedded",
		Host:       o.Host,
		Port:       o.Port,
		JetStream:  true,
		StoreDir:   o.DataDir,
		NoSigs:     true,
		NoLog:      true,
	}
	if o.Trust != nil {
		if err := trust(opts, o.Trust); err != nil {
			return nil, err
		}
	}
	srv, err := server.NewServer(opts)
	if err != nil {
		return nil, fmt.Errorf("natsembed: %w", err)
	}
	go srv.Start()
	if !srv.ReadyForConnections(o.ReadyTimeout) {
		srv.Shutdown()
		return nil, fmt.Errorf("natsembed: server not ready within %s", o.ReadyTimeout)
	}
	return &Server{srv: srv}, nil
}

// trust sets opts up for operator mode with t's accounts preloaded.
func trust(opts *server.Options, t *natsauth.Trust) error {
	res := &server.MemAccResolver{}
	for pub, token := range map[string]string{t.SystemPublic: t.SystemJWT, t.AccountPublic: t.AccountJWT} {
		if err := res.Store(pub, token); err != nil {
			return fmt.Errorf("natsembed: preload account %s: %w", pub, err)
		}
	}
	opts.TrustedOperators = []*jwt.OperatorClaims{t.Operator}
	opts.AccountResolver = res
	opts.SystemAccount = t.SystemPublic
	return nil
}

// URL is the client URL of the server.
func (s *Server) URL() string { return s.srv.ClientURL() }

// Shutdown stops the server and waits for it to finish.
func (s *Server) Shutdown() {
	s.srv.Shutdown()
	s.srv.WaitForShutdown()
}

// StartT starts a server on a free loopback port with its data in a
// temporary directory, stopped when the test ends.
func StartT(t testing.TB) *Server {
	t.Helper()
	s, err := Start(Options{DataDir: t.TempDir(), Port: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Shutdown)
	return s
}

package grpcclient

import (
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/barrage-dev/barrage/services/agent/internal/request"
)

// Mode selects the RPC each request makes.
type Mode string

// Modes.
const (
	// ModeHealth calls grpc.health.v1.Health/Check (Fortio's default for -grpc).
	ModeHealth Mode = "health"
	// ModePing calls fgrpc.PingServer/Ping (Fortio's -ping).
	ModePing Mode = "ping"
)

// DefaultTimeout bounds each RPC when Options.Timeout is not set (Fortio's
// HTTP default; Fortio's own gRPC runner has none).
const DefaultTimeout = 3 * time.Second

// Options describe the RPC every client of a Factory sends.
type Options struct {
	// Target is the server's host:port.
	Target string
	// TLS connects with TLS, verifying the server certificate against the
	// system roots unless Insecure is set.
	TLS bool
	// Insecure skips certificate verification (Fortio's -k); it implies TLS.
	Insecure bool
	// Mode is ModeHealth (the default) or ModePing.
	Mode Mode
	// Service is the service name asked of the health check ("" is the
	// server as a whole). Health mode only.
	Service string
	// PingDelay asks the ping server to wait that long before replying
	// (Fortio's -grpc-ping-delay). Ping mode only; must not be negative.
	PingDelay time.Duration
	// Payload is sent in every ping and echoed back. Ping mode only.
	Payload string
	// Timeout bounds each RPC, connecting included; default DefaultTimeout.
	Timeout time.Duration
	// Dial connects to the target; nil means a plain net.Dialer. Called once
	// per connection, never per request.
	Dial request.DialFunc
}

// Normalize applies the defaults and validates the options; New calls it.
func (o *Options) Normalize() error {
	if o.Mode == "" {
		o.Mode = ModeHealth
	}
	if o.Insecure {
		o.TLS = true
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if _, _, err := net.SplitHostPort(o.Target); err != nil {
		return fmt.Errorf("target %q: want host:port: %w", o.Target, err)
	}
	switch o.Mode {
	case ModeHealth:
		if o.PingDelay != 0 || o.Payload != "" {
			return errors.New("ping delay and payload apply to ping mode only")
		}
	case ModePing:
		if o.Service != "" {
			return errors.New("service applies to health mode only")
		}
		if o.PingDelay < 0 {
			return fmt.Errorf("ping delay %v: must not be negative", o.PingDelay)
		}
	default:
		return fmt.Errorf("mode %q: must be %q or %q", o.Mode, ModeHealth, ModePing)
	}
	return nil
}

// runType renders Fortio's RunType for normalized options (fgrpc.RunGRPCTest).
func (o *Options) runType() string {
	var s string
	if o.Mode == ModePing {
		s = "GRPC Ping"
		if o.PingDelay > 0 {
			s += fmt.Sprintf(" Delay=%v", o.PingDelay)
		}
	} else {
		s = "GRPC Health for '" + o.Service + "'"
	}
	if n := len(o.Payload); n > 0 {
		s += fmt.Sprintf(" PayloadLength=%d", n)
	}
	return s
}

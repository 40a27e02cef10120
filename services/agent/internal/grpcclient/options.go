package grpcclient

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/barrage-dev/barrage/pkg/spec"
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
	// ModeMethod calls Options.Method, any unary method, found by server
	// reflection, with the payload as its request in protobuf JSON.
	ModeMethod Mode = "method"
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
	// TLSConfig is the base TLS configuration of a TLS connection (package
	// tlsconf: CA, client certificate, SNI, minimum version, session
	// cache); nil means the system roots and TLS 1.2 or later. The
	// connection uses a copy with Insecure applied and ALPN h2.
	TLSConfig *tls.Config
	// Mode is ModeHealth (the default) or ModePing.
	Mode Mode
	// Service is the service name asked of the health check ("" is the
	// server as a whole). Health mode only.
	Service string
	// PingDelay asks the ping server to wait that long before replying
	// (Fortio's -grpc-ping-delay). Ping mode only; must not be negative.
	PingDelay time.Duration
	// Payload is sent in every ping and echoed back (ping mode), or is the
	// request message in protobuf JSON ("" is the empty message; method
	// mode).
	Payload string
	// Method is "package.Service/Method" (a leading "/" is allowed): the
	// unary method method mode calls.
	Method string
	// Metadata is sent with every call (Fortio's -H for gRPC); names are
	// case-insensitive and sent in lower case. A "Host" entry sets the
	// :authority instead, as in Fortio.
	Metadata []Header
	// Streams is the number of clients (of consecutive connection indexes)
	// that share one HTTP/2 connection, each with its own call in flight
	// (Fortio's -s); default 1.
	Streams int
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
	if o.Streams == 0 {
		o.Streams = 1
	}
	if _, _, err := net.SplitHostPort(o.Target); err != nil {
		return fmt.Errorf("target %q: want host:port: %w", o.Target, err)
	}
	for _, h := range o.Metadata {
		if !isMetadataKey(strings.ToLower(h.Name)) {
			return fmt.Errorf("metadata %q: want a name of letters, digits, '-', '_' and '.', not starting with grpc-", h.Name)
		}
	}
	if o.Streams < 1 {
		return fmt.Errorf("streams %d: need at least 1", o.Streams)
	}
	if o.Mode != ModeMethod && o.Method != "" {
		return errors.New("method applies to method mode only")
	}
	switch o.Mode {
	case ModeHealth:
		if o.PingDelay != 0 || o.Payload != "" {
			return errors.New("ping delay and payload apply to ping mode only (a payload also to method mode)")
		}
	case ModePing:
		if o.Service != "" {
			return errors.New("service applies to health mode only")
		}
		if o.PingDelay < 0 {
			return fmt.Errorf("ping delay %v: must not be negative", o.PingDelay)
		}
	case ModeMethod:
		if o.Service != "" || o.PingDelay != 0 {
			return errors.New("service and ping delay do not apply to method mode")
		}
		if !spec.IsGRPCMethod(o.Method) {
			return fmt.Errorf("method %q: want package.Service/Method, like grpc.health.v1.Health/Check", o.Method)
		}
	default:
		return fmt.Errorf("mode %q: must be %q, %q or %q", o.Mode, ModeHealth, ModePing, ModeMethod)
	}
	return nil
}

// Header is one metadata entry.
type Header struct{ Name, Value string }

// isMetadataKey reports whether k is a gRPC metadata key a client may set:
// lower-case letters, digits, '-', '_' and '.', and not a reserved grpc-
// name.
func isMetadataKey(k string) bool {
	if k == "" || strings.HasPrefix(k, "grpc-") {
		return false
	}
	for i := range len(k) {
		switch c := k[i]; {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9', c == '-', c == '_', c == '.':
		default:
			return false
		}
	}
	return true
}

// runType renders Fortio's RunType for normalized options (fgrpc.RunGRPCTest),
// and "GRPC Method <method>" for method mode, which Fortio does not have.
func (o *Options) runType() string {
	var s string
	switch o.Mode {
	case ModePing:
		s = "GRPC Ping"
		if o.PingDelay > 0 {
			s += fmt.Sprintf(" Delay=%v", o.PingDelay)
		}
	case ModeMethod:
		return "GRPC Method " + strings.TrimPrefix(o.Method, "/")
	default:
		s = "GRPC Health for '" + o.Service + "'"
	}
	if n := len(o.Payload); n > 0 {
		s += fmt.Sprintf(" PayloadLength=%d", n)
	}
	return s
}

// tlsConfig is TLSConfig (or the defaults) with Insecure applied; gRPC's
// credentials add ALPN h2 and, without a server name, the target's host.
func (o *Options) tlsConfig() *tls.Config {
	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	if o.TLSConfig != nil {
		cfg = o.TLSConfig.Clone()
	}
	cfg.InsecureSkipVerify = cfg.InsecureSkipVerify || o.Insecure // the user asked for -k
	return cfg
}

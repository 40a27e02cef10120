package netclient

import (
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/barrage-dev/barrage/services/agent/internal/request"
)

// Default request timeouts, as in Fortio (its HTTP default for TCP; 750 ms for UDP).
const (
	DefaultTCPTimeout = 3 * time.Second
	DefaultUDPTimeout = 750 * time.Millisecond
)

// Options describe the echo target every client of a Factory talks to.
type Options struct {
	// Network is "tcp" or "udp".
	Network string
	// Address is the host:port of the echo server.
	Address string
	// Payload is sent on every request and must come back unchanged. When it
	// is empty each request sends Fortio's default: a unique 24-byte message
	// "Fortio\n<conn %04d>\n<seq %012d>" (see GeneratedPayloadSize).
	Payload []byte
	// Timeout bounds each request, connecting included; default
	// DefaultTCPTimeout or DefaultUDPTimeout.
	Timeout time.Duration
	// Dial connects to the target; nil means a plain net.Dialer. Called once
	// per connection, never per request.
	Dial request.DialFunc
}

// Normalize applies the defaults and validates the options; New calls it.
func (o *Options) Normalize() error {
	switch o.Network {
	case "tcp":
		if o.Timeout <= 0 {
			o.Timeout = DefaultTCPTimeout
		}
	case "udp":
		if o.Timeout <= 0 {
			o.Timeout = DefaultUDPTimeout
		}
	default:
		return fmt.Errorf("network %q: must be tcp or udp", o.Network)
	}
	if o.Address == "" {
		return errors.New("address: empty")
	}
	if _, _, err := net.SplitHostPort(o.Address); err != nil {
		return fmt.Errorf("address %q: %w", o.Address, err)
	}
	if o.Network == "udp" && len(o.Payload) > maxUDPPayload {
		return fmt.Errorf("payload: %d bytes is more than one UDP datagram (%d)", len(o.Payload), maxUDPPayload)
	}
	return nil
}

// maxUDPPayload is the largest UDP payload over IPv4.
const maxUDPPayload = 65507

// GeneratedPayloadSize is the length of the default payload.
const GeneratedPayloadSize = 24

// generatedPrefix starts every default payload; the connection index and the
// sequence number follow, each after a newline.
const generatedPrefix = "Fortio\n"

// newGeneratedPayload returns the default payload buffer for connection conn,
// with its connection digits written once; setSeq fills in the sequence.
func newGeneratedPayload(conn int) []byte {
	b := make([]byte, GeneratedPayloadSize)
	copy(b, generatedPrefix)
	putDigits(b[7:11], int64(conn))
	b[11] = '\n'
	setSeq(b, 0)
	return b
}

// setSeq writes seq as 12 zero-padded digits at the end of a default payload.
func setSeq(b []byte, seq int64) { putDigits(b[12:GeneratedPayloadSize], seq) }

// putDigits writes v in decimal, zero-padded to len(dst); higher digits that do
// not fit are dropped (Fortio's format overflows instead, changing the length).
func putDigits(dst []byte, v int64) {
	if v < 0 {
		v = -v
	}
	for i := len(dst) - 1; i >= 0; i-- {
		dst[i] = byte('0' + v%10)
		v /= 10
	}
}

package h2client

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/http"

	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/http3"
)

// roundTripper is the transport of one client: HTTP/2's *http.Transport
// or HTTP/3's *http3.Transport.
type roundTripper interface {
	RoundTrip(*http.Request) (*http.Response, error)
	CloseIdleConnections()
}

// newH3Transport returns an HTTP/3 transport whose QUIC connections are
// dialed by dialQUIC.
func (f *Factory) newH3Transport() *http3.Transport {
	return &http3.Transport{
		TLSClientConfig:    f.h3TLSConfig(),
		QUICConfig:         &quic.Config{HandshakeIdleTimeout: f.opts.Timeout},
		Dial:               f.dialQUIC,
		DisableCompression: true, // measure the bytes the server chose to send
	}
}

// h3TLSConfig is Options.TLS (the CA, client certificate, SNI and
// session cache of package tlsconf) with Insecure applied, at TLS 1.3,
// the only version QUIC runs; the transport sets ALPN h3.
func (f *Factory) h3TLSConfig() *tls.Config {
	cfg := f.tlsConfig()
	cfg.MinVersion = tls.VersionTLS13
	cfg.NextProtos = nil
	return cfg
}

// dialQUIC opens a QUIC connection to addr: Options.Dial on "udp" resolves
// and checks the address (the run's target policy), and the QUIC handshake
// goes to the very address it checked, never to the name again.
func (f *Factory) dialQUIC(ctx context.Context, addr string, tlsCfg *tls.Config, cfg *quic.Config) (*quic.Conn, error) {
	ctx, cancel := context.WithTimeout(ctx, f.opts.Timeout)
	defer cancel()
	dial := f.opts.Dial
	if dial == nil {
		dial = (&net.Dialer{}).DialContext
	}
	probe, err := dial(ctx, "udp", addr)
	if err != nil {
		return nil, err
	}
	checked := probe.RemoteAddr().String()
	_ = probe.Close()
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("h3 dial %s: %w", addr, err)
	}
	tlsCfg = tlsCfg.Clone()
	if tlsCfg.ServerName == "" {
		tlsCfg.ServerName = host
	}
	conn, err := quic.DialAddrEarly(ctx, checked, tlsCfg, cfg)
	if err != nil {
		return nil, fmt.Errorf("h3 dial %s (%s): %w", addr, checked, err)
	}
	return conn, nil
}

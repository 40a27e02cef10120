// Package plan maps a validated run spec onto the load engine: the protocol
// client factory it asks for and the engine's options. Both `barrage-agent
// load` and the NATS worker use it, so a spec runs the same way from the
// command line and from an assignment. It is not the place for parsing flags
// or assignments, nor for running the engine.
package plan

import (
	"fmt"
	"time"

	"github.com/barrage-dev/barrage/pkg/spec"
	"github.com/barrage-dev/barrage/services/agent/internal/engine"
	"github.com/barrage-dev/barrage/services/agent/internal/grpcclient"
	"github.com/barrage-dev/barrage/services/agent/internal/h2client"
	"github.com/barrage-dev/barrage/services/agent/internal/httpclient"
	"github.com/barrage-dev/barrage/services/agent/internal/netclient"
	"github.com/barrage-dev/barrage/services/agent/internal/request"
)

// NewFactory opens the protocol client factory a validated spec asks for;
// payload is the request body (the spec's, or the file it names, already
// read); every connection is dialed with dial (nil: a plain net.Dialer).
func NewFactory(s spec.Spec, payload []byte, dial request.DialFunc) (request.Factory, error) {
	switch s.Protocol() {
	case spec.ProtocolHTTP:
		if s.HTTP2() || s.HTTP3() {
			return newH2Factory(s, payload, dial)
		}
		headers := make([]httpclient.Header, 0, len(s.Headers))
		for _, h := range s.HeaderPairs() {
			headers = append(headers, httpclient.Header{Name: h.Name, Value: h.Value})
		}
		return httpclient.New(httpclient.Options{
			URL: s.HTTPURL(), Method: s.Method, Headers: headers, Payload: payload,
			ContentType: s.ContentType, Timeout: s.Timeout.Std(), Insecure: s.Insecure, Dial: dial,
		})
	case spec.ProtocolGRPC:
		g := s.GRPC
		if g == nil {
			g = &spec.GRPC{Mode: spec.GRPCHealth}
		}
		return grpcclient.New(grpcclient.Options{
			Target: s.Target(), TLS: s.TLS(), Insecure: s.Insecure, Mode: grpcclient.Mode(g.Mode),
			Service: g.Service, PingDelay: g.PingDelay.Std(), Payload: string(payload), Timeout: s.Timeout.Std(),
			Dial: dial,
		})
	case spec.ProtocolTCP, spec.ProtocolUDP:
		return netclient.New(netclient.Options{
			Network: string(s.Protocol()), Address: s.Target(), Payload: payload, Timeout: s.Timeout.Std(), Dial: dial,
		})
	default:
		return nil, fmt.Errorf("%s: unsupported protocol %q", s.URL, s.Protocol())
	}
}

func newH2Factory(s spec.Spec, payload []byte, dial request.DialFunc) (request.Factory, error) {
	headers := make([]h2client.Header, 0, len(s.Headers))
	for _, h := range s.HeaderPairs() {
		headers = append(headers, h2client.Header{Name: h.Name, Value: h.Value})
	}
	return h2client.New(h2client.Options{
		URL: s.HTTPURL(), H2C: !s.TLS(), H3: s.HTTP3(), Method: s.Method, Headers: headers, Payload: payload,
		ContentType: s.ContentType, Timeout: s.Timeout.Std(), Insecure: s.Insecure, Dial: dial,
	})
}

// EngineOptions maps a validated spec onto the engine's options.
func EngineOptions(s spec.Spec, f request.Factory) engine.Options {
	o := engine.Options{
		Factory:     f,
		Connections: s.Connections,
		QPS:         s.QPS,
		Duration:    s.RunFor(),
		Count:       s.Count,
		Jitter:      s.Jitter,
		Uniform:     s.Uniform,
		NoCatchUp:   s.NoCatchUp,
		AbortOn:     int32(s.AbortOn),
		Interval:    time.Second,
	}
	switch s.Pacing {
	case spec.PacingClosed:
		o.Pacing = engine.Closed
	case spec.PacingFortio:
		o.Pacing = engine.Fortio
	default:
		o.Pacing = engine.Open
	}
	if s.Ramp != nil {
		o.Ramp = &engine.RampOptions{From: s.Ramp.From, To: s.Ramp.To, Over: s.Ramp.Over.Std()}
	}
	return o
}

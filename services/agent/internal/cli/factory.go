package cli

import (
	"fmt"
	"time"

	"github.com/barrage-dev/barrage/pkg/spec"
	"github.com/barrage-dev/barrage/services/agent/internal/engine"
	"github.com/barrage-dev/barrage/services/agent/internal/httpclient"
	"github.com/barrage-dev/barrage/services/agent/internal/request"
)

// NewFactory opens the protocol client factory a validated spec asks for;
// payload is the request body (the spec's, or the file it names, already read).
func NewFactory(s spec.Spec, payload []byte) (request.Factory, error) {
	switch s.Protocol() {
	case spec.ProtocolHTTP:
		if s.HTTP2() {
			return nil, fmt.Errorf("%s: HTTP/2 is not available yet", s.URL)
		}
		headers := make([]httpclient.Header, 0, len(s.Headers))
		for _, h := range s.HeaderPairs() {
			headers = append(headers, httpclient.Header{Name: h.Name, Value: h.Value})
		}
		return httpclient.New(httpclient.Options{
			URL: s.HTTPURL(), Method: s.Method, Headers: headers, Payload: payload,
			ContentType: s.ContentType, Timeout: s.Timeout.Std(), Insecure: s.Insecure,
		})
	default:
		return nil, fmt.Errorf("%s: protocol %s is not available yet", s.URL, s.Protocol())
	}
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

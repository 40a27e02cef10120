// Package plan maps a validated run spec onto the load engine: the protocol
// client factory it asks for and the engine's options. Both `barrage-agent
// load` and the NATS worker use it, so a spec runs the same way from the
// command line and from an assignment. It is not the place for parsing flags
// or assignments, nor for running the engine.
package plan

import (
	"fmt"
	"time"

	"github.com/barrage-dev/barrage/pkg/reqtemplate"
	"github.com/barrage-dev/barrage/pkg/spec"
	"github.com/barrage-dev/barrage/services/agent/internal/engine"
	"github.com/barrage-dev/barrage/services/agent/internal/grpcclient"
	"github.com/barrage-dev/barrage/services/agent/internal/h2client"
	"github.com/barrage-dev/barrage/services/agent/internal/httpclient"
	"github.com/barrage-dev/barrage/services/agent/internal/netclient"
	"github.com/barrage-dev/barrage/services/agent/internal/pacer"
	"github.com/barrage-dev/barrage/services/agent/internal/request"
	"github.com/barrage-dev/barrage/services/agent/internal/tlsconf"
)

// NewFactory opens the protocol client factory a validated spec asks for;
// payload is the request body (the spec's, or the file it names, already
// read); every connection is dialed with dial (nil: a plain net.Dialer);
// seq numbers the requests of a templated HTTP/1.1 URL or payload (nil: 1,
// 2, 3...). A payload file is sent as it is, never as a template.
func NewFactory(s spec.Spec, payload []byte, dial request.DialFunc, seq *reqtemplate.Seq) (request.Factory, error) {
	switch s.Protocol() {
	case spec.ProtocolHTTP:
		if s.HTTP2() || s.HTTP3() || s.FollowRedirects {
			return newH2Factory(s, payload, dial)
		}
		return newH1Factory(s, payload, dial, seq)
	case spec.ProtocolGRPC:
		g := s.GRPC
		if g == nil {
			g = &spec.GRPC{Mode: spec.GRPCHealth}
		}
		md := make([]grpcclient.Header, 0, len(s.Headers))
		for _, h := range s.HeaderPairs() {
			md = append(md, grpcclient.Header{Name: h.Name, Value: h.Value})
		}
		tlsCfg, err := tlsconf.Config(s)
		if err != nil {
			return nil, err
		}
		return grpcclient.New(grpcclient.Options{
			Target: s.Target(), TLS: s.TLS(), Insecure: s.Insecure, TLSConfig: tlsCfg, Mode: grpcclient.Mode(g.Mode),
			Service: g.Service, PingDelay: g.PingDelay.Std(), Payload: string(payload), Timeout: s.Timeout.Std(),
			Method: g.Method, Streams: s.Streams(), Metadata: md, Dial: dial,
		})
	case spec.ProtocolTCP, spec.ProtocolUDP:
		return netclient.New(netclient.Options{
			Network: string(s.Protocol()), Address: s.Target(), Payload: payload, Timeout: s.Timeout.Std(), Dial: dial,
		})
	default:
		return nil, fmt.Errorf("%s: unsupported protocol %q", s.URL, s.Protocol())
	}
}

func newH1Factory(s spec.Spec, payload []byte, dial request.DialFunc, seq *reqtemplate.Seq) (request.Factory, error) {
	tlsCfg, err := tlsconf.Config(s)
	if err != nil {
		return nil, err
	}
	headers := make([]httpclient.Header, 0, len(s.Headers))
	for _, h := range s.HeaderPairs() {
		headers = append(headers, httpclient.Header{Name: h.Name, Value: h.Value})
	}
	targets, err := s.RequestTargets()
	if err != nil {
		return nil, err
	}
	var body *reqtemplate.Template
	if s.PayloadFile == "" {
		if body, err = spec.PayloadTemplate(s.Payload); err != nil {
			return nil, fmt.Errorf("payload: %w", err)
		}
	}
	variants, err := mixVariants(s)
	if err != nil {
		return nil, err
	}
	var reuse spec.ConnectionReuse
	if s.ConnectionReuse != nil {
		reuse = *s.ConnectionReuse
	}
	url := s.HTTPURL()
	if len(targets) == 1 && len(s.URLs) == 1 && !targets[0].Dynamic() {
		// The client renders lists of several entries and templates; a
		// list of one fixed URL is that URL's request, on url's target.
		url = spec.Rebase(url, s.URLs[0])
	}
	return httpclient.New(httpclient.Options{
		URL: url, Method: s.Method, Headers: headers, Payload: payload,
		ContentType: s.ContentType, Timeout: s.Timeout.Std(), Insecure: s.Insecure, TLS: tlsCfg, Dial: dial,
		Targets: targets, RandomTarget: s.URLOrder == spec.URLRandom, Body: body, Seq: seq,
		Variants: variants, LatencyHeader: s.LatencyHeader,
		HTTP10: s.HTTP10, Compression: s.Compression, UnixSocket: s.UnixSocket,
		MaxRequestsPerConnection: s.MaxRequestsPerConnection,
		ReuseMin:                 reuse.Min, ReuseMax: reuse.Max,
	})
}

// mixVariants maps the spec's request mix onto the client's variants.
func mixVariants(s spec.Spec) ([]httpclient.Variant, error) {
	var out []httpclient.Variant
	for i, r := range s.Requests {
		target, err := spec.URLTemplate(r.URL)
		if err != nil {
			return nil, fmt.Errorf("requests[%d].url: %w", i, err)
		}
		body, err := spec.PayloadTemplate(r.Body)
		if err != nil {
			return nil, fmt.Errorf("requests[%d].body: %w", i, err)
		}
		v := httpclient.Variant{Method: r.Method, Target: target, Body: body}
		for _, h := range (spec.Spec{Headers: r.Headers}).HeaderPairs() {
			v.Headers = append(v.Headers, httpclient.Header{Name: h.Name, Value: h.Value})
		}
		if b := r.BodySize; b != nil {
			v.BodySize = httpclient.BodySize{Min: b.Min, Max: b.Max, Fair: b.Fair}
		}
		out = append(out, v)
	}
	return out, nil
}

// newH2Factory opens the client on the standard library (and quic-go):
// HTTP/2, HTTP/3, and HTTP/1.1 when redirects are followed.
func newH2Factory(s spec.Spec, payload []byte, dial request.DialFunc) (request.Factory, error) {
	headers := make([]h2client.Header, 0, len(s.Headers))
	for _, h := range s.HeaderPairs() {
		headers = append(headers, h2client.Header{Name: h.Name, Value: h.Value})
	}
	http1 := !s.HTTP2() && !s.HTTP3()
	tlsCfg, err := tlsconf.Config(s)
	if err != nil {
		return nil, err
	}
	return h2client.New(h2client.Options{
		URL: s.HTTPURL(), H2C: !s.TLS() && !http1, H3: s.HTTP3(), HTTP1: http1,
		Method: s.Method, Headers: headers, Payload: payload,
		ContentType: s.ContentType, Timeout: s.Timeout.Std(), Insecure: s.Insecure, TLS: tlsCfg, Dial: dial,
		LatencyHeader:   s.LatencyHeader,
		FollowRedirects: s.FollowRedirects, Compression: s.Compression, UnixSocket: s.UnixSocket,
	})
}

// EngineOptions maps a validated spec onto the engine's options. The
// engine's connections are its callers: connections × grpc.streams (the
// gRPC factory puts each group of streams callers on one connection), as
// Fortio's -c and -s make c×s goroutines.
func EngineOptions(s spec.Spec, f request.Factory) engine.Options {
	o := engine.Options{
		Factory:     f,
		Connections: s.Connections * s.Streams(),
		QPS:         s.QPS,
		Duration:    s.RunFor(),
		Count:       s.Count,
		Jitter:      s.Jitter,
		Uniform:     s.Uniform,
		NoCatchUp:   s.NoCatchUp,
		AbortOn:     int32(s.AbortOn),
		Interval:    time.Second,
		// The server histogram exists only when a latency header is read.
		ServerLatency: s.LatencyHeader != "",
		Burst:         s.Burst,
		Prefetch:      s.Prefetch,
	}
	if len(s.Requests) > 0 {
		o.Mix = s.EntryWeights()
	}
	if s.RecordWrittenURLs {
		// The whole run's bound: a worker divides it among the shards.
		o.WrittenURLs, o.URLPrefix, o.MaxURLLength = spec.MaxWrittenURLs, s.URLOrigin(), spec.MaxURLLength
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
	for _, st := range s.Stages {
		o.Stages = append(o.Stages, pacer.Stage{QPS: st.QPS, Length: st.Duration.Std()})
	}
	return o
}

// Package fortiorest maps Fortio's REST API (/fortio/rest/run, /status and
// /stop) onto Barrage: it reads Fortio's parameters, from the query string
// or a JSON body of strings (jsonPath picks a sub-object, as Flagger's
// webhooks need), into a run spec, and shapes Fortio's replies (the async
// reply, the status map).
//
// It is not the place for HTTP (httpapi serves the routes and calls the
// runs service, so every rule of a run applies) nor for Fortio's result
// JSON (package export renders it).
package fortiorest

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/barrage-dev/barrage/pkg/spec"
	"github.com/barrage-dev/barrage/services/api/internal/apperr"
)

// Fortio's defaults for a REST run that does not say (periodic.RunnerOptions).
const (
	// DefaultQPS is Fortio's rate when qps is absent or 0.
	DefaultQPS = 8
	// DefaultConnections is Fortio's -c when c is absent or 0.
	DefaultConnections = 4
)

// Params are the parameters of one Fortio REST call: the query string
// first, then the string values of the JSON body (at jsonPath).
type Params struct {
	query url.Values
	body  map[string]any
}

// ReadParams reads query and body (which may be empty). A body must be a
// JSON object; jsonPath (".metadata", "a.b") selects the object inside it
// that holds the parameters.
func ReadParams(query url.Values, body []byte) (Params, error) {
	p := Params{query: query}
	if strings.TrimSpace(string(body)) == "" {
		return p, nil
	}
	var root map[string]any
	if err := json.Unmarshal(body, &root); err != nil {
		return p, apperr.New(apperr.BadRequest, "the body is not a JSON object: %v", err)
	}
	m, err := atPath(root, query.Get("jsonPath"))
	if err != nil {
		return p, err
	}
	p.body = m
	return p, nil
}

// atPath returns the object at path (dot-separated keys) inside m.
func atPath(m map[string]any, path string) (map[string]any, error) {
	for key := range strings.SplitSeq(strings.Trim(path, "."), ".") {
		if key == "" {
			continue
		}
		v, ok := m[key]
		if !ok {
			return nil, apperr.Invalidf("jsonPath", "%q is not in the JSON body", key)
		}
		if m, ok = v.(map[string]any); !ok {
			return nil, apperr.Invalidf("jsonPath", "%q in the JSON body is not an object", key)
		}
	}
	return m, nil
}

// Get returns parameter key: from the query string, else the body's
// string value, else "". As in Fortio, a body value that is not a string
// is ignored.
func (p Params) Get(key string) string {
	if v := p.query.Get(key); v != "" {
		return v
	}
	s, _ := p.body[key].(string)
	return s
}

// On reports whether flag key is "on", Fortio's true.
func (p Params) On(key string) bool { return p.Get(key) == "on" }

// Async reports whether the caller asked not to wait (async=on).
func (p Params) Async() bool { return p.On("async") }

// Project is Barrage's own parameter: the project (id or slug) to run in,
// "" for the token's.
func (p Params) Project() string { return p.Get("project") }

// headers are the body's "headers" array, then the query's H values.
func (p Params) headers() []string {
	var out []string
	if list, ok := p.body["headers"].([]any); ok {
		for _, h := range list {
			if s, ok := h.(string); ok && s != "" {
				out = append(out, s)
			}
		}
	}
	for _, h := range p.query["H"] {
		if h != "" {
			out = append(out, h)
		}
	}
	return out
}

// fieldErrors collects the problems of a call's parameters.
type fieldErrors struct{ e apperr.Error }

func (f *fieldErrors) add(field, format string, args ...any) {
	f.e.Fields = append(f.e.Fields, apperr.FieldError{Field: field, Message: fmt.Sprintf(format, args...)})
}

func (f *fieldErrors) err() error {
	if len(f.e.Fields) == 0 {
		return nil
	}
	f.e.Code, f.e.Detail = apperr.Invalid, "the Fortio parameters are invalid"
	return &f.e
}

// Spec builds the run spec the call asks for, with Fortio's defaults (8
// qps, 4 connections, 5 s); its problems name Fortio's parameters (qps,
// c, t, n, p, timeout, grpc-ping-delay, url). Barrage's own checks of the
// spec (limits, allow-list) come later, in the runs service.
func (p Params) Spec() (spec.Spec, error) {
	var fe fieldErrors
	s := spec.Spec{
		Jitter: p.On("jitter"), Uniform: p.On("uniform"), NoCatchUp: p.On("nocatchup"),
		Headers: p.headers(), Payload: p.Get("payload"), ContentType: p.Get("content-type"),
		Method: strings.ToUpper(p.Get("X")), Insecure: p.On("https-insecure") || p.On("k"),
		Labels: spec.ParseFortioLabels(p.Get("labels")),
	}
	if s.NoCatchUp {
		s.Pacing = spec.PacingFortio // Fortio's own loop is the only one that catches up
	}
	s.QPS = p.qps(&fe)
	s.Connections = int(p.integer(&fe, "c", DefaultConnections))
	p.length(&fe, &s)
	s.Timeout = spec.Duration(p.duration(&fe, "timeout"))
	if list := p.Get("p"); list != "" {
		s.Percentiles = percentiles(&fe, list)
	}
	p.target(&fe, &s)
	if err := fe.err(); err != nil {
		return spec.Spec{}, err
	}
	s.Normalize()
	var ve *spec.ValidationError
	if err := s.Validate(); errors.As(err, &ve) {
		for _, e := range ve.Errors {
			fe.add(paramOf(e.Field), "%s", e.Message)
		}
		return spec.Spec{}, fe.err()
	} else if err != nil {
		return spec.Spec{}, fmt.Errorf("validate spec: %w", err)
	}
	return s, nil
}

// paramOf names the Fortio parameter of a spec field.
func paramOf(field string) string {
	root, rest, _ := strings.Cut(field, ".")
	root, _, _ = strings.Cut(root, "[")
	switch root {
	case "connections":
		return "c"
	case "duration":
		return "t"
	case "count":
		return "n"
	case "percentiles":
		return "p"
	case "headers":
		return "H"
	case "content_type":
		return "content-type"
	case "method":
		return "X"
	case "no_catchup":
		return "nocatchup"
	case "grpc":
		if rest == "ping_delay" {
			return "grpc-ping-delay"
		}
		return "healthservice"
	case "":
		return "url"
	}
	return root
}

// qps reads qps: absent or 0 is Fortio's 8, negative or "max" as fast as
// possible.
func (p Params) qps(fe *fieldErrors) float64 {
	v := strings.TrimSpace(p.Get("qps"))
	if v == "max" {
		return 0
	}
	if v == "" {
		return DefaultQPS
	}
	q, err := strconv.ParseFloat(v, 64)
	switch {
	case err != nil:
		fe.add("qps", "must be a number (or -1 or max for as fast as possible), not %q", v)
	case q == 0:
		return DefaultQPS
	case q < 0:
		return 0
	}
	return q
}

// integer reads a whole-number parameter; absent or 0 is def.
func (p Params) integer(fe *fieldErrors, key string, def int64) int64 {
	v := strings.TrimSpace(p.Get(key))
	if v == "" {
		return def
	}
	n, err := strconv.ParseInt(v, 10, 64)
	switch {
	case err != nil:
		fe.add(key, "must be a whole number, not %q", v)
	case n < 0:
		fe.add(key, "must not be negative, not %q", v)
	case n == 0:
		return def
	}
	return n
}

// duration reads a Go duration parameter; absent is 0.
func (p Params) duration(fe *fieldErrors, key string) time.Duration {
	v := strings.TrimSpace(p.Get(key))
	if v == "" {
		return 0
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		fe.add(key, "must be a duration such as 30s, not %q", v)
		return 0
	}
	return d
}

// length reads n (exact count, wins) and t (a duration, or "on" to run
// until stopped; absent is Fortio's 5 s, the spec's default).
func (p Params) length(fe *fieldErrors, s *spec.Spec) {
	if s.Count = p.integer(fe, "n", 0); s.Count > 0 {
		return
	}
	if t := strings.TrimSpace(p.Get("t")); t == "on" {
		s.UntilStopped = true
		return
	}
	s.Duration = spec.Duration(p.duration(fe, "t"))
}

// target reads url and the runner: runner=grpc makes host:port a grpc://
// (grpc-secure=on: grpcs://) target calling health (healthservice) or
// ping (ping=on, grpc-ping-delay); h2=on makes http:// HTTP/2 cleartext.
func (p Params) target(fe *fieldErrors, s *spec.Spec) {
	u := strings.TrimSpace(p.Get("url"))
	if u == "" {
		fe.add("url", "is required")
		return
	}
	if p.Get("runner") == "grpc" {
		s.URL = grpcTarget(u, p.On("grpc-secure"))
		mode := spec.GRPCHealth
		if p.On("ping") {
			mode = spec.GRPCPing
		}
		s.GRPC = &spec.GRPC{Mode: mode, Service: p.Get("healthservice"), PingDelay: spec.Duration(p.duration(fe, "grpc-ping-delay"))}
		return
	}
	s.URL = u
	if p.On("h2") {
		if rest, ok := strings.CutPrefix(u, "http://"); ok {
			s.URL = "h2c://" + rest
		} else {
			s.H2 = strings.HasPrefix(u, "https://")
		}
	}
}

// grpcTarget maps Fortio's gRPC destinations (host:port, http://host:port,
// https://host:port) to a grpc:// or grpcs:// URL.
func grpcTarget(u string, secure bool) string {
	if strings.HasPrefix(u, "grpc://") || strings.HasPrefix(u, "grpcs://") {
		return u
	}
	if rest, ok := strings.CutPrefix(u, "https://"); ok {
		u, secure = rest, true
	}
	u = strings.TrimSuffix(strings.TrimPrefix(u, "http://"), "/")
	if secure {
		return "grpcs://" + u
	}
	return "grpc://" + u
}

// percentiles reads Fortio's p list ("50,75,99.9").
func percentiles(fe *fieldErrors, list string) []float64 {
	var out []float64
	for item := range strings.SplitSeq(list, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		v, err := strconv.ParseFloat(item, 64)
		if err != nil {
			fe.add("p", "must be a comma-separated list of percentiles, %q is not a number", item)
			return nil
		}
		out = append(out, v)
	}
	return out
}

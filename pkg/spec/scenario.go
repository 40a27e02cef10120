package spec

import (
	"encoding/json"
	"errors"
	"maps"
	"net"
	"net/url"
	"slices"
	"strings"

	"github.com/barrage-dev/barrage/pkg/scenario"
)

// A scenario run (docs/scenarios.md) sends the steps of Scenario, an
// iteration at a time, at IterationsPerSecond iteration starts across its
// agents (open pacing), Connections being the most iterations in flight;
// or, closed, Connections virtual users each start their next iteration
// as their last one ends. Count is the exact number of iterations (or
// Duration how long iterations start), Timeout bounds each request. URL is
// optional: it defaults to the origin (scheme://host) of the first step,
// and names the run's target in lists; every step's own URL is what is
// sent, and each is checked against the project's target policy. The fields of single-request runs (qps, method,
// headers, payload, requests, urls, protocol options) do not apply; insecure and tls (but for tls.alpn: a step
// chooses its protocol) apply to every https:// step.

// scenarioField is the JSON name of the scenario block.
const scenarioField = "scenario"

// IsScenario reports whether s runs a multi-step scenario.
func (s Spec) IsScenario() bool { return s.Scenario != nil }

// normalizeScenario fills the defaults of a scenario run.
func (s *Spec) normalizeScenario() {
	if s.URL == "" && len(s.Scenario.Steps) > 0 {
		if u, err := url.Parse(s.Scenario.Steps[0].URL); err == nil && u.Scheme != "" && u.Host != "" && !strings.Contains(u.Host, "{{") {
			s.URL = u.Scheme + "://" + u.Host + "/"
		}
	}
	if s.Pacing == "" {
		s.Pacing = PacingClosed
		if s.IterationsPerSecond > 0 {
			s.Pacing = PacingOpen
		}
	}
	s.defaultTimeout(DefaultTimeout)
}

// validateScenarioRun checks a scenario run: its scenario (every problem
// named "scenario.steps[1].extract[0].json_path" and so on), its rate and
// length, and that no single-request field is set.
func (s Spec) validateScenarioRun(p *problems) {
	if u := validateURL(p, s.URL); u != nil {
		if proto, _ := schemeProtocol(u.Scheme); (proto != ProtocolHTTP && proto != ProtocolGRPC) || strings.EqualFold(u.Scheme, "h2c") {
			p.add("url", "a scenario run's url is http://, https://, grpc:// or grpcs://")
		}
	}
	switch s.Pacing {
	case PacingOpen:
		checkRate(p, "iterations_per_second", s.IterationsPerSecond, true)
	case PacingClosed:
		if s.IterationsPerSecond != 0 {
			p.add("iterations_per_second", "a closed-loop scenario run has no rate: its connections are virtual users that each start an iteration as their last one ends")
		}
	default:
		p.add("pacing", "a scenario run is open (iterations start at iterations_per_second) or closed (connections virtual users)")
	}
	if s.Connections < 1 || s.Connections > MaxConnections {
		p.add("connections", "must be between 1 and %d", MaxConnections)
	}
	s.validateLength(p)
	checkDuration(p, "timeout", s.Timeout, MaxTimeout)
	for _, f := range s.singleRequestFields() {
		p.add(f, "does not apply to a scenario run (set it on the steps)")
	}
	addScenarioErrors(p, compileErr(s.Scenario))
	s.validateScenarioTLS(p)
	if d := s.Scenario.Data; d != nil && d.Split && s.Agents != nil && s.Agents.Count > 1 {
		if rows := scenario.DataRows(d); rows > 0 && rows < s.Agents.Count {
			p.add(scenarioField+".data.split", "%d rows cannot give each of the %d agents rows of its own", rows, s.Agents.Count)
		}
	}
	for i := range s.Scenario.Steps {
		if _, _, err := StepTarget(s.Scenario.Steps[i].URL); err != nil {
			p.add(index("scenario.steps", i)+".url", "%s", err.Error())
		}
	}
	s.validatePercentiles(p)
	validateLabelMap(p, "labels", s.Labels)
	s.validateAgents(p)
}

// compileErr is the error of compiling sc, or nil.
func compileErr(sc *scenario.Scenario) error {
	_, err := scenario.Compile(sc)
	return err
}

// singleRequestFields names the fields set in s that only a
// single-request run takes.
func (s Spec) singleRequestFields() []string {
	set := []struct {
		name string
		on   bool
	}{
		{"qps", s.QPS != 0}, {"urls", len(s.URLs) > 0}, {"url_order", s.URLOrder != ""}, {"requests", len(s.Requests) > 0},
		{"ramp", s.Ramp != nil}, {"stages", len(s.Stages) > 0}, {"jitter", s.Jitter}, {"uniform", s.Uniform},
		{"no_catchup", s.NoCatchUp}, {"method", s.Method != ""}, {"headers", len(s.Headers) > 0}, {"payload", s.Payload != ""},
		{"payload_file", s.PayloadFile != ""}, {"content_type", s.ContentType != ""}, {"h2", s.H2}, {"h3", s.H3}, {"grpc", s.GRPC != nil}, {"abort_on", s.AbortOn != 0},
		{"latency_header", s.LatencyHeader != ""}, {"http10", s.HTTP10}, {"compression", s.Compression},
		{"unix_socket", s.UnixSocket != ""}, {"max_requests_per_connection", s.MaxRequestsPerConnection != 0},
		{"connection_reuse", s.ConnectionReuse != nil}, {"prefetch", s.Prefetch}, {"burst", s.Burst != 0},
		{"follow_redirects", s.FollowRedirects}, {"abort_if_rate_not_held", s.AbortIfRateNotHeld},
		{"record_written_urls", s.RecordWrittenURLs}, {"urls_from_run", s.URLsFromRun != ""},
	}
	var out []string
	for _, f := range set {
		if f.on {
			out = append(out, f.name)
		}
	}
	return out
}

// stepURLWant says what a step's URL must be.
const stepURLWant = "want an absolute http://, https://, grpc:// or grpcs:// URL"

// StepTarget returns the network address ("host:port") a step URL
// connects to, and its scheme. The scheme and host may not take variables:
// the API checks every step's target against the project's policy before
// the run starts.
func StepTarget(raw string) (scheme, addr string, err error) {
	scheme, rest, ok := strings.Cut(raw, "://")
	if !ok {
		return "", "", errors.New(stepURLWant)
	}
	authority := rest
	if end := strings.IndexAny(rest, "/?#"); end >= 0 {
		authority = rest[:end]
	}
	if strings.Contains(scheme, "{{") || strings.Contains(authority, "{{") {
		return "", "", errors.New("the scheme and host may not take variables: they are checked against the target policy")
	}
	u, err := url.Parse(scheme + "://" + authority)
	if err != nil || u.Hostname() == "" {
		return "", "", errors.New(stepURLWant)
	}
	scheme = strings.ToLower(u.Scheme)
	port := u.Port()
	switch {
	case scheme != "http" && scheme != "https" && scheme != "grpc" && scheme != "grpcs":
		return "", "", errors.New(stepURLWant)
	case port != "":
	case scheme == "http" || scheme == "grpc":
		port = "80"
	default: // https, grpcs
		port = "443"
	}
	return scheme, net.JoinHostPort(u.Hostname(), port), nil
}

// addScenarioErrors adds the *scenario.FieldError problems joined in err
// under the field "scenario".
func addScenarioErrors(p *problems, err error) {
	if err == nil {
		return
	}
	var list []error
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		list = j.Unwrap()
	} else {
		list = []error{err}
	}
	for _, e := range list {
		var fe *scenario.FieldError
		switch {
		case errors.As(e, &fe) && fe.Path != "":
			p.add(scenarioField+"."+fe.Path, "%s", fe.Msg)
		case errors.As(e, &fe):
			p.add(scenarioField, "%s", fe.Msg)
		default:
			p.add(scenarioField, "%s", strings.TrimPrefix(e.Error(), "scenario: "))
		}
	}
}

// checkScenarioShape checks the raw scenario block as pkg/scenario reads
// a document: unknown fields, wrong types and every compile problem.
func checkScenarioShape(p *problems, raw json.RawMessage) {
	if string(raw) == "null" {
		return
	}
	if len(raw) == 0 || raw[0] != '{' {
		p.add(scenarioField, "must be an object")
		return
	}
	_, err := scenario.Parse(raw)
	addScenarioErrors(p, err)
}

// cloneScenario returns a deep copy of sc.
func cloneScenario(sc *scenario.Scenario) *scenario.Scenario {
	if sc == nil {
		return nil
	}
	c := *sc
	c.Vars = maps.Clone(sc.Vars)
	c.Steps = slices.Clone(sc.Steps)
	if sc.Data != nil {
		d := *sc.Data
		c.Data = &d
	}
	for i := range c.Steps {
		st := &c.Steps[i]
		st.Headers = maps.Clone(st.Headers)
		st.Extract = slices.Clone(st.Extract)
		st.Checks = slices.Clone(st.Checks)
		for j := range st.Checks {
			st.Checks[j].Status = slices.Clone(st.Checks[j].Status)
			st.Checks[j].Equals = slices.Clone(st.Checks[j].Equals)
		}
		if st.Think != nil {
			t := *st.Think
			st.Think = &t
		}
	}
	return &c
}

// redactScenario redacts, in place, a cloned scenario's secrets: step URLs
// as URL is, header values, variables and data columns with secret names,
// and bodies as the run's payload.
func (r Redactor) redactScenario(sc *scenario.Scenario) {
	if sc == nil {
		return
	}
	for k := range sc.Vars {
		if r.IsSecretName(k) {
			sc.Vars[k] = RedactedValue
		}
	}
	sc.Data = scenario.RedactData(sc.Data, r.IsSecretName, RedactedValue)
	for i := range sc.Steps {
		st := &sc.Steps[i]
		st.URL = r.URL(st.URL)
		st.Body = r.redactBody(st.Body)
		for k := range st.Headers {
			if r.IsSecretName(k) {
				st.Headers[k] = RedactedValue
			}
		}
	}
}

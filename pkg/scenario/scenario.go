// Package scenario is the format of multi-step scenarios: an ordered list of
// HTTP requests whose method, URL, headers and body take variables
// ({{.name}}, Go text/template), extractions that set variables from a
// response (a JSON path, a regular expression with a group, a header), named
// checks on a response, think time between steps, and whether an iteration
// goes on after a failed step. Parse reads a JSON or YAML document and
// compiles it into a Plan, naming the field of every error
// (steps[2].extract[0].json_path: ...); a Plan's steps render requests and
// evaluate responses.
//
// It is not the place for pacing, sending or recording: the agent's
// executor (services/agent/internal/scenario) runs a Plan.
package scenario

import "encoding/json"

// Scenario is the document a user writes.
type Scenario struct {
	// Name names the scenario in reports.
	Name string `json:"name"`
	// Vars are the variables every iteration starts with.
	Vars map[string]string `json:"vars,omitempty"`
	// Steps run in order in every iteration; at least one.
	Steps []Step `json:"steps"`
	// Data is a data file whose rows set variables, a row an iteration
	// (data.go).
	Data *Data `json:"data,omitempty"`
}

// Step is one HTTP request or unary gRPC call (grpc.go) of an iteration.
type Step struct {
	// Name names the step in reports and errors; unique within the scenario.
	Name string `json:"name"`
	// Method is the HTTP method: GET by default, POST when Body is set.
	Method string `json:"method,omitempty"`
	// URL is an absolute http:// or https:// URL template, or a gRPC
	// step's grpc://host:port/package.Service/Method (grpcs:// over TLS).
	URL string `json:"url"`
	// Protocol is the step's HTTP version: "http/1.1" (the default) or
	// "h2", which is HTTP/2 over TLS (ALPN) for an https:// URL and HTTP/2
	// with prior knowledge (h2c) for an http:// one.
	Protocol string `json:"protocol,omitempty"`
	// Headers are request header templates by name.
	Headers map[string]string `json:"headers,omitempty"`
	// Body is the request body template.
	Body string `json:"body,omitempty"`
	// Extract sets variables from the response, in order.
	Extract []Extraction `json:"extract,omitempty"`
	// Checks are evaluated on the response, after the extractions.
	Checks []Check `json:"checks,omitempty"`
	// Think is the pause after this step, before the next.
	Think *Think `json:"think,omitempty"`
	// ContinueOnFailure goes on to the next step after a failed check or
	// extraction or a transport error; by default the iteration ends there
	// and its remaining steps count as skipped.
	ContinueOnFailure bool `json:"continue_on_failure,omitempty"`
	// Once runs the step once per virtual user (one of the executor's
	// workers, which run iterations one at a time), before its first
	// iteration, instead of in every iteration: a login whose token or
	// cookie later iterations reuse. Once steps come before all others, and
	// at least one step is not once. A once step that fails ends the
	// iteration (unless ContinueOnFailure) and runs again in the next.
	Once bool `json:"once,omitempty"`
}

// Step protocols (Step.Protocol).
const (
	ProtocolHTTP11 = "http/1.1"
	ProtocolH2     = "h2"
)

// Extraction sets variable Var from a response: exactly one of JSONPath,
// Regex or Header is set.
type Extraction struct {
	// Var is the variable to set.
	Var string `json:"var"`
	// JSONPath is an RFC 9535 JSON path into the body; the first node found
	// is the value (a string as is, anything else as JSON).
	JSONPath string `json:"json_path,omitempty"`
	// Regex is a regular expression on the body; Group (default 1) is the
	// value.
	Regex string `json:"regex,omitempty"`
	// Group is the Regex group to take; 0 means 1.
	Group int `json:"group,omitempty"`
	// Header is a response header name.
	Header string `json:"header,omitempty"`
}

// Check is a named condition on a response: exactly one kind is set.
type Check struct {
	// Name names the check in reports (failed checks count by name).
	Name string `json:"name"`
	// Status passes when the status code is one of these.
	Status []int `json:"status,omitempty"`
	// BodyContains passes when the body contains this text.
	BodyContains string `json:"body_contains,omitempty"`
	// BodyMatches passes when the body matches this regular expression.
	BodyMatches string `json:"body_matches,omitempty"`
	// JSONPath with Equals passes when the first node equals Equals (as JSON
	// values); without Equals, when the path finds a node.
	JSONPath string `json:"json_path,omitempty"`
	// Equals is the expected JSON value at JSONPath.
	Equals json.RawMessage `json:"equals,omitempty"`
	// LatencyBelow passes when the step's response time (from its intended
	// start) is below this.
	LatencyBelow string `json:"latency_below,omitempty"`
}

// Think is a pause between steps: Kind fixed (Duration), uniform (between
// Min and Max) or exponential (Mean, capped at 10 × Mean). Durations are Go
// duration strings ("250ms").
type Think struct {
	// Kind is fixed, uniform or exponential.
	Kind string `json:"kind"`
	// Duration is the fixed pause.
	Duration string `json:"duration,omitempty"`
	// Min and Max bound the uniform pause.
	Min string `json:"min,omitempty"`
	Max string `json:"max,omitempty"`
	// Mean is the mean of the exponential pause.
	Mean string `json:"mean,omitempty"`
}

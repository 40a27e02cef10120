package scenario_test

import (
	"math/rand/v2"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/barrage-dev/barrage/pkg/scenario"
)

const loginYAML = `
name: login
vars: {user: ann}
steps:
  - name: login
    url: http://127.0.0.1:1/login
    headers: {Content-Type: application/json}
    body: '{"user":"{{.user}}","token":"t-{{.iteration}}"}'
    extract:
      - {var: token, json_path: $.token}
      - {var: who, regex: '"user":"([a-z]+)"'}
      - {var: trace, header: X-Trace}
    checks:
      - {name: status is 200, status: [200, 201]}
    think: {kind: fixed, duration: 5ms}
  - name: read
    url: http://127.0.0.1:1/me?u={{.who}}
    headers: {Authorization: 'Bearer {{.token}}'}
    checks:
      - {name: has user, body_contains: ann}
      - {name: user field, json_path: '$.user', equals: ann}
      - {name: token exists, json_path: '$.token'}
      - {name: matches, body_matches: 'u[a-z]er'}
      - {name: fast, latency_below: 50ms}
    continue_on_failure: true
`

func mustParse(tb testing.TB, doc string) *scenario.Plan {
	tb.Helper()
	p, err := scenario.Parse([]byte(doc))
	if err != nil {
		tb.Fatalf("parse: %v", err)
	}
	return p
}

func TestParseAndRender(t *testing.T) {
	t.Parallel()
	p := mustParse(t, loginYAML)
	if p.Name != "login" || len(p.Steps) != 2 || !p.Steps[1].ContinueOnFailure || p.Steps[0].ContinueOnFailure {
		t.Fatalf("plan: %+v", p)
	}
	vars := map[string]string{"user": "ann", scenario.IterationVar: "7"}
	req, err := p.Steps[0].Render(vars)
	if err != nil {
		t.Fatal(err)
	}
	if req.Method != "POST" || req.URL != "http://127.0.0.1:1/login" || string(req.Body) != `{"user":"ann","token":"t-7"}` ||
		req.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("request: %+v body %s", req, req.Body)
	}
	resp := &scenario.Response{Status: 201, Header: http.Header{"X-Trace": {"abc"}}, Body: req.Body}
	if o := p.Steps[0].Evaluate(resp, vars); o.Failed() {
		t.Fatalf("outcome: %+v", o)
	}
	if vars["token"] != "t-7" || vars["who"] != "ann" || vars["trace"] != "abc" {
		t.Fatalf("vars: %v", vars)
	}
	if d := p.Steps[0].Think(rand.New(rand.NewPCG(1, 1))); d != 5*time.Millisecond {
		t.Fatalf("think %v", d)
	}
	req, err = p.Steps[1].Render(vars)
	if err != nil {
		t.Fatal(err)
	}
	if req.Method != "GET" || req.URL != "http://127.0.0.1:1/me?u=ann" || req.Header.Get("Authorization") != "Bearer t-7" {
		t.Fatalf("request 2: %+v", req)
	}
}

func TestEvaluate(t *testing.T) {
	t.Parallel()
	p := mustParse(t, loginYAML)
	tests := []struct {
		name       string
		step       int
		resp       scenario.Response
		wantChecks []string
		wantExtr   []string
	}{
		{"all pass", 1, scenario.Response{Status: 200, Body: []byte(`{"user":"ann","token":1}`), Latency: time.Millisecond}, nil, nil},
		{"slow and wrong user", 1, scenario.Response{Status: 200, Body: []byte(`{"user":"bob","token":null}`), Latency: time.Second},
			[]string{"has user", "user field", "fast"}, nil},
		{"not JSON", 1, scenario.Response{Body: []byte(`ann user`)}, []string{"user field", "token exists"}, nil},
		{"bad status, nothing to extract", 0, scenario.Response{Status: 500, Body: []byte(`{}`)},
			[]string{"status is 200"}, []string{"token", "who", "trace"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			vars := map[string]string{}
			o := p.Steps[tt.step].Evaluate(&tt.resp, vars)
			if strings.Join(o.FailedChecks, ",") != strings.Join(tt.wantChecks, ",") ||
				strings.Join(o.FailedExtractions, ",") != strings.Join(tt.wantExtr, ",") {
				t.Fatalf("outcome %+v; want checks %v extractions %v", o, tt.wantChecks, tt.wantExtr)
			}
			if len(tt.wantExtr) > 0 && len(vars) != 0 {
				t.Fatalf("failed extraction set vars: %v", vars)
			}
		})
	}
}

func TestThinkDistributions(t *testing.T) {
	t.Parallel()
	p := mustParse(t, `{"steps":[
	 {"name":"u","url":"http://h/","think":{"kind":"uniform","min":"10ms","max":"20ms"}},
	 {"name":"e","url":"http://h/","think":{"kind":"exponential","mean":"10ms"}}]}`)
	rng := rand.New(rand.NewPCG(3, 4))
	var sumU, sumE time.Duration
	const n = 4000
	for range n {
		u, e := p.Steps[0].Think(rng), p.Steps[1].Think(rng)
		if u < 10*time.Millisecond || u > 20*time.Millisecond || e < 0 || e > 100*time.Millisecond {
			t.Fatalf("out of range: uniform %v exponential %v", u, e)
		}
		sumU += u
		sumE += e
	}
	if m := sumU / n; m < 14*time.Millisecond || m > 16*time.Millisecond {
		t.Fatalf("uniform mean %v", m)
	}
	if m := sumE / n; m < 9*time.Millisecond || m > 11*time.Millisecond {
		t.Fatalf("exponential mean %v", m)
	}
}

func TestParseErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, doc, want string
	}{
		{"empty", ``, "empty document"},
		{"no steps", `{"name":"x"}`, "steps: at least one step is required"},
		{"unknown field", `{"steps":[{"name":"a","url":"http://h/","bogus":1}]}`, "steps[0].bogus: unknown field"},
		{"field name in the wrong case", `{"steps":[{"Name":"a","url":"http://h/"}]}`, "steps[0].Name: unknown field"},
		{"top level not an object", `[1]`, "scenario: want an object, not an array"},
		{"steps not an array", `{"steps":{"name":"a"}}`, "steps: want an array, not an object"},
		{"group not an integer", `{"steps":[{"name":"a","url":"http://h/","extract":[{"var":"v","regex":"(a)","group":1.5}]}]}`, "steps[0].extract[0].group: want an integer, not the number 1.5"},
		{"header value not a string", "steps: [{name: a, url: 'http://h/', headers: {X: 1}}]", "steps[0].headers.X: want a string, not the number 1"},
		{"wrong type", `{"steps":[{"name":"a","url":"http://h/","checks":[{"name":"s","status":"200"}]}]}`, `steps[0].checks[0].status: want an array, not the string "200"`},
		{"status not an integer", `{"steps":[{"name":"a","url":"http://h/","checks":[{"name":"s","status":[200,"x"]}]}]}`, `steps[0].checks[0].status[1]: want an integer, not the string "x"`},
		{"bad yaml", "steps: [\n  - {name: a", "yaml"},
		{"no name", `{"steps":[{"url":"http://h/"}]}`, "steps[0].name: required"},
		{"duplicate name", `{"steps":[{"name":"a","url":"http://h/"},{"name":"a","url":"http://h/"}]}`, `steps[1].name: "a" is also the name of steps[0]`},
		{"no url", `{"steps":[{"name":"a"}]}`, "steps[0].url: required"},
		{"relative url", `{"steps":[{"name":"a","url":"/x"}]}`, "steps[0].url: want an absolute"},
		{"bad method", `{"steps":[{"name":"a","url":"http://h/","method":"GE T"}]}`, "steps[0].method"},
		{"bad header name", `{"steps":[{"name":"a","url":"http://h/","headers":{"A B":"x"}}]}`, "steps[0].headers.A B: not a valid header name"},
		{"unknown variable", `{"steps":[{"name":"a","url":"http://h/{{.nope}}"}]}`, `steps[0].url: unknown variable "nope"`},
		{"variable used before extracted", `{"steps":[{"name":"a","url":"http://h/","headers":{"X":"{{.tok}}"},"extract":[{"var":"tok","header":"X"}]}]}`,
			`steps[0].headers.X: unknown variable "tok"`},
		{"field of a variable", `{"steps":[{"name":"a","url":"http://h/{{.iteration.A}}"}]}`, "steps[0].url: only {{.name}} is supported, not {{.iteration.A}}"},
		{"function", `{"vars":{"x":"1"},"steps":[{"name":"a","url":"http://h/","body":"{{index .x 5}}"}]}`, "steps[0].body: only {{.name}}"},
		{"control structure", `{"vars":{"x":"1"},"steps":[{"name":"a","url":"http://h/","body":"{{if .x}}y{{end}}"}]}`, "steps[0].body: only {{.name}}"},
		{"bad template", `{"steps":[{"name":"a","url":"http://h/","body":"{{.x"}]}`, "steps[0].body:"},
		{"bad json path", `{"steps":[{"name":"a","url":"http://h/"},{"name":"b","url":"http://h/","extract":[{"var":"v","json_path":"$[?"}]}]}`,
			"steps[1].extract[0].json_path:"},
		{"bad regex", `{"steps":[{"name":"a","url":"http://h/","extract":[{"var":"v","regex":"(a"}]}]}`, "steps[0].extract[0].regex: error parsing regexp"},
		{"regex without group", `{"steps":[{"name":"a","url":"http://h/","extract":[{"var":"v","regex":"a"}]}]}`, "steps[0].extract[0].group: the regex has 0 groups, not 1"},
		{"two sources", `{"steps":[{"name":"a","url":"http://h/","extract":[{"var":"v","regex":"(a)","header":"X"}]}]}`, "steps[0].extract[0]: set exactly one"},
		{"bad var name", `{"steps":[{"name":"a","url":"http://h/","extract":[{"var":"1v","header":"X"}]}]}`, "steps[0].extract[0].var:"},
		{"check without name", `{"steps":[{"name":"a","url":"http://h/","checks":[{"status":[200]}]}]}`, "steps[0].checks[0].name: required"},
		{"check with two kinds", `{"steps":[{"name":"a","url":"http://h/","checks":[{"name":"c","status":[200],"body_contains":"x"}]}]}`, "steps[0].checks[0]: set exactly one"},
		{"bad status", `{"steps":[{"name":"a","url":"http://h/","checks":[{"name":"c","status":[200,99]}]}]}`, "steps[0].checks[0].status[1]: 99 is not an HTTP status"},
		{"bad check regex", `{"steps":[{"name":"a","url":"http://h/","checks":[{"name":"c","body_matches":"["}]}]}`, "steps[0].checks[0].body_matches:"},
		{"equals without path", `{"steps":[{"name":"a","url":"http://h/","checks":[{"name":"c","body_contains":"x","equals":1}]}]}`, "steps[0].checks[0].equals: only with json_path"},
		{"bad latency", `{"steps":[{"name":"a","url":"http://h/","checks":[{"name":"c","latency_below":"soon"}]}]}`, "steps[0].checks[0].latency_below: want"},
		{"bad think kind", `{"steps":[{"name":"a","url":"http://h/","think":{"kind":"poisson"}}]}`, "steps[0].think.kind: want fixed"},
		{"uniform max below min", `{"steps":[{"name":"a","url":"http://h/","think":{"kind":"uniform","min":"2s","max":"1s"}}]}`, "steps[0].think.max: below min"},
		{"fixed without duration", `{"steps":[{"name":"a","url":"http://h/","think":{"kind":"fixed"}}]}`, "steps[0].think.duration: required"},
		{"once after a looping step", `{"steps":[{"name":"login","url":"http://h/","once":true},{"name":"a","url":"http://h/"},{"name":"b","url":"http://h/","once":true}]}`,
			`steps[2].once: step "b" runs once, so it must come before step "a"`},
		{"only once steps", `{"steps":[{"name":"login","url":"http://h/","once":true},{"name":"again","url":"http://h/","once":true}]}`,
			`steps[1].once: every step is once (the last, "again", too)`},
		{"unknown protocol", `{"steps":[{"name":"a","url":"http://h/","protocol":"h3"}]}`, `steps[0].protocol: "h3" is not a step protocol: want http/1.1 or h2`},
		{"protocol in capitals", `{"steps":[{"name":"a","url":"http://h/","protocol":"H2"}]}`, `steps[0].protocol: "H2" is not a step protocol`},
		{"grpc url with a variable", `{"vars":{"m":"Ping"},"steps":[{"name":"a","url":"grpc://h:1/fgrpc.PingServer/{{.m}}"}]}`, "steps[0].url: a gRPC step's URL takes no variables"},
		{"grpc url without a method", `{"steps":[{"name":"a","url":"grpc://h:1/fgrpc.PingServer"}]}`, "steps[0].url: want grpc://host:port/package.Service/Method: the path names"},
		{"grpc url with a query", `{"steps":[{"name":"a","url":"grpcs://h:1/fgrpc.PingServer/Ping?x=1"}]}`, "steps[0].url: want grpc://host:port/package.Service/Method: the path names"},
		{"grpc step with an http method", `{"steps":[{"name":"a","url":"grpc://h:1/a.B/C","method":"GET"}]}`, "steps[0].method: a gRPC step has no HTTP method"},
		{"grpc step with a protocol", `{"steps":[{"name":"a","url":"grpc://h:1/a.B/C","protocol":"h2"}]}`, "steps[0].protocol: a gRPC step's protocol is gRPC"},
		{"grpc status out of range", `{"steps":[{"name":"a","url":"grpc://h:1/a.B/C","checks":[{"name":"c","status":[200]}]}]}`, "steps[0].checks[0].status[0]: 200 is not a gRPC status code"},
		{"http status below 100", `{"steps":[{"name":"a","url":"http://h/","checks":[{"name":"c","status":[0]}]}]}`, "steps[0].checks[0].status[0]: 0 is not an HTTP status"},
		{"once not a bool", `{"steps":[{"name":"a","url":"http://h/","once":"yes"}]}`, "steps[0].once: want"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := scenario.Parse([]byte(tt.doc))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v; want it to contain %q", err, tt.want)
			}
		})
	}
}

func TestStepProtocol(t *testing.T) {
	t.Parallel()
	p, err := scenario.Parse([]byte(`{"steps":[{"name":"a","url":"http://h/"},{"name":"b","url":"http://h/","protocol":"http/1.1"},{"name":"c","url":"https://h/","protocol":"h2"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	var got []bool
	for _, st := range p.Steps {
		got = append(got, st.H2)
	}
	if !slices.Equal(got, []bool{false, false, true}) {
		t.Fatalf("H2 of the steps = %v; want only the third", got)
	}
}

func TestGRPCStep(t *testing.T) {
	t.Parallel()
	p, err := scenario.Parse([]byte(`{"steps":[{"name":"a","url":"grpcs://[::1]/grpc.health.v1.Health/Check","body":"{\"service\": \"{{.iteration}}\"}",
		"checks":[{"name":"ok","status":[0]}]},{"name":"b","url":"grpc://h:8079/fgrpc.PingServer/Ping"},{"name":"c","url":"http://h/"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	want := []*scenario.GRPCStep{{TLS: true, Addr: "[::1]:443", Method: "/grpc.health.v1.Health/Check"}, {Addr: "h:8079", Method: "/fgrpc.PingServer/Ping"}, nil}
	for i, st := range p.Steps {
		if (st.GRPC == nil) != (want[i] == nil) || (st.GRPC != nil && *st.GRPC != *want[i]) {
			t.Fatalf("step %d: %+v, want %+v", i, st.GRPC, want[i])
		}
	}
}

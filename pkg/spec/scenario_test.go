package spec

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

const loginScenario = `{
  "scenario": {"name": "login", "vars": {"password": "hunter2"}, "steps": [
    {"name": "login", "method": "POST", "url": "http://127.0.0.1:8088/login?token=abc",
     "headers": {"Authorization": "Basic c2VjcmV0", "X-Trace": "t"}, "body": "{\"p\":\"{{.password}}\"}",
     "extract": [{"var": "token", "header": "X-Token"}]},
    {"name": "profile", "url": "http://127.0.0.1:8088/debug", "headers": {"Authorization": "Bearer {{.token}}"}}
  ]},
  "iterations_per_second": 20, "count": 10, "connections": 4
}`

func TestScenarioSpecParses(t *testing.T) {
	s, err := Parse([]byte(loginScenario))
	if err != nil {
		t.Fatal(err)
	}
	if s.URL != "http://127.0.0.1:8088/" || s.Pacing != PacingOpen || s.Method != "" || s.PeakQPS() != 40 {
		t.Fatalf("url %q pacing %q method %q peak %g", s.URL, s.Pacing, s.Method, s.PeakQPS())
	}
	r := s.Redacted()
	st := r.Scenario.Steps[0]
	if st.Headers["Authorization"] != RedactedValue || st.Headers["X-Trace"] != "t" || r.Scenario.Vars["password"] != RedactedValue ||
		!strings.Contains(st.URL, "token="+RedactedValue) || r.Scenario.Steps[1].Headers["Authorization"] != RedactedValue {
		t.Fatalf("redacted: %+v vars %v", r.Scenario.Steps, r.Scenario.Vars)
	}
	if s.Scenario.Steps[0].Headers["Authorization"] != "Basic c2VjcmV0" || s.Scenario.Vars["password"] != "hunter2" {
		t.Fatal("Redacted changed the spec it copied")
	}
	// A normalized scenario spec survives a JSON round trip.
	b, _ := json.Marshal(s)
	again, err := Parse(b)
	if err != nil || again.URL != s.URL {
		t.Fatalf("round trip: %v %q", err, again.URL)
	}
}

func TestScenarioSpecErrorsNameTheField(t *testing.T) {
	for _, tc := range []struct {
		name, edit, field string
	}{
		{"unknown variable", `"Bearer {{.token}}"`, "scenario.steps[1].headers.Authorization"},
		{"bad json path", `"token", "header": "X-Token"`, "scenario.steps[0].extract[0].json_path"},
		{"bad regex", `"token", "header": "X-Token"`, "scenario.steps[0].extract[0].regex"},
		{"templated host", `"http://127.0.0.1:8088/debug"`, "scenario.steps[1].url"},
		{"unknown step field", `"profile"`, "scenario.steps[1].colour"},
		{"qps", `"connections": 4`, "qps"},
		{"rate", `"iterations_per_second": 20`, "iterations_per_second"},
		{"closed with a rate", `"iterations_per_second": 20`, "iterations_per_second"},
		{"fortio pacing", `"iterations_per_second": 20`, "pacing"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := loginScenario
			var repl string
			switch tc.name {
			case "unknown variable":
				repl = `"Bearer {{.tokn}}"`
			case "bad json path":
				repl = `"token", "json_path": "$.[["`
			case "bad regex":
				repl = `"token", "regex": "(["`
			case "templated host":
				repl = `"http://{{.token}}/debug"`
			case "unknown step field":
				repl = `"profile", "colour": "red"`
			case "qps":
				repl = `"connections": 4, "qps": 5`
			case "rate":
				repl = `"iterations_per_second": -1`
			case "closed with a rate":
				repl = `"iterations_per_second": 20, "pacing": "closed"`
			case "fortio pacing":
				repl = `"iterations_per_second": 20, "pacing": "fortio"`
			}
			doc = strings.Replace(doc, tc.edit, repl, 1)
			_, err := Parse([]byte(doc))
			if got := errorFields(t, err); !slices.Contains(got, tc.field) {
				t.Fatalf("fields %v, want %s (%v)", got, tc.field, err)
			}
		})
	}
}

// TestScenarioClosedLoop: without a rate a scenario run is closed, its
// connections the virtual users, and asks for no peak rate.
func TestScenarioClosedLoop(t *testing.T) {
	doc := strings.Replace(loginScenario, `"iterations_per_second": 20, `, "", 1)
	if doc == loginScenario {
		t.Fatal("the edit did not apply")
	}
	s, err := Parse([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	if s.Pacing != PacingClosed || s.IterationsPerSecond != 0 || s.PeakQPS() != 0 || s.Connections != 4 {
		t.Fatalf("pacing %q rate %v peak %v connections %d", s.Pacing, s.IterationsPerSecond, s.PeakQPS(), s.Connections)
	}
	open, err := Parse([]byte(strings.Replace(doc, `"count": 10`, `"count": 10, "pacing": "open"`, 1)))
	if got := errorFields(t, err); !slices.Equal(got, []string{"iterations_per_second"}) {
		t.Fatalf("open without a rate: fields %v (%+v)", got, open)
	}
}

func TestIterationsPerSecondNeedsAScenario(t *testing.T) {
	s := normalized(Spec{URL: target, IterationsPerSecond: 3})
	if got := errorFields(t, s.Validate()); !slices.Equal(got, []string{"iterations_per_second"}) {
		t.Fatalf("fields %v", got)
	}
}

func TestStepTarget(t *testing.T) {
	for raw, want := range map[string]string{
		"http://a.example/x": "a.example:80", "https://a.example?q": "a.example:443", "http://[::1]:81/{{.x}}": "[::1]:81",
	} {
		if _, got, err := StepTarget(raw); err != nil || got != want {
			t.Errorf("%s: %q %v", raw, got, err)
		}
	}
}

// TestScenarioDataInSpec: a data file's secret columns are redacted where
// the spec is shown, its problems are 422s naming scenario.data fields, and
// a split file needs a row for every agent asked for.
func TestScenarioDataInSpec(t *testing.T) {
	withData := func(data string) []byte {
		return []byte(strings.Replace(loginScenario, `"iterations_per_second": 20`, `"iterations_per_second": 20, `+data, 1))
	}
	doc := strings.Replace(string(withData(`"agents": {"count": 2}`)), `"steps": [`,
		`"data": {"content": "user,secret\nann,s3cr3t\nbob,pw2\n", "split": true}, "steps": [`, 1)
	doc = strings.Replace(doc, `"vars": {"password": "hunter2"}, `, "", 1)
	doc = strings.Replace(doc, `{{.password}}`, `{{.user}}`, 1)
	s, err := Parse([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	r := s.Redacted()
	if got := r.Scenario.Data.Content; strings.Contains(got, "s3cr3t") || strings.Contains(got, "pw2") || !strings.Contains(got, "ann,"+RedactedValue) {
		t.Fatalf("redacted data: %q", got)
	}
	if !strings.Contains(s.Scenario.Data.Content, "s3cr3t") {
		t.Fatal("Redacted changed the spec's data")
	}
	for _, tc := range []struct{ from, to, field string }{
		{`"agents": {"count": 2}`, `"agents": {"count": 3}`, "scenario.data.split"},
		{`\nbob,pw2\n`, `\nbob\n`, "scenario.data.content"},
		{`"split": true`, `"split": true, "file": "users.csv"`, "scenario.data.file"},
		{`"split": true`, `"split": "yes"`, "scenario.data.split"},
	} {
		_, err := Parse([]byte(strings.Replace(doc, tc.from, tc.to, 1)))
		if got := errorFields(t, err); !slices.Contains(got, tc.field) {
			t.Fatalf("%s: fields %v, want %s (%v)", tc.to, got, tc.field, err)
		}
	}
}

// TestScenarioTLS: insecure and tls apply to a scenario's https:// steps,
// the client key is redacted like a single-request run's, and tls on a
// scenario without an https step, ALPN (a step chooses its protocol) and
// h2 are refused, each naming its field.
func TestScenarioTLS(t *testing.T) {
	cert, key := tlsPEMs(t)
	withTLS := func(steps string, tls map[string]any, extra string) string {
		b, _ := json.Marshal(tls)
		return `{"scenario": {"name": "s", "steps": ` + steps + `}, "iterations_per_second": 2, "count": 4, "insecure": true, "tls": ` +
			string(b) + extra + `}`
	}
	https := `[{"name": "a", "url": "https://127.0.0.1:8443/", "protocol": "h2"}, {"name": "b", "url": "http://127.0.0.1:8088/"}]`
	s, err := Parse([]byte(withTLS(https, map[string]any{"ca_cert": cert, "client_cert": cert, "client_key": key, "server_name": "echo.test", "min_version": "1.3"}, "")))
	if err != nil {
		t.Fatal(err)
	}
	if !s.Insecure || s.TLSSettings.ServerName != "echo.test" {
		t.Fatalf("insecure %v tls %+v", s.Insecure, s.TLSSettings)
	}
	if r := s.Redacted(); r.TLSSettings.ClientKey != RedactedValue || r.TLSSettings.CACert != cert {
		t.Fatalf("redacted tls %+v", r.TLSSettings)
	}
	for _, tc := range []struct {
		name, doc, field string
	}{
		{"no https step", withTLS(`[{"name": "a", "url": "http://127.0.0.1:8088/"}]`, map[string]any{"server_name": "x"}, ""), "tls"},
		{"alpn", withTLS(https, map[string]any{"alpn": "h2"}, ""), "tls.alpn"},
		{"key without cert", withTLS(https, map[string]any{"client_key": key}, ""), "tls.client_cert"},
		{"version", withTLS(https, map[string]any{"min_version": "2.0"}, ""), "tls.min_version"},
		{"h2", withTLS(https, map[string]any{"server_name": "x"}, `, "h2": true`), "h2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(tc.doc))
			if got := errorFields(t, err); !slices.Contains(got, tc.field) {
				t.Fatalf("fields %v, want %s (%v)", got, tc.field, err)
			}
		})
	}
}

// TestScenarioGRPCSteps: a scenario may start with a gRPC step (its origin
// names the run), grpcs:// steps take tls, and a step's gRPC target is
// checked like an HTTP one's.
func TestScenarioGRPCSteps(t *testing.T) {
	s, err := Parse([]byte(`{"scenario": {"name": "g", "steps": [{"name": "ping", "url": "grpcs://127.0.0.1:8079/fgrpc.PingServer/Ping"}]},
		"iterations_per_second": 2, "count": 4, "tls": {"server_name": "echo.test"}}`))
	if err != nil {
		t.Fatal(err)
	}
	if s.URL != "grpcs://127.0.0.1:8079/" {
		t.Fatalf("url %q", s.URL)
	}
	for _, tc := range []struct{ url, scheme, addr string }{
		{"grpc://h/a.B/C", "grpc", "h:80"}, {"grpcs://h/a.B/C", "grpcs", "h:443"}, {"GRPC://h:9/a.B/C", "grpc", "h:9"},
	} {
		scheme, addr, err := StepTarget(tc.url)
		if err != nil || scheme != tc.scheme || addr != tc.addr {
			t.Errorf("StepTarget(%q) = %q, %q, %v; want %q, %q", tc.url, scheme, addr, err, tc.scheme, tc.addr)
		}
	}
	if _, _, err := StepTarget("tcp://h:1/"); err == nil || !strings.Contains(err.Error(), "grpcs://") {
		t.Errorf("tcp step: %v", err)
	}
}

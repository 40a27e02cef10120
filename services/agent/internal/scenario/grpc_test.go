package scenario_test

import (
	"maps"
	"strings"
	"testing"

	pkgspec "github.com/barrage-dev/barrage/pkg/spec"
	"github.com/barrage-dev/barrage/pkg/testcert"
	"github.com/barrage-dev/barrage/services/agent/internal/echoproc"
	"github.com/barrage-dev/barrage/services/agent/internal/scenario"
	"github.com/barrage-dev/barrage/services/agent/internal/tlsconf"
)

// grpcFlow calls the echo's ping with the iteration's number, takes the
// payload it returns (protobuf JSON) into a variable that an HTTP step
// sends on, then asks the health service about a service it does not
// know: NotFound (5), which the check "serving" refuses.
const grpcFlow = `
name: grpc
steps:
  - name: ping
    url: grpc://GRPC/fgrpc.PingServer/Ping
    body: '{"seq": {{.iteration}}, "payload": "tok-{{.iteration}}"}'
    extract:
      - {var: token, json_path: $.payload}
    checks:
      - {name: ping ok, status: [0]}
      - {name: seq back, json_path: $.seq}
  - name: read
    url: http://HTTP/debug
    headers: {Authorization: 'Bearer {{.token}}'}
    checks:
      - {name: token sent, body_matches: 'Authorization: Bearer tok-[0-9]+\n'}
  - name: health
    url: grpc://GRPC/grpc.health.v1.Health/Check
    body: '{"service": "nope"}'
    checks:
      - {name: serving, status: [0]}
`

// TestGRPCStepsAgainstEcho runs grpcFlow against the real echo: every
// ping answers OK with the payload sent, which reaches the HTTP step;
// every health check answers NotFound and fails its check by name.
func TestGRPCStepsAgainstEcho(t *testing.T) {
	t.Parallel()
	a := echoproc.Start(t)
	plan := mustPlan(t, strings.NewReplacer("GRPC", a.GRPC, "HTTP", a.HTTP).Replace(grpcFlow), "")
	const n = 8
	res, err := scenario.Run(runCtx(t), scenario.Options{Plan: plan, IterationsPerSecond: 40, MaxIterations: n, Concurrency: 2})
	if err != nil {
		t.Fatal(err)
	}
	if res.Started != n || res.Failed != n {
		t.Fatalf("started %d failed %d; want %d and %d", res.Started, res.Failed, n, n)
	}
	want := []struct {
		codes  map[string]int64
		failed map[string]int64
	}{
		{map[string]int64{"0": n}, map[string]int64{}},
		{map[string]int64{"200": n}, map[string]int64{}},
		{map[string]int64{"5": n}, map[string]int64{"serving": n}},
	}
	for i, st := range res.Steps {
		if st.Count != n || !maps.Equal(st.RetCodes, want[i].codes) || !maps.Equal(st.FailedChecks, want[i].failed) ||
			len(st.FailedExtractions) != 0 || len(st.TransportErrors) != 0 {
			t.Errorf("step %q: count %d codes %v failed checks %v extractions %v transport %v; want codes %v failed %v", st.Name, st.Count,
				st.RetCodes, st.FailedChecks, st.FailedExtractions, st.TransportErrors, want[i].codes, want[i].failed)
		}
	}
}

// TestGRPCStepErrors: a method the server does not offer ends the run
// before its first iteration, naming the step; a body that is not the
// method's request message is counted as a render error of its step; a
// server that is down is a transport error.
func TestGRPCStepErrors(t *testing.T) {
	t.Parallel()
	a := echoproc.Start(t)
	ctx := runCtx(t)
	plan := mustPlan(t, `{"steps":[{"name":"a","url":"http://`+a.HTTP+`/"},{"name":"b","url":"grpc://`+a.GRPC+`/fgrpc.PingServer/Pong"}]}`, "")
	_, err := scenario.Run(ctx, scenario.Options{Plan: plan, MaxIterations: 1, IterationsPerSecond: 10})
	if err == nil || !strings.Contains(err.Error(), "steps[1].url: grpc method /fgrpc.PingServer/Pong: service fgrpc.PingServer has no method Pong") {
		t.Fatalf("unknown method: %v", err)
	}
	plan = mustPlan(t, `{"steps":[{"name":"ping","url":"grpc://`+a.GRPC+`/fgrpc.PingServer/Ping","body":"{\"sequence\": 1}"}]}`, "")
	res, err := scenario.Run(ctx, scenario.Options{Plan: plan, MaxIterations: 3, IterationsPerSecond: 30})
	if err != nil {
		t.Fatal(err)
	}
	if st := res.Steps[0]; st.Count != 3 || st.TransportErrors["render"] != 3 || st.RetCodes["-1"] != 3 {
		t.Fatalf("bad body: count %d transport %v codes %v", st.Count, st.TransportErrors, st.RetCodes)
	}
}

// TestGRPCSStepWithClientCertificate: a grpcs:// step to the echo serving
// gRPC over TLS with a required client certificate answers SERVING with
// the run's CA and certificate; without the certificate the handshake
// fails, so the method cannot be looked up and the run does not start.
func TestGRPCSStepWithClientCertificate(t *testing.T) {
	t.Parallel()
	cert, key, _ := testcert.Write(t)
	a := echoproc.Start(t, "-cert", cert, "-key", key, "-client-ca", cert)
	plan := mustPlan(t, `{"steps":[{"name":"health","url":"grpcs://`+a.GRPC+`/grpc.health.v1.Health/Check",
		"checks":[{"name":"serving","json_path":"$.status","equals":"SERVING"}]}]}`, "")
	certPEM, keyPEM := testcert.Read(t, cert), testcert.Read(t, key)
	for _, tt := range []struct {
		settings *pkgspec.TLSSettings
		codes    map[string]int64
	}{
		{&pkgspec.TLSSettings{CACert: certPEM, ClientCert: certPEM, ClientKey: keyPEM}, map[string]int64{"0": 3}},
		{&pkgspec.TLSSettings{CACert: certPEM}, nil},
	} {
		cfg, err := tlsconf.Config(pkgspec.Spec{TLSSettings: tt.settings})
		if err != nil {
			t.Fatal(err)
		}
		res, err := scenario.Run(runCtx(t), scenario.Options{Plan: plan, MaxIterations: 3, IterationsPerSecond: 30, TLS: cfg})
		if tt.settings.ClientCert == "" {
			// Without the certificate the method cannot be looked up.
			if err == nil || !strings.Contains(err.Error(), "steps[0].url: grpc method /grpc.health.v1.Health/Check") {
				t.Fatalf("no client certificate: %v", err)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if st := res.Steps[0]; !maps.Equal(st.RetCodes, tt.codes) || st.Errors != 0 {
			t.Fatalf("codes %v errors %d failed checks %v; want %v", st.RetCodes, st.Errors, st.FailedChecks, tt.codes)
		}
	}
}

package scenario_test

import (
	"crypto/tls"
	"maps"
	"strings"
	"testing"

	pkgspec "github.com/barrage-dev/barrage/pkg/spec"
	"github.com/barrage-dev/barrage/pkg/testcert"
	"github.com/barrage-dev/barrage/services/agent/internal/echoproc"
	"github.com/barrage-dev/barrage/services/agent/internal/scenario"
	"github.com/barrage-dev/barrage/services/agent/internal/tlsconf"
)

// protocolFlow mixes protocols in one iteration: HTTP/2 over TLS to an
// echo that asks for a client certificate (TLS), h2c to a plain echo
// (PLAIN), then HTTP/1.1 over TLS. Each /debug answer names the protocol
// the echo saw; the token extracted from the first step's header and the
// cookie it set travel on through both others.
const protocolFlow = `
name: protocols
steps:
  - name: h2 over tls
    protocol: h2
    url: https://TLS/debug?header=Set-Cookie:sid%3D{{.iteration}}&header=X-Token:tok-{{.iteration}}
    extract:
      - {var: token, header: x-token}
    checks:
      - {name: saw h2, body_matches: ' HTTP/2\.0\n'}
  - name: h2c
    protocol: h2
    method: POST
    url: http://PLAIN/debug
    headers: {Authorization: 'Bearer {{.token}}'}
    body: 'n={{.iteration}}'
    checks:
      - {name: saw h2c, body_matches: 'POST /debug HTTP/2\.0\n'}
      - {name: token on h2c, body_matches: 'Authorization: Bearer tok-[0-9]+\n'}
      - {name: cookie on h2c, body_matches: 'Cookie: sid=[0-9]+\n'}
      - {name: body on h2c, body_matches: 'n=[0-9]+'}
  - name: http/1.1 over tls
    url: https://TLS/debug
    checks:
      - {name: saw http/1.1, body_matches: ' HTTP/1\.1\n'}
      - {name: cookie on 1.1, body_matches: 'Cookie: sid=[0-9]+\n'}
`

// TestH2AndTLSStepsAgainstEcho runs protocolFlow against the real echo,
// whose TLS port requires a client certificate signed by its CA. With the
// CA and the client certificate every step of every iteration passes; with
// the system's roots the first step fails certificate verification, and
// with the CA alone the server refuses the handshake: in both the other
// steps are skipped.
func TestH2AndTLSStepsAgainstEcho(t *testing.T) {
	t.Parallel()
	cert, key, _ := testcert.Write(t)
	secure := echoproc.Start(t, "-cert", cert, "-key", key, "-client-ca", cert).HTTP
	plain := startEcho(t)
	doc := strings.NewReplacer("TLS", secure, "PLAIN", plain).Replace(protocolFlow)
	plan := mustPlan(t, doc, "")
	certPEM, keyPEM := testcert.Read(t, cert), testcert.Read(t, key)
	const n = 6
	tests := []struct {
		name     string
		settings *pkgspec.TLSSettings
		failed   int64
		errKind  string
	}{
		{"ca and client certificate", &pkgspec.TLSSettings{CACert: certPEM, ClientCert: certPEM, ClientKey: keyPEM}, 0, ""},
		{"system roots", nil, n, "transport"},
		{"no client certificate", &pkgspec.TLSSettings{CACert: certPEM}, n, "transport"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := tlsconf.Config(pkgspec.Spec{TLSSettings: tt.settings})
			if err != nil {
				t.Fatal(err)
			}
			res, err := scenario.Run(runCtx(t), scenario.Options{Plan: plan, IterationsPerSecond: 30, MaxIterations: n, Concurrency: 2, TLS: cfg})
			if err != nil {
				t.Fatal(err)
			}
			if res.Started != n || res.Failed != tt.failed || res.Completed != n-tt.failed {
				t.Fatalf("started %d completed %d failed %d; want %d failed", res.Started, res.Completed, res.Failed, tt.failed)
			}
			first := res.Steps[0]
			if tt.failed > 0 {
				if first.Count != n || first.TransportErrors[tt.errKind] != n || res.Steps[1].Skipped != n || res.Steps[2].Skipped != n {
					t.Fatalf("first step %+v; skipped %d and %d", first, res.Steps[1].Skipped, res.Steps[2].Skipped)
				}
				return
			}
			for _, st := range res.Steps {
				if st.Count != n || st.Errors != 0 || st.RetCodes["200"] != n || len(st.FailedChecks) != 0 || len(st.FailedExtractions) != 0 {
					t.Fatalf("step %q: count %d errors %d codes %v failed checks %v extractions %v transport %v", st.Name, st.Count,
						st.Errors, st.RetCodes, st.FailedChecks, st.FailedExtractions, st.TransportErrors)
				}
			}
		})
	}
}

// TestH2StepDetectsTheWrongProtocol: the checks that pass above can fail.
// A step to the TLS echo without protocol h2 sees HTTP/1.1, so its h2
// check fails in every iteration, by name.
func TestH2StepDetectsTheWrongProtocol(t *testing.T) {
	t.Parallel()
	cert, key, _ := testcert.Write(t)
	secure := echoproc.Start(t, "-cert", cert, "-key", key).HTTP
	plan := mustPlan(t, `
name: wrong
steps:
  - name: not h2
    url: https://ECHO/debug
    checks:
      - {name: saw h2, body_matches: ' HTTP/2\.0\n'}
`, secure)
	res, err := scenario.Run(runCtx(t), scenario.Options{Plan: plan, IterationsPerSecond: 30, MaxIterations: 4, Concurrency: 1,
		TLS: &tls.Config{InsecureSkipVerify: true}}) //nolint:gosec // the test's self-signed echo
	if err != nil {
		t.Fatal(err)
	}
	if st := res.Steps[0]; st.RetCodes["200"] != 4 || !maps.Equal(st.FailedChecks, map[string]int64{"saw h2": 4}) {
		t.Fatalf("codes %v failed checks %v", st.RetCodes, st.FailedChecks)
	}
}

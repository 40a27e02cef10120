package fortiorest

import (
	"errors"
	"net/url"
	"reflect"
	"testing"
	"time"

	"github.com/barrage-dev/barrage/pkg/spec"
	"github.com/barrage-dev/barrage/services/api/internal/apperr"
)

func mustSpec(t *testing.T, query, body string) spec.Spec {
	t.Helper()
	q, err := url.ParseQuery(query)
	if err != nil {
		t.Fatal(err)
	}
	p, err := ReadParams(q, []byte(body))
	if err != nil {
		t.Fatalf("ReadParams(%q, %q): %v", query, body, err)
	}
	s, err := p.Spec()
	if err != nil {
		t.Fatalf("Spec(%q, %q): %v", query, body, err)
	}
	return s
}

func TestSpecMapsFortioParameters(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, query, body string
		check             func(t *testing.T, s spec.Spec)
	}{
		{"defaults are Fortio's", "url=http://h/", "", func(t *testing.T, s spec.Spec) {
			if s.QPS != 8 || s.Connections != 4 || s.Duration.Std() != 5*time.Second || s.Count != 0 {
				t.Errorf("qps %v c %d t %v n %d, want 8, 4, 5s, 0", s.QPS, s.Connections, s.Duration.Std(), s.Count)
			}
		}},
		{"qps c t p", "url=http://h/&qps=250&c=3&t=2s&p=50,99.9", "", func(t *testing.T, s spec.Spec) {
			if s.QPS != 250 || s.Connections != 3 || s.Duration.Std() != 2*time.Second || !reflect.DeepEqual(s.Percentiles, []float64{50, 99.9}) {
				t.Errorf("got qps %v c %d t %v p %v", s.QPS, s.Connections, s.Duration.Std(), s.Percentiles)
			}
		}},
		{"qps -1 is max", "url=http://h/&qps=-1", "", func(t *testing.T, s spec.Spec) {
			if s.QPS != 0 || s.Pacing != spec.PacingClosed {
				t.Errorf("qps %v pacing %s, want 0 closed", s.QPS, s.Pacing)
			}
		}},
		{"n wins over t", "url=http://h/&n=40&t=9s", "", func(t *testing.T, s spec.Spec) {
			if s.Count != 40 || s.Duration != 0 {
				t.Errorf("n %d t %v", s.Count, s.Duration)
			}
		}},
		{"t=on runs until stopped", "url=http://h/&t=on", "", func(t *testing.T, s spec.Spec) {
			if !s.UntilStopped || s.Duration != 0 {
				t.Errorf("until_stopped %v duration %v", s.UntilStopped, s.Duration)
			}
		}},
		{"headers from body and H", "jsonPath=.metadata&H=A:%201&H=B:2", `{"metadata":{"url":"http://h/","headers":["C: 3"],"payload":"xyz","content-type":"text/plain"}}`, func(t *testing.T, s spec.Spec) {
			if !reflect.DeepEqual(s.Headers, []string{"C: 3", "A: 1", "B:2"}) || s.Payload != "xyz" || s.ContentType != "text/plain" || s.Method != "POST" {
				t.Errorf("headers %q payload %q ct %q method %s", s.Headers, s.Payload, s.ContentType, s.Method)
			}
		}},
		{"query wins over body", "jsonPath=metadata&n=7", `{"metadata":{"url":"http://h/","n":"100","qps":"20"}}`, func(t *testing.T, s spec.Spec) {
			if s.Count != 7 || s.QPS != 20 {
				t.Errorf("n %d qps %v, want 7 from the query and 20 from the body", s.Count, s.QPS)
			}
		}},
		{"flags and labels", "url=http://h/&jitter=on&uniform=on&nocatchup=on&labels=team=a,env=b&timeout=750ms", "", func(t *testing.T, s spec.Spec) {
			if !s.Jitter || !s.Uniform || !s.NoCatchUp || s.Pacing != spec.PacingFortio || s.Timeout.Std() != 750*time.Millisecond {
				t.Errorf("jitter %v uniform %v nocatchup %v pacing %s timeout %v", s.Jitter, s.Uniform, s.NoCatchUp, s.Pacing, s.Timeout)
			}
			if !reflect.DeepEqual(s.Labels, map[string]string{"team": "a", "env": "b"}) {
				t.Errorf("labels %v", s.Labels)
			}
		}},
		{"free labels are the title", "url=http://h/&labels=canary%20check", "", func(t *testing.T, s spec.Spec) {
			if !reflect.DeepEqual(s.Labels, map[string]string{"title": "canary check"}) {
				t.Errorf("labels %v", s.Labels)
			}
		}},
		{"grpc ping", "url=127.0.0.1:8079&runner=grpc&ping=on&grpc-ping-delay=5ms", "", func(t *testing.T, s spec.Spec) {
			if s.URL != "grpc://127.0.0.1:8079" || s.GRPC == nil || s.GRPC.Mode != spec.GRPCPing || s.GRPC.PingDelay.Std() != 5*time.Millisecond {
				t.Errorf("url %s grpc %+v", s.URL, s.GRPC)
			}
		}},
		{"grpc health secure", "url=h:443&runner=grpc&grpc-secure=on&healthservice=ping", "", func(t *testing.T, s spec.Spec) {
			if s.URL != "grpcs://h:443" || s.GRPC.Mode != spec.GRPCHealth || s.GRPC.Service != "ping" {
				t.Errorf("url %s grpc %+v", s.URL, s.GRPC)
			}
		}},
		{"h2 on http is h2c", "url=http://h:8080/x&h2=on", "", func(t *testing.T, s spec.Spec) {
			if s.URL != "h2c://h:8080/x" {
				t.Errorf("url %s", s.URL)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.check(t, mustSpec(t, tt.query, tt.body))
		})
	}
}

func TestSpecNamesTheBadParameter(t *testing.T) {
	t.Parallel()
	tests := []struct{ query, body, field string }{
		{"url=http://h/&qps=abc", "", "qps"},
		{"url=http://h/&c=two", "", "c"},
		{"url=http://h/&c=-3", "", "c"},
		{"url=http://h/&t=42", "", "t"},
		{"url=http://h/&n=1.5", "", "n"},
		{"url=http://h/&p=50,x", "", "p"},
		{"url=http://h/&timeout=soon", "", "timeout"},
		{"qps=10", "", "url"},
		{"url=ftp://h/", "", "url"},
		{"url=http://h/&p=150", "", "p"},
		{"url=http://h/&H=no-colon", "", "H"},
		{"jsonPath=.nope", `{"metadata":{}}`, "jsonPath"},
		{"jsonPath=.metadata.url", `{"metadata":{"url":"http://h/"}}`, "jsonPath"},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			t.Parallel()
			q, _ := url.ParseQuery(tt.query)
			p, err := ReadParams(q, []byte(tt.body))
			if err == nil {
				_, err = p.Spec()
			}
			var e *apperr.Error
			if !errors.As(err, &e) || e.Code != apperr.Invalid || len(e.Fields) == 0 || e.Fields[0].Field != tt.field {
				t.Fatalf("error %v, want invalid naming %s", err, tt.field)
			}
		})
	}
}

func TestReadParamsRefusesABodyThatIsNotAnObject(t *testing.T) {
	t.Parallel()
	for _, body := range []string{`{"n":`, `[1,2]`, `"url"`} {
		if _, err := ReadParams(url.Values{}, []byte(body)); !apperr.Is(err, apperr.BadRequest) {
			t.Errorf("body %s: error %v, want bad request", body, err)
		}
	}
}

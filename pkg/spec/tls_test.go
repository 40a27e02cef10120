package spec

import (
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/barrage-dev/barrage/pkg/testcert"
)

func tlsPEMs(t *testing.T) (cert, key string) {
	t.Helper()
	certFile, keyFile, _ := testcert.Write(t)
	c, err := os.ReadFile(certFile)
	if err != nil {
		t.Fatal(err)
	}
	k, err := os.ReadFile(keyFile)
	if err != nil {
		t.Fatal(err)
	}
	return string(c), string(k)
}

// TestTLSSettingsRedactedAndValid: the client certificate and key are
// replaced, the rest kept, the original untouched, and the redacted spec
// still valid.
func TestTLSSettingsRedactedAndValid(t *testing.T) {
	t.Parallel()
	cert, key := tlsPEMs(t)
	s := Spec{URL: "https://example.test/", TLSSettings: &TLSSettings{
		CACert: cert, ClientCert: cert, ClientKey: key, ServerName: "sni.test", ALPN: ALPNH2, MinVersion: "1.3",
	}}
	s.Normalize()
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	r := s.Redacted()
	want := TLSSettings{CACert: cert, ClientCert: RedactedValue, ClientKey: RedactedValue, ServerName: "sni.test", ALPN: ALPNH2, MinVersion: "1.3"}
	if !reflect.DeepEqual(*r.TLSSettings, want) || s.TLSSettings.ClientKey != key {
		t.Fatalf("redacted %+v (original key kept: %v)", *r.TLSSettings, s.TLSSettings.ClientKey == key)
	}
	if err := r.Validate(); err != nil {
		t.Fatalf("redacted spec is invalid: %v", err)
	}
	if !s.HTTP2() {
		t.Fatal("alpn h2 does not select HTTP/2")
	}
	if c := s.Clone(); c.TLSSettings == s.TLSSettings {
		t.Fatal("Clone shares the TLS settings")
	}
}

func TestTLSSettingsRejected(t *testing.T) {
	t.Parallel()
	cert, key := tlsPEMs(t)
	other, _ := tlsPEMs(t)
	for _, tt := range []struct {
		url   string
		tls   TLSSettings
		field string
	}{
		{"https://h/", TLSSettings{CACert: "junk"}, "tls.ca_cert"},
		{"https://h/", TLSSettings{ClientCert: cert}, "tls.client_key"},
		{"https://h/", TLSSettings{ClientKey: key}, "tls.client_cert"},
		{"https://h/", TLSSettings{ClientCert: other, ClientKey: key}, "tls.client_key"},
		{"https://h/", TLSSettings{ClientCert: key, ClientKey: key}, "tls.client_cert"},
		{"https://h/", TLSSettings{ClientCert: cert, ClientKey: cert}, "tls.client_key"},
		{"https://h/", TLSSettings{MinVersion: "1.4"}, "tls.min_version"},
		{"https://h/", TLSSettings{Curves: []string{"X25519", "x25519"}}, "tls.curves[1]"},
		{"https://h/", TLSSettings{Curves: []string{"P-256", "X25519", "P-256"}}, "tls.curves[2]"},
		{"https://h/", TLSSettings{Curves: []string{"X25519", "P-256", "P-384", "P-521", "X25519MLKEM768", "SecP256r1MLKEM768", "SecP384r1MLKEM1024", "X25519"}}, "tls.curves"},
		{"https://h/", TLSSettings{ALPN: "h3"}, "tls.alpn"},
		{"https://h/", TLSSettings{ServerName: "a/b"}, "tls.server_name"},
		{"http://h/", TLSSettings{ServerName: "a"}, "tls"},
		{"grpc://h:1", TLSSettings{ServerName: "a"}, "tls"},
		{"grpcs://h:1", TLSSettings{ALPN: ALPNH2}, "tls.alpn"},
		{"h3 https://h/", TLSSettings{ALPN: ALPNHTTP11}, "tls.alpn"},
		{"redirects https://h/", TLSSettings{ServerName: "a"}, "tls"},
	} {
		s := Spec{URL: tt.url, TLSSettings: &tt.tls}
		if u, ok := strings.CutPrefix(tt.url, "h3 "); ok {
			s.URL, s.H3 = u, true
		}
		if u, ok := strings.CutPrefix(tt.url, "redirects "); ok {
			s.URL, s.FollowRedirects = u, true
		}
		s.Normalize()
		err := s.Validate()
		ve, ok := errors.AsType[*ValidationError](err)
		if !ok || len(ve.Errors) != 1 || ve.Errors[0].Field != tt.field {
			t.Errorf("%s %+v: %v; want one problem with %s", tt.url, tt.tls, err, tt.field)
		}
	}
}

// TestTLSSettingsForGRPCAndH3: grpcs:// and h3 take the CA, client
// certificate, SNI and minimum version; only ALPN is the protocol's.
func TestTLSSettingsForGRPCAndH3(t *testing.T) {
	t.Parallel()
	cert, key := tlsPEMs(t)
	tl := &TLSSettings{CACert: cert, ClientCert: cert, ClientKey: key, ServerName: "localhost", MinVersion: "1.3", NoResumption: true}
	for _, s := range []Spec{
		{URL: "grpcs://127.0.0.1:9443", TLSSettings: tl},
		{URL: "https://127.0.0.1:8443/", H3: true, TLSSettings: tl},
	} {
		s.Normalize()
		if err := s.Validate(); err != nil {
			t.Errorf("%s (h3 %v): %v", s.URL, s.H3, err)
		}
	}
}

package spec

import (
	"reflect"
	"testing"
)

func TestProtocol(t *testing.T) {
	t.Parallel()
	tests := []struct {
		url     string
		h2      bool
		proto   Protocol
		tls     bool
		http2   bool
		target  string
		httpURL string
	}{
		{url: "http://example.com/x", proto: ProtocolHTTP, target: "example.com:80", httpURL: "http://example.com/x"},
		{url: "http://example.com:8080", proto: ProtocolHTTP, target: "example.com:8080"},
		{url: "http://[::1]/", proto: ProtocolHTTP, target: "[::1]:80"},
		{url: "HTTP://Example.com/", proto: ProtocolHTTP, target: "Example.com:80"},
		{url: "https://example.com/", proto: ProtocolHTTP, tls: true, target: "example.com:443"},
		{url: "https://example.com/", h2: true, proto: ProtocolHTTP, tls: true, http2: true, target: "example.com:443"},
		{url: "h2c://example.com/p?q=1", proto: ProtocolHTTP, http2: true, target: "example.com:80",
			httpURL: "http://example.com/p?q=1"},
		{url: "H2C://example.com:81/", proto: ProtocolHTTP, http2: true, target: "example.com:81",
			httpURL: "http://example.com:81/"},
		{url: "grpc://echo:8079", proto: ProtocolGRPC, target: "echo:8079"},
		{url: "grpcs://echo:443", proto: ProtocolGRPC, tls: true, target: "echo:443"},
		{url: "tcp://echo:8078", proto: ProtocolTCP, target: "echo:8078"},
		{url: "udp://[::1]:8078", proto: ProtocolUDP, target: "[::1]:8078"},
		{url: "ftp://example.com/", proto: ProtocolUnknown},
		{url: "http://exa mple.com/", proto: ProtocolUnknown},
		{url: "", proto: ProtocolUnknown},
	}
	for _, tt := range tests {
		t.Run(tt.url, func(t *testing.T) {
			t.Parallel()
			s := Spec{URL: tt.url, H2: tt.h2}
			if got := s.Protocol(); got != tt.proto {
				t.Errorf("Protocol() = %v, want %v", got, tt.proto)
			}
			if got := s.TLS(); got != tt.tls {
				t.Errorf("TLS() = %v, want %v", got, tt.tls)
			}
			if got := s.HTTP2(); got != tt.http2 {
				t.Errorf("HTTP2() = %v, want %v", got, tt.http2)
			}
			if got := s.Target(); got != tt.target {
				t.Errorf("Target() = %q, want %q", got, tt.target)
			}
			want := tt.httpURL
			if want == "" {
				want = tt.url
			}
			if got := s.HTTPURL(); got != want {
				t.Errorf("HTTPURL() = %q, want %q", got, want)
			}
		})
	}
}

func TestProtocolString(t *testing.T) {
	t.Parallel()
	if got := ProtocolUnknown.String(); got != "unknown" {
		t.Errorf("ProtocolUnknown.String() = %q", got)
	}
	if got := ProtocolGRPC.String(); got != "grpc" {
		t.Errorf("ProtocolGRPC.String() = %q", got)
	}
}

func TestHeaderPairs(t *testing.T) {
	t.Parallel()
	s := Spec{Headers: []string{"A: b", "X-Empty:", "broken", "C:  d: e \t", " Host :x"}}
	want := []Header{{"A", "b"}, {"X-Empty", ""}, {"C", "d: e"}, {"Host", "x"}}
	if got := s.HeaderPairs(); !reflect.DeepEqual(got, want) {
		t.Errorf("HeaderPairs() = %q, want %q", got, want)
	}
}

func TestRateAndLength(t *testing.T) {
	t.Parallel()
	ramp := normalized(Spec{URL: target, Ramp: &Ramp{From: 1, To: 50, Over: dur(1)}})
	if got := ramp.PeakQPS(); got != 50 {
		t.Errorf("PeakQPS() with ramp = %v, want 50", got)
	}
	if got := normalized(Spec{URL: target, QPS: 7}).PeakQPS(); got != 7 {
		t.Errorf("PeakQPS() = %v, want 7", got)
	}
	if got := normalized(Spec{URL: target}).RunFor(); got != DefaultDuration {
		t.Errorf("RunFor() = %v, want %v", got, DefaultDuration)
	}
	if got := normalized(Spec{URL: target, Count: 3}).RunFor(); got != 0 {
		t.Errorf("RunFor() with count = %v, want 0", got)
	}
}

func TestEnumsValid(t *testing.T) {
	t.Parallel()
	for _, p := range []Pacing{PacingOpen, PacingClosed, PacingFortio} {
		if !p.Valid() {
			t.Errorf("%q.Valid() = false", p)
		}
	}
	for _, m := range []GRPCMode{GRPCHealth, GRPCPing, GRPCMethod} {
		if !m.Valid() {
			t.Errorf("%q.Valid() = false", m)
		}
	}
	if Pacing("").Valid() || Pacing("Open").Valid() || GRPCMode("").Valid() || GRPCMode("reflect").Valid() {
		t.Error("an unknown mode is valid")
	}
}

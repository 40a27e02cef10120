package app

import (
	"compress/gzip"
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestHTTP1AndH2CAgree sends the same requests over HTTP/1.1 (served by
// fasthttp) and h2c (served by net/http): both paths must answer alike.
func TestHTTP1AndH2CAgree(t *testing.T) {
	t.Parallel()
	a := startApp(t, nil)
	h2 := new(http.Protocols)
	h2.SetUnencryptedHTTP2(true)
	clients := map[string]*http.Client{
		"HTTP/1.1": {Transport: &http.Transport{DisableCompression: true}},
		"HTTP/2.0": {Transport: &http.Transport{Protocols: h2, DisableCompression: true}},
	}
	tests := []struct {
		name, method, query, body string
		header                    map[string]string
		status                    int
		wantBody                  string
		wantLen                   int
		wantHeader                map[string]string
	}{
		{name: "echo body", method: "POST", body: "hello", header: map[string]string{"Content-Type": "text/x-a"},
			status: 200, wantBody: "hello", wantLen: 5, wantHeader: map[string]string{"Content-Type": "text/x-a"}},
		{name: "status and header", method: "GET", query: "status=418&header=X-A:b", status: 418, wantLen: 0,
			wantHeader: map[string]string{"X-A": "b"}},
		{name: "size", method: "GET", query: "size=1000", status: 200, wantLen: 1000,
			wantHeader: map[string]string{"Content-Type": "application/octet-stream"}},
		{name: "size clamped", method: "GET", query: "size=99999999", status: 200, wantLen: 256 << 10},
		{name: "bad status", method: "GET", query: "status=abc", status: 400, wantLen: -1},
		{name: "over 100", method: "GET", query: "status=500:70,501:70", status: 400, wantLen: -1},
		{name: "gzip", method: "POST", query: "gzip=true", body: strings.Repeat("z", 2000),
			header: map[string]string{"Accept-Encoding": "gzip"}, status: 200, wantBody: strings.Repeat("z", 2000), wantLen: 2000,
			wantHeader: map[string]string{"Content-Encoding": "gzip"}},
		{name: "healthz", method: "GET", status: 200, wantBody: "ok\n", wantLen: 3},
	}
	for proto, client := range clients {
		for _, tt := range tests {
			t.Run(proto+" "+tt.name, func(t *testing.T) {
				path := "/echo"
				if tt.name == "healthz" {
					path = "/healthz"
				}
				url := "http://" + a.HTTPAddr() + path + "?" + tt.query
				req, _ := http.NewRequest(tt.method, url, strings.NewReader(tt.body))
				for k, v := range tt.header {
					req.Header.Set(k, v)
				}
				resp, err := client.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				defer resp.Body.Close()
				var r io.Reader = resp.Body
				if resp.Header.Get("Content-Encoding") == "gzip" {
					if r, err = gzip.NewReader(resp.Body); err != nil {
						t.Fatal(err)
					}
				}
				body, _ := io.ReadAll(r)
				if resp.Proto != proto || resp.StatusCode != tt.status {
					t.Fatalf("%s %d, want %s %d (body %q)", resp.Proto, resp.StatusCode, proto, tt.status, body)
				}
				if tt.wantBody != "" && string(body) != tt.wantBody {
					t.Fatalf("body %q, want %q", body, tt.wantBody)
				}
				if tt.wantLen >= 0 && len(body) != tt.wantLen {
					t.Fatalf("body length %d, want %d", len(body), tt.wantLen)
				}
				for k, v := range tt.wantHeader {
					if got := resp.Header.Get(k); got != v {
						t.Fatalf("header %s = %q, want %q", k, got, v)
					}
				}
			})
		}
	}
}

func TestDebugAndMetricsOverHTTP1(t *testing.T) {
	t.Parallel()
	a := startApp(t, nil)
	resp, err := http.Post("http://"+a.HTTPAddr()+"/debug?header=X-D:1", "text/plain", strings.NewReader("dbg body"))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	for _, want := range []string{"POST /debug?header=X-D:1 HTTP/1.1", "Host: " + a.HTTPAddr(), "dbg body"} {
		if !strings.Contains(string(body), want) {
			t.Errorf("/debug lacks %q:\n%s", want, body)
		}
	}
	if resp.Header.Get("X-D") != "1" {
		t.Errorf("/debug did not add the header: %v", resp.Header)
	}
	for range 3 {
		r, err := http.Get("http://" + a.HTTPAddr() + "/?status=503")
		if err != nil {
			t.Fatal(err)
		}
		_ = r.Body.Close()
	}
	if m := metricsText(t, a); !strings.Contains(m, `barrage_echo_http_requests_total{code="503"} 3`) {
		t.Fatalf("metrics after 3 fast-path 503s:\n%s", m)
	}
}

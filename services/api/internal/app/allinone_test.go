package app

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/barrage-dev/barrage/services/api/client"
)

// TestAllInOneEchoTakesProfiles checks that the all-in-one echo is a
// managed echo of the default project on the embedded NATS (operator
// mode, its own credentials): it registers itself with the address the
// start-up notice gives, a profile activated on the project changes its
// answers to requests without a query, a changed profile changes them
// again, and a deleted one restores them.
func TestAllInOneEchoTakesProfiles(t *testing.T) { // serial: see heavyTests
	e := startAPI(t, "BARRAGE_ALL_IN_ONE=true", "BARRAGE_ECHO_HTTP_ADDR=127.0.0.1:0", "BARRAGE_ECHO_GRPC_ADDR=",
		"BARRAGE_ECHO_TCP_ADDR=", "BARRAGE_ECHO_UDP_ADDR=")
	m := regexp.MustCompile(`echo target: (http://127\.0\.0\.1:\d+/)`).FindStringSubmatch(e.Out)
	if m == nil {
		t.Fatalf("start-up notice %q does not name the echo target", e.Out)
	}
	echoURL := m[1]
	u, err := url.Parse(echoURL)
	if err != nil {
		t.Fatal(err)
	}
	var echo client.EchoServer
	waitFor(t, 20*time.Second, func() error {
		list := decode[client.EchoServerList](t, e.mustDo(t, http.StatusOK, http.MethodGet, "/echo-servers?project=default", e.AdminToken, nil))
		if len(list.Items) != 1 {
			return fmt.Errorf("echo servers %+v, want the all-in-one echo", list.Items)
		}
		echo = list.Items[0]
		return nil
	})
	if echo.Name != "all-in-one" || echo.Project != "default" || !slices.Contains(echo.Addrs, u.Host) || derefS(echo.AppliedProfile) != "" {
		t.Fatalf("echo %+v, want all-in-one of project default on %s applying nothing", echo, u.Host)
	}
	if code := echoStatus(t, echoURL); code != http.StatusOK {
		t.Fatalf("before any profile the echo answers %d", code)
	}

	profile := decode[client.EchoProfile](t, e.mustDo(t, http.StatusCreated, http.MethodPost, "/echo-profiles", e.AdminToken,
		map[string]any{"project": "default", "name": "teapot", "content": "status=418"}))
	activated := decode[client.EchoActivation](t, e.mustDo(t, http.StatusOK, http.MethodPost,
		"/echo-profiles/"+profile.Id.String()+"/activate", e.AdminToken, map[string]any{}))
	if !slices.Equal(activated.Echoes, []string{"all-in-one"}) {
		t.Fatalf("activated on %v, want [all-in-one]", activated.Echoes)
	}
	waitEchoStatus(t, echoURL, http.StatusTeapot)
	if code := echoStatus(t, echoURL+"?status=201"); code != http.StatusCreated {
		t.Errorf("a request's own query got %d under the profile, want 201", code)
	}
	waitFor(t, 10*time.Second, func() error {
		list := decode[client.EchoServerList](t, e.mustDo(t, http.StatusOK, http.MethodGet, "/echo-servers?project=default", e.AdminToken, nil))
		if len(list.Items) != 1 || derefS(list.Items[0].AppliedProfile) != "teapot" {
			return fmt.Errorf("echo servers %+v, want all-in-one applying teapot", list.Items)
		}
		return nil
	})

	e.mustDo(t, http.StatusOK, http.MethodPatch, "/echo-profiles/"+profile.Id.String(), e.AdminToken, map[string]any{"content": "status=503"})
	waitEchoStatus(t, echoURL, http.StatusServiceUnavailable)
	e.mustDo(t, http.StatusNoContent, http.MethodDelete, "/echo-profiles/"+profile.Id.String(), e.AdminToken, nil)
	waitEchoStatus(t, echoURL, http.StatusOK)
}

// echoStatus makes one GET and returns its status code.
func echoStatus(t *testing.T, target string) int {
	t.Helper()
	resp, err := http.Get(target)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	return resp.StatusCode
}

// waitEchoStatus polls the echo until it answers want (it reads its
// profile once a second).
func waitEchoStatus(t *testing.T, target string, want int) {
	t.Helper()
	waitFor(t, 15*time.Second, func() error {
		if code := echoStatus(t, target); code != want {
			return fmt.Errorf("the echo answers %d, want %d", code, want)
		}
		return nil
	})
}

// TestAllInOneEchoMovesOffTakenPorts checks that make run survives another
// process on the echo's ports: each taken listener (HTTP, gRPC, TCP, UDP)
// moves to a free port, the start-up notice names the ports in use, and the
// echo answers on the HTTP one.
func TestAllInOneEchoMovesOffTakenPorts(t *testing.T) { // serial: see heavyTests
	held := make(map[string]string) // listener -> the taken address
	for _, name := range []string{"HTTP", "gRPC", "TCP"} {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = ln.Close() })
		held[name] = ln.Addr().String()
	}
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = pc.Close() })
	held["UDP"] = pc.LocalAddr().String()

	e := startAPI(t, "BARRAGE_ALL_IN_ONE=true", "BARRAGE_ECHO_HTTP_ADDR="+held["HTTP"], "BARRAGE_ECHO_GRPC_ADDR="+held["gRPC"],
		"BARRAGE_ECHO_TCP_ADDR="+held["TCP"], "BARRAGE_ECHO_UDP_ADDR="+held["UDP"])
	m := regexp.MustCompile(`echo target: http://(127\.0\.0\.1:\d+)/`).FindStringSubmatch(e.Out)
	if m == nil {
		t.Fatalf("start-up notice %q does not name the echo target", e.Out)
	}
	if m[1] == held["HTTP"] {
		t.Fatalf("the echo claims the taken port %s", m[1])
	}
	ports := regexp.MustCompile(`echo ports: +gRPC (\S+), TCP (\S+), UDP (\S+)\n`).FindStringSubmatch(e.Out)
	if ports == nil {
		t.Fatalf("start-up notice %q does not name the echo's other ports", e.Out)
	}
	for i, name := range []string{"gRPC", "TCP", "UDP"} {
		if got := ports[i+1]; got == held[name] || !strings.HasPrefix(got, "127.0.0.1:") {
			t.Errorf("echo %s on %s, want a free port other than the taken %s", name, got, held[name])
		}
	}
	if code := echoStatus(t, "http://"+m[1]+"/"); code != http.StatusOK {
		t.Fatalf("the echo on its new port answers %d", code)
	}
}

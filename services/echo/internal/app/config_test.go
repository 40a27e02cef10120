package app

import (
	"errors"
	"flag"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/barrage-dev/barrage/pkg/natsauth"
)

func TestParseConfigDefaults(t *testing.T) {
	t.Parallel()
	cfg, err := ParseConfig(nil, nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.HTTPAddr != ":8088" || cfg.GRPCAddr != ":8079" || cfg.TCPAddr != ":8078" || cfg.UDPAddr != ":8078" {
		t.Errorf("addresses = %q %q %q %q", cfg.HTTPAddr, cfg.GRPCAddr, cfg.TCPAddr, cfg.UDPAddr)
	}
	if cfg.MaxDelay != 1500*time.Millisecond || cfg.MaxPayload != 256<<10 {
		t.Errorf("limits = %v %v, want 1.5s 256KiB", cfg.MaxDelay, cfg.MaxPayload)
	}
}

func TestParseConfigFlagsWinOverEnv(t *testing.T) {
	t.Parallel()
	environ := []string{"BARRAGE_ECHO_HTTP_ADDR=:1111", "BARRAGE_ECHO_MAX_DELAY=3s", "BARRAGE_ECHO_MAX_PAYLOAD=1MiB", "BARRAGE_ECHO_DEBUG_ENV=true"}
	cfg, err := ParseConfig([]string{"-http-addr", ":2222"}, environ, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.HTTPAddr != ":2222" || cfg.MaxDelay != 3*time.Second || cfg.MaxPayload != 1<<20 || !cfg.DebugEnv {
		t.Fatalf("cfg = %+v", cfg)
	}
}

func TestParseConfigErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		args    []string
		environ []string
		want    string
	}{
		{"unknown flag", []string{"-nope"}, nil, "flag provided but not defined"},
		{"bad duration", []string{"-max-delay", "soon"}, nil, "max-delay"},
		{"bad size", []string{"-max-payload", "lots"}, nil, "lots"},
		{"bad env", nil, []string{"BARRAGE_ECHO_MAX_DELAY=x"}, "BARRAGE_ECHO_MAX_DELAY"},
		{"cert without key", []string{"-cert", "c.pem"}, nil, "-cert and -key"},
		{"client CA without TLS", []string{"-client-ca", "ca.pem"}, nil, "-client-ca needs -cert and -key"},
		{"all disabled", []string{"-http-addr", "", "-grpc-addr", "", "-tcp-addr", "", "-udp-addr", ""}, nil, "every listener"},
		{"stray argument", []string{"extra"}, nil, "unexpected argument"},
		{"bad saturate", []string{"-saturate", "20ms"}, nil, "-saturate: saturate \"20ms\""},
		{"bad saturate env", nil, []string{"BARRAGE_ECHO_SATURATE=1:2"}, "-saturate"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := ParseConfig(tt.args, tt.environ, io.Discard)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error = %v, want one containing %q", err, tt.want)
			}
		})
	}
	if _, err := ParseConfig([]string{"-h"}, nil, io.Discard); !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("-h: %v", err)
	}
}

func TestByteSize(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want ByteSize
		ok   bool
	}{
		{"262144", 262144, true}, {"256KiB", 256 << 10, true}, {"64kb", 64 << 10, true},
		{"2MiB", 2 << 20, true}, {"10 B", 10, true}, {"1GiB", 0, false}, {"-1", 0, false}, {"", 0, false},
	}
	for _, tt := range tests {
		var b ByteSize
		err := b.Set(tt.in)
		if (err == nil) != tt.ok || b != tt.want {
			t.Errorf("Set(%q) = %v, %v; want %v ok=%v", tt.in, b, err, tt.want, tt.ok)
		}
	}
	if s := ByteSize(256 << 10).String(); s != "256KiB" {
		t.Errorf("String = %q", s)
	}
}

func TestMainExitCodes(t *testing.T) {
	t.Parallel()
	var stderr strings.Builder
	if code := Main(t.Context(), []string{"barrage-echo", "-bogus"}, nil, &stderr); code != 2 {
		t.Fatalf("bad flag: exit %d, want 2", code)
	}
	if !strings.Contains(stderr.String(), "-bogus") {
		t.Fatalf("stderr lacks the bad flag: %q", stderr.String())
	}
	stderr.Reset()
	// A port that is already taken fails at start with exit 1.
	code := Main(t.Context(), []string{"barrage-echo", "-http-addr", "256.0.0.1:1", "-grpc-addr", "", "-tcp-addr", "", "-udp-addr", ""}, nil, &stderr)
	if code != 1 || !strings.Contains(stderr.String(), "start failed") {
		t.Fatalf("unbindable address: exit %d, stderr %q", code, stderr.String())
	}
}

func TestValidateRefusesTwoCredentials(t *testing.T) {
	t.Parallel()
	cfg, err := ParseConfig([]string{"-nats", "nats://127.0.0.1:4222", "-project", "p", "-creds", "echo.creds"}, nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Credentials = &natsauth.Credentials{JWT: "jwt", Seed: []byte("seed")}
	if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "-creds and in-process credentials are exclusive") {
		t.Fatalf("Validate = %v, want the credentials refused", err)
	}
	cfg.Creds = ""
	if err := cfg.Validate(); err != nil {
		t.Fatalf("in-process credentials alone: %v", err)
	}
}

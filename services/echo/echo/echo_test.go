package echo

import (
	"reflect"
	"testing"
	"time"

	"github.com/barrage-dev/barrage/pkg/natsauth"
)

// fullOptions sets every field but the logger.
func fullOptions() Options {
	return Options{
		HTTPAddr: "127.0.0.1:1", GRPCAddr: "127.0.0.1:2", TCPAddr: "127.0.0.1:3", UDPAddr: "127.0.0.1:4",
		H3Addr: "127.0.0.1:5", RedirectAddr: "127.0.0.1:6", TCPProxies: []string{"127.0.0.1:7 127.0.0.1:8"},
		Multi: []string{"127.0.0.1:9 http://a/"}, MultiSerial: true, MultiMirrorOrigin: true,
		CertFile: "c.pem", KeyFile: "k.pem", ClientCAFile: "ca.pem", MaxDelay: time.Second, MaxPayload: 1 << 10, DefaultParams: "delay=1ms",
		ServerTimeHeader: "X-Server-Time", Saturate: "1ms:1ms", GRPCMaxStreams: 7, Debug: true, DebugEnv: true,
		ShutdownTimeout: 3 * time.Second, NATSURL: "nats://n:4222", Name: "e1", Project: "p", CredsFile: "e1.creds",
		Credentials: &natsauth.Credentials{JWT: "jwt", Seed: []byte("seed")}, Advertise: []string{"e1:8088"},
	}
}

// TestOptionsCarryEveryField: every setting of the server's configuration
// but the log level (the embedder's logger decides) has an option, and
// options come back unchanged through the configuration.
func TestOptionsCarryEveryField(t *testing.T) {
	t.Parallel()
	opts := fullOptions()
	cfg := opts.config()
	v := reflect.ValueOf(cfg)
	for i := range v.NumField() {
		name := v.Type().Field(i).Name
		if name != "LogLevel" && v.Field(i).IsZero() {
			t.Errorf("Config.%s is not set by any option", name)
		}
	}
	if back := fromConfig(cfg); !reflect.DeepEqual(back, opts) {
		t.Errorf("options → config → options:\n got %+v\nwant %+v", back, opts)
	}
}

func TestOptionsDefaultShutdownTimeout(t *testing.T) {
	t.Parallel()
	if got := (Options{}).config().ShutdownTimeout; got != DefaultShutdownTimeout {
		t.Errorf("shutdown timeout %v, want the default %v", got, DefaultShutdownTimeout)
	}
	if got := (Options{ShutdownTimeout: time.Second}).config().ShutdownTimeout; got != time.Second {
		t.Errorf("shutdown timeout %v, want the 1s set", got)
	}
}

func TestOptionsFromEnv(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		environ []string
		want    func(Options) bool
		wantErr string
	}{
		{name: "defaults", want: func(o Options) bool {
			return o.HTTPAddr == ":8088" && o.GRPCAddr == ":8079" && o.MaxDelay == 1500*time.Millisecond &&
				o.MaxPayload == 256<<10 && o.Debug && o.MultiMirrorOrigin && o.ShutdownTimeout == 10*time.Second
		}},
		{name: "set", environ: []string{"BARRAGE_ECHO_HTTP_ADDR=127.0.0.1:0", "BARRAGE_ECHO_GRPC_ADDR=127.0.0.1:0", "BARRAGE_ECHO_MAX_PAYLOAD=1MiB",
			"BARRAGE_ECHO_NATS_URL=nats://n:4222", "BARRAGE_ECHO_PROJECT=default", "OTHER=1"}, want: func(o Options) bool {
			return o.HTTPAddr == "127.0.0.1:0" && o.GRPCAddr == "127.0.0.1:0" && o.MaxPayload == 1<<20 && o.NATSURL == "nats://n:4222" && o.Project == "default"
		}},
		{name: "invalid", environ: []string{"BARRAGE_ECHO_MAX_DELAY=-1s"}, wantErr: "echo: -max-delay -1s: must not be negative"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			o, err := OptionsFromEnv(tt.environ)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !tt.want(o) {
				t.Errorf("options %+v", o)
			}
		})
	}
}

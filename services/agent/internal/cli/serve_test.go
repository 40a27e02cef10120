package cli

import (
	"context"
	"errors"
	"io"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"google.golang.org/protobuf/proto"

	"github.com/barrage-dev/barrage/pkg/natsembed"
	"github.com/barrage-dev/barrage/pkg/wire"
	barragev1 "github.com/barrage-dev/barrage/proto/barrage/v1"
	"github.com/barrage-dev/barrage/services/agent/internal/worker"
)

func TestServeConfig(t *testing.T) {
	t.Parallel()
	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		args    []string
		environ []string
		want    worker.Config
		wantErr string
	}{
		{name: "defaults", want: worker.Config{NATSURL: "nats://127.0.0.1:4222", Name: host, Capacity: 4}},
		{
			name:    "environment",
			environ: []string{"NATS_URL=nats://nats:4222", "BARRAGE_AGENT_NAME=a1", "BARRAGE_AGENT_LABELS=zone=eu, tier = big", "BARRAGE_AGENT_CAPACITY=8"},
			want:    worker.Config{NATSURL: "nats://nats:4222", Name: "a1", Labels: map[string]string{"zone": "eu", "tier": "big"}, Capacity: 8},
		},
		{
			name:    "flags win",
			args:    []string{"-nats-url", "nats://n2:4222", "-name", "a2", "-labels", "zone=us", "-capacity", "2"},
			environ: []string{"NATS_URL=nats://nats:4222", "BARRAGE_AGENT_NAME=a1", "BARRAGE_AGENT_LABELS=zone=eu", "BARRAGE_AGENT_CAPACITY=8"},
			want:    worker.Config{NATSURL: "nats://n2:4222", Name: "a2", Labels: map[string]string{"zone": "us"}, Capacity: 2},
		},
		{name: "bad capacity in the environment", environ: []string{"BARRAGE_AGENT_CAPACITY=lots"}, wantErr: `BARRAGE_AGENT_CAPACITY="lots"`},
		{name: "bad labels in the environment", environ: []string{"BARRAGE_AGENT_LABELS=zone"}, wantErr: "-labels"},
		{name: "empty label key", args: []string{"-labels", "=eu"}, wantErr: "-labels"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := parseServe(tt.args, tt.environ, io.Discard)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got.worker, tt.want) {
				t.Fatalf("config %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestServeHelpExits0(t *testing.T) {
	t.Parallel()
	var stdout strings.Builder
	if code := Main(context.Background(), []string{"barrage-agent", "serve", "-h"}, nil, &stdout, io.Discard); code != ExitOK {
		t.Fatalf("exit %d", code)
	}
	for _, flag := range []string{"-nats-url", "-name", "-labels", "-capacity", "BARRAGE_AGENT_CAPACITY", "-metrics-addr", "BARRAGE_AGENT_METRICS_ADDR"} {
		if !strings.Contains(stdout.String(), flag) {
			t.Fatalf("usage does not mention %s:\n%s", flag, stdout.String())
		}
	}
}

// TestServeRunsUntilCanceled starts `barrage-agent serve` against an embedded
// NATS server, sees its heartbeat and its metrics, then cancels it as
// SIGTERM would.
func TestServeRunsUntilCanceled(t *testing.T) {
	t.Parallel()
	srv := natsembed.StartT(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stderr := &lockedBuilder{}
	done := make(chan int, 1)
	go func() {
		done <- Main(ctx, []string{"barrage-agent", "serve", "-name", "cli-agent", "-capacity", "2"},
			[]string{"NATS_URL=" + srv.URL(), "BARRAGE_AGENT_LABELS=zone=eu", "BARRAGE_AGENT_METRICS_ADDR=127.0.0.1:0"}, io.Discard, stderr)
	}()
	nc, err := nats.Connect(srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	hb := waitHeartbeat(t, js)
	if hb.GetName() != "cli-agent" || hb.GetCapacity() != 2 || hb.GetLabels()["zone"] != "eu" {
		t.Fatalf("heartbeat %v", hb)
	}
	checkServedMetrics(t, stderr.String())
	cancel()
	select {
	case code := <-done:
		if code != ExitOK {
			t.Fatalf("exit %d: %s", code, stderr.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatal("serve did not stop after cancel")
	}
	kv, err := js.KeyValue(context.Background(), wire.AgentsBucket)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := kv.Get(context.Background(), hb.GetAgentId()); !errors.Is(err, jetstream.ErrKeyNotFound) {
		t.Fatalf("heartbeat after shutdown: %v", err)
	}
	if !strings.Contains(stderr.String(), `"msg":"agent stopped"`) {
		t.Fatalf("no shutdown log line: %s", stderr.String())
	}
}

// waitHeartbeat waits for the one agent's heartbeat in the agents bucket.
func waitHeartbeat(t *testing.T, js jetstream.JetStream) *barragev1.Heartbeat {
	t.Helper()
	end := time.Now().Add(10 * time.Second)
	var last error
	for time.Now().Before(end) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		hb, err := oneHeartbeat(ctx, js)
		cancel()
		if err == nil {
			return hb
		}
		last = err
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("no heartbeat: %v", last)
	return nil
}

func oneHeartbeat(ctx context.Context, js jetstream.JetStream) (*barragev1.Heartbeat, error) {
	kv, err := js.KeyValue(ctx, wire.AgentsBucket)
	if err != nil {
		return nil, err
	}
	keys, err := kv.Keys(ctx)
	if err != nil {
		return nil, err
	}
	if len(keys) != 1 {
		return nil, errors.New("want exactly one agent")
	}
	e, err := kv.Get(ctx, keys[0])
	if err != nil {
		return nil, err
	}
	hb := &barragev1.Heartbeat{}
	return hb, proto.Unmarshal(e.Value(), hb)
}

package worker

import (
	"errors"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/barrage-dev/barrage/pkg/spec"
	barragev1 "github.com/barrage-dev/barrage/proto/barrage/v1"
)

func TestRedactURL(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"nats://127.0.0.1:4222", "nats://127.0.0.1:4222"},
		{"nats://u:pw@n1:4222,nats://u:pw@n2:4222", "nats://u:xxxxx@n1:4222,nats://u:xxxxx@n2:4222"},
		{"nats://token@n1:4222", "nats://token@n1:4222"},
	}
	for _, tt := range tests {
		if got := redactURL(tt.in); got != tt.want {
			t.Errorf("redactURL(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestRedactClientError(t *testing.T) {
	t.Parallel()
	s := spec.Spec{URL: "http://u:hunter2@h:1/?token=abc"}
	err := redact(errors.New(`url "http://u:hunter2@h:1/?token=abc": no host`), s)
	if strings.Contains(err.Error(), "hunter2") || strings.Contains(err.Error(), "abc") {
		t.Fatalf("redacted error still shows a secret: %v", err)
	}
}

func TestNewShardRejects(t *testing.T) {
	t.Parallel()
	w := &Worker{}
	now := time.Now()
	good := func() *barragev1.Assignment {
		return &barragev1.Assignment{
			RunId: "r1", Shard: 0, ShardCount: 1, Spec: []byte(`{"url":"http://127.0.0.1:1/","qps":10,"connections":1,"duration":"1s"}`),
			StartAt: timestamppb.New(now), Deadline: timestamppb.New(now.Add(5 * time.Second)),
			TargetAllow: []string{"127.0.0.0/8"}, TargetDeny: []string{"127.0.0.1:8080"},
		}
	}
	tests := []struct {
		name   string
		change func(a *barragev1.Assignment)
		want   string
	}{
		{"valid", func(*barragev1.Assignment) {}, ""},
		{"run id with a dot", func(a *barragev1.Assignment) { a.RunId = "r.1" }, "subject token"},
		{"no run id", func(a *barragev1.Assignment) { a.RunId = "" }, "subject token"},
		{"shard out of range", func(a *barragev1.Assignment) { a.Shard = 3 }, "shard 3 of 1"},
		{"no deadline", func(a *barragev1.Assignment) { a.Deadline = nil }, "no deadline"},
		{"deadline passed", func(a *barragev1.Assignment) { a.Deadline = timestamppb.New(now.Add(-time.Second)) }, "has passed"},
		{"bad spec", func(a *barragev1.Assignment) { a.Spec = []byte(`{"url":1}`) }, "url"},
		{"connections out of range", func(a *barragev1.Assignment) {
			a.Spec = []byte(`{"url":"http://127.0.0.1:1/","qps":10,"connections":-1,"duration":"1s"}`)
		}, "connections"},
		{"bad allow-list entry", func(a *barragev1.Assignment) { a.TargetAllow = []string{"http://x/"} }, "target_allow"},
		{"bad deny entry", func(a *barragev1.Assignment) { a.TargetDeny = []string{"10.0.0.0/33"} }, "target_deny"},
		{"bad outer entry", func(a *barragev1.Assignment) { a.TargetOuter, a.TargetBounded = []string{"*.*"}, true }, "target_outer"},
		{"payload file", func(a *barragev1.Assignment) {
			a.Spec = []byte(`{"url":"http://127.0.0.1:1/","qps":10,"connections":1,"duration":"1s","payload_file":"/etc/passwd"}`)
		}, "payload_file"},
	}
	for _, tt := range tests {
		a := good()
		tt.change(a)
		sh, err := w.newShard(a, now)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%s: %v", tt.name, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%s: err %v, want one containing %q", tt.name, err, tt.want)
		}
		if sh != nil {
			sh.stop(nil)
		}
	}
}

func TestShardRunsItsSpecAsGiven(t *testing.T) {
	t.Parallel()
	now := time.Now()
	a := &barragev1.Assignment{
		RunId: "r1", Shard: 1, ShardCount: 3, Spec: []byte(`{"url":"http://127.0.0.1:1/","qps":100,"connections":3,"duration":"1s"}`),
		StartAt: timestamppb.New(now.Add(time.Second)), Deadline: timestamppb.New(now.Add(5 * time.Second)),
	}
	sh, err := (&Worker{}).newShard(a, now)
	if err != nil {
		t.Fatal(err)
	}
	defer sh.stop(nil)
	if sh.spec.QPS != 100 || sh.spec.Connections != 3 || !sh.startAt.Equal(a.GetStartAt().AsTime()) || !sh.deadline.Equal(a.GetDeadline().AsTime()) {
		t.Fatalf("shard qps %g connections %d start %s deadline %s", sh.spec.QPS, sh.spec.Connections, sh.startAt, sh.deadline)
	}
}

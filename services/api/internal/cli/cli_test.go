package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/barrage-dev/barrage/services/api/client"
)

func TestRunFlagsToRunCreate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		args     []string
		specFile string // content of the --spec file, named spec.yaml
		testID   string
		want     string // the RunCreate as JSON
		wantErr  string
	}{
		{
			name: "inline spec",
			args: []string{"--url", "http://t/", "--qps", "50", "-c", "4", "-t", "2s", "--project", "web", "--name", "smoke",
				"--threshold", "p(99) < 250ms", "--threshold", "error_rate < 0.1%", "--label", "env=ci", "--label", "team=web"},
			want: `{"project":"web","spec":{"connections":4,"duration":"2s","qps":50,"url":"http://t/"},"name":"smoke",` +
				`"thresholds":["p(99) < 250ms","error_rate < 0.1%"],"labels":{"env":"ci","team":"web"}}`,
		},
		{
			name: "count instead of duration",
			args: []string{"--url", "http://t/", "-n", "100"},
			want: `{"spec":{"count":100,"url":"http://t/"}}`,
		},
		{
			name:     "yaml spec with a flag override",
			args:     []string{"--spec", "spec.yaml", "--qps", "10"},
			specFile: "url: http://t/\nqps: 500\nduration: 1m\nheaders: [\"X-A: 1\"]\n",
			want:     `{"spec":{"duration":"1m","headers":["X-A: 1"],"qps":10,"url":"http://t/"}}`,
		},
		{
			name:   "stored test",
			args:   []string{"--test", "checkout", "--threshold", "p(99) < 1s"},
			testID: "0b4e6f6c-5a8f-4d7e-9d1c-3f4a5b6c7d8e",
			want:   `{"test":"0b4e6f6c-5a8f-4d7e-9d1c-3f4a5b6c7d8e","thresholds":["p(99) < 1s"]}`,
		},
		{
			name:   "explicit baseline, partial results allowed",
			args:   []string{"--test", "checkout", "--baseline", "0b4e6f6c-5a8f-4d7e-9d1c-3f4a5b6c7d8f", "--allow-partial"},
			testID: "0b4e6f6c-5a8f-4d7e-9d1c-3f4a5b6c7d8e",
			want:   `{"test":"0b4e6f6c-5a8f-4d7e-9d1c-3f4a5b6c7d8e","baseline_run":"0b4e6f6c-5a8f-4d7e-9d1c-3f4a5b6c7d8f","allow_partial":true}`,
		},
		{
			name:   "the last 5 passing runs",
			args:   []string{"--test", "checkout", "--baseline-last", "5"},
			testID: "0b4e6f6c-5a8f-4d7e-9d1c-3f4a5b6c7d8e",
			want:   `{"test":"0b4e6f6c-5a8f-4d7e-9d1c-3f4a5b6c7d8e","baseline_last":5}`,
		},
		{
			name: "fortio's request flags",
			args: []string{"--url", "https://t/api", "-H", "Authorization: Bearer x", "-H", "X-B: 2", "-X", "put", "-payload", `{"a":1}`,
				"-content-type", "application/json", "-p", "50,99.9", "-k", "-h2"},
			want: `{"spec":{"content_type":"application/json","h2":true,"headers":["Authorization: Bearer x","X-B: 2"],"insecure":true,` +
				`"method":"PUT","payload":"{\"a\":1}","percentiles":[50,99.9],"url":"https://t/api"}}`,
		},
		{
			name:     "headers add to a spec file's, grpc ping",
			args:     []string{"--spec", "spec.yaml", "-H", "X-B: 2", "-ping"},
			specFile: "url: t:8079\nheaders: [\"X-A: 1\"]\ngrpc: {streams: 2}\n",
			want:     `{"spec":{"grpc":{"mode":"ping","streams":2},"headers":["X-A: 1","X-B: 2"],"url":"t:8079"}}`,
		},
		{name: "grpc health", args: []string{"--url", "t:8079", "-grpc"}, want: `{"spec":{"grpc":{"mode":"health"},"url":"t:8079"}}`},
		{name: "header without a colon", args: []string{"--url", "http://t/", "-H", "nocolon"}, wantErr: "want 'Name: value'"},
		{name: "bad percentile", args: []string{"--url", "http://t/", "-p", "50,100"}, wantErr: "between 0 and 100"},
		{name: "two payloads", args: []string{"--url", "http://t/", "-payload", "a", "-payload-file", "f"}, wantErr: "not both"},
		{name: "grpc over h2", args: []string{"--url", "t:8079", "-grpc", "-h2"}, wantErr: "exclude each other"},
		{name: "header with a test", args: []string{"--test", "x", "-H", "X-A: 1"}, wantErr: "not to --test"},
		{name: "missing payload file", args: []string{"--url", "http://t/", "-payload-file", "/nonexistent/body.json"}, wantErr: "-payload-file"},
		{name: "bad baseline", args: []string{"--url", "http://t/", "--baseline", "last"}, wantErr: "want a run id"},
		{name: "no runs to pool", args: []string{"--test", "x", "--baseline-last", "0"}, wantErr: "from 1 to 20"},
		{name: "too many runs to pool", args: []string{"--test", "x", "--baseline-last", "21"}, wantErr: "from 1 to 20"},
		{name: "pool and baseline", args: []string{"--test", "x", "--baseline-last", "3", "--baseline", "0b4e6f6c-5a8f-4d7e-9d1c-3f4a5b6c7d8f"},
			wantErr: "not both"},
		{name: "pool without a test", args: []string{"--url", "http://t/", "--baseline-last", "3"}, wantErr: "with --test"},
		{name: "no source", args: []string{"--qps", "5"}, wantErr: "exactly one of"},
		{name: "two sources", args: []string{"--url", "http://t/", "--test", "x"}, wantErr: "exactly one of"},
		{name: "rate with a test", args: []string{"--test", "x", "--qps", "5"}, wantErr: "not to --test"},
		{name: "bad label", args: []string{"--url", "http://t/", "--label", "nokey"}, wantErr: "want key=value"},
		{name: "bad duration", args: []string{"--url", "http://t/", "-t", "soon"}, wantErr: "invalid value"},
		{name: "stray argument", args: []string{"--url", "http://t/", "extra"}, wantErr: "unexpected argument"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var stderr bytes.Buffer
			f, err := parseRunFlags(tt.args, &stderr)
			var b createBody
			if err == nil {
				b, err = f.body([]byte(tt.specFile), "spec.yaml", tt.testID)
			}
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got, _ := json.Marshal(b)
			var gotV, wantV any
			_ = json.Unmarshal(got, &gotV)
			if err := json.Unmarshal([]byte(tt.want), &wantV); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(gotV, wantV) {
				t.Errorf("RunCreate\n got %s\nwant %s", got, tt.want)
			}
			if f.wait != defaultWait {
				t.Errorf("wait = %v, want the default %v", f.wait, defaultWait)
			}
		})
	}
}

func TestDecodeSpecJSON(t *testing.T) {
	t.Parallel()
	sp, err := decodeSpec([]byte(`{"url":"http://t/","qps":5}`), "spec.json")
	if err != nil || sp["url"] != "http://t/" || sp["qps"] != 5.0 {
		t.Errorf("decodeSpec = %v, %v", sp, err)
	}
	if _, err := decodeSpec([]byte(`{"url":`), "spec.json"); err == nil {
		t.Error("broken JSON decoded")
	}
}

func TestExitCode(t *testing.T) {
	t.Parallel()
	verdict := func(v client.RunVerdict) *client.RunVerdict { return &v }
	ok := &client.RunSummary{Count: 100, Errors: 1}
	tests := []struct {
		name string
		run  client.Run
		want int
	}{
		{"pass", client.Run{Status: client.Completed, Verdict: verdict(client.Pass), Summary: ok}, ExitPass},
		{"thresholds failed", client.Run{Status: client.Completed, Verdict: verdict(client.Fail), Summary: ok}, ExitThresholds},
		{"inconclusive", client.Run{Status: client.Completed, Verdict: verdict(client.Inconclusive), Summary: ok}, ExitInconclusive},
		{"verdict error", client.Run{Status: client.Completed, Verdict: verdict(client.Error), Summary: ok}, ExitRunError},
		{"degraded", client.Run{Status: client.Completed, Degraded: true, Verdict: verdict(client.Error), Summary: ok}, ExitRunError},
		{"degraded, allow_partial", client.Run{Status: client.Completed, Degraded: true, AllowPartial: ptr(true), Verdict: verdict(client.Pass), Summary: ok}, ExitPass},
		{"failed", client.Run{Status: client.Failed, Verdict: verdict(client.Error)}, ExitRunError},
		{"canceled", client.Run{Status: client.Canceled}, ExitRunError},
		{"every request failed", client.Run{Status: client.Completed, Verdict: verdict(client.Pass),
			Summary: &client.RunSummary{Count: 50, Errors: 50}}, ExitRunError},
		{"no request", client.Run{Status: client.Completed, Verdict: verdict(client.Pass), Summary: &client.RunSummary{}}, ExitRunError},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := exitCode(tt.run); got != tt.want {
				t.Errorf("exitCode = %d, want %d", got, tt.want)
			}
		})
	}
}

func TestFormatProgress(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		st   progressState
		want string
	}{
		{"timed", progressState{Status: client.Running, Elapsed: 3, Total: 10 * time.Second, Count: 300, Errors: 3, QPS: 99.84, P99: 1250},
			"running 3s/10s  qps 99.8  p99 1.25ms  errors 3 (1%)  7s left"},
		{"count bound", progressState{Status: client.Running, Elapsed: 2, Count: 40, QPS: 20, P99: 850},
			"running 2s  qps 20.0  p99 850us  errors 0 (0%)"},
		{"overrun", progressState{Status: client.Stopping, Elapsed: 12, Total: 10 * time.Second, Count: 1, P99: 2.5e6},
			"stopping 12s/10s  qps 0.0  p99 2.5s  errors 0 (0%)  0s left"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := formatProgress(tt.st); got != tt.want {
				t.Errorf("formatProgress\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestProgressLines(t *testing.T) {
	t.Parallel()
	for _, tty := range []bool{true, false} {
		var out bytes.Buffer
		clock := time.Unix(0, 0)
		e := &env{out: &printer{stdout: &out, stderr: &out}, isTTY: tty, now: func() time.Time { return clock }}
		run := client.Run{Status: client.Running}
		run.Spec.Duration = 10_000_000_000
		p := newProgress(e, run)
		for sec := range 3 {
			data, _ := json.Marshal(client.Interval{Second: sec, Count: 10, Qps: 10})
			p.handle("interval", string(data))
			clock = clock.Add(3 * time.Second)
		}
		got := out.String()
		if tty {
			if strings.Count(got, "\r\033[K") != 3 || strings.Contains(got, "\n") {
				t.Errorf("terminal output %q, want 3 lines rewritten in place", got)
			}
		} else if strings.Count(got, "\n") != 2 || strings.Contains(got, "\r") {
			// at 0 s and 6 s: one line per 5 s at most
			t.Errorf("plain output %q, want 2 lines", got)
		}
	}
}

func TestTokenIsRequiredAndNeverPrinted(t *testing.T) {
	t.Parallel()
	var stdout, stderr bytes.Buffer
	code := Run(context.Background(), Options{Args: []string{"run", "--url", "http://t/"}, Stdout: &stdout, Stderr: &stderr})
	if code != ExitUsage || !strings.Contains(stderr.String(), "BARRAGE_TOKEN") {
		t.Errorf("without a token: exit %d, stderr %q; want 2 naming BARRAGE_TOKEN", code, stderr.String())
	}
	stdout.Reset()
	stderr.Reset()
	const secret = "brg_secretsecret"
	code = Run(context.Background(), Options{
		Args: []string{"run", "--url", "http://t/"}, Environ: []string{"BARRAGE_URL=http://127.0.0.1:1/" + secret, "BARRAGE_TOKEN=" + secret},
		Stdout: &stdout, Stderr: &stderr,
	})
	if code != ExitUnreachable {
		t.Errorf("unreachable API: exit %d, want 1; stderr %q", code, stderr.String())
	}
	if strings.Contains(stdout.String()+stderr.String(), secret) {
		t.Errorf("output holds the token: %q %q", stdout.String(), stderr.String())
	}
}

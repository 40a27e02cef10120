package cli

import (
	"encoding/json"
	"io"
	"reflect"
	"testing"

	"github.com/barrage-dev/barrage/pkg/spec"
)

// FuzzLoadFlags parses the rate, length and labelling flags of
// `barrage-agent load` (Fortio's -qps, -t, -n, -c, -ramp, -p, -labels, -H)
// and a target: it never panics, and a spec it accepts validates and
// survives JSON and spec.Parse unchanged, as the API would receive it.
func FuzzLoadFlags(f *testing.F) {
	f.Add("100", "5s", "0", "8", "", "50,99.9", "k=v", "Authorization: x", "http://127.0.0.1:1/")
	f.Add("0", "0", "10", "1", "1:100:2s", "99", "a title", "X: y", "127.0.0.1:1")
	f.Add("-1", "1h", "-3", "0", "x:y:z", "", "", "", "tcp://h:1")
	f.Add("1e309", "-5s", "9223372036854775807", "1000000", "0:0:0s", "NaN", "=,", ":", "grpc://h:1")
	f.Fuzz(func(t *testing.T, qps, dur, count, conns, ramp, pct, labels, header, target string) {
		args := []string{"-qps", qps, "-t", dur, "-c", conns, "-p", pct, "-labels", labels}
		if count != "0" {
			args = append(args, "-n", count)
		}
		if ramp != "" {
			args = append(args, "-ramp", ramp)
		}
		if header != "" {
			args = append(args, "-H", header)
		}
		_, s, _, err := parseLoad(append(args, "--", target), io.Discard)
		if err != nil {
			return
		}
		if err := s.Validate(); err != nil {
			t.Fatalf("accepted %q giving a spec that does not validate: %v", args, err)
		}
		if s.PayloadFile != "" {
			t.Fatalf("a payload file from %q", args)
		}
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatalf("Marshal: %v", err)
		}
		again, err := spec.Parse(b)
		if err != nil || !reflect.DeepEqual(again, s) {
			t.Fatalf("spec of %q: %s parses to %+v, %v; want %+v", args, b, again, err, s)
		}
	})
}

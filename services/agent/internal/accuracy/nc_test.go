//go:build accuracy

package accuracy_test

import (
	"context"
	"strings"
	"testing"

	"github.com/barrage-dev/barrage/services/agent/internal/cli"
)

// TestNCEchoes: barrage-agent nc sends stdin to barrage-echo's TCP and UDP
// echo and prints exactly what they send back.
func TestNCEchoes(t *testing.T) {
	a := startEcho(t)
	msg := strings.Repeat("barrage nc round trip\n", 200)
	for name, target := range map[string]string{"tcp": a.tcp, "tcp://": "tcp://" + a.tcp, "udp://": "udp://" + a.udp} {
		in := msg
		if name == "udp://" {
			in = "one datagram"
		}
		var out, errOut strings.Builder
		code := cli.RunNC(context.Background(), []string{"-timeout", "500ms", target}, strings.NewReader(in), &out, &errOut)
		if code != cli.ExitOK || out.String() != in {
			t.Errorf("nc %s: exit %d (%s), got %d bytes back, want the %d sent", target, code, errOut.String(), out.Len(), len(in))
		}
	}
}

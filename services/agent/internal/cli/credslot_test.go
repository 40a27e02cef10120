package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/barrage-dev/barrage/pkg/natsauth"
)

// TestCredsSlot: a StatefulSet pod takes the slot of its ordinal (pod -1
// takes agent-2.creds), into a new owner-only file; a pod beyond the slots
// issued, or a name without an ordinal, is refused.
func TestCredsSlot(t *testing.T) {
	t.Parallel()
	keys, err := natsauth.Generate()
	if err != nil {
		t.Fatal(err)
	}
	from := t.TempDir()
	files := map[string][]byte{}
	for _, n := range []string{"agent-1", "agent-2"} {
		c, _, err := keys.AgentUser(n, natsauth.AgentOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if files[n], err = c.File(); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(from, n+".creds"), files[n], 0o600); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(t.TempDir(), "agent.creds")
	run := func(args ...string) (int, string) {
		var o, e bytes.Buffer
		code := Main(context.Background(), append([]string{"barrage-agent", "creds-slot"}, args...), nil, &o, &e)
		return code, o.String() + e.String()
	}
	if code, msg := run("-from", from, "-pod", "barrage-agent-1", "-o", out); code != ExitOK || !strings.Contains(msg, "agent-2.creds") {
		t.Fatalf("pod barrage-agent-1: exit %d: %s", code, msg)
	}
	got, err := os.ReadFile(out)
	if err != nil || !bytes.Equal(got, files["agent-2"]) {
		t.Errorf("pod -1 got %q (%v), want agent-2's credentials", got, err)
	}
	if st, err := os.Stat(out); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("written credentials: %v, mode %v; want 0600", err, st.Mode())
	}
	for _, c := range []struct {
		pod  string
		code int
		msg  string
	}{
		{"barrage-agent-2", ExitFailure, "no credentials slot agent-3.creds"},
		{"barrage-agent", ExitUsage, "not a StatefulSet pod name"},
		{"barrage-agent-01", ExitUsage, "not a StatefulSet pod name"},
	} {
		if code, msg := run("-from", from, "-pod", c.pod, "-o", filepath.Join(t.TempDir(), "x")); code != c.code || !strings.Contains(msg, c.msg) {
			t.Errorf("pod %s: exit %d, %q; want %d, %q", c.pod, code, msg, c.code, c.msg)
		}
	}
}

package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/barrage-dev/barrage/pkg/natsauth"
)

// runCredsSlot is `barrage-agent creds-slot -from DIR -pod NAME -o FILE`:
// the init container of a Kubernetes agent (deploy/helm/barrage, a
// StatefulSet) copies the credentials of its own slot, agent-(ordinal+1)
// of `barrage-api nats-auth bootstrap`, out of the Secret that holds every
// slot into a volume the agent container mounts. The agent container
// never sees another slot's credentials (docs/helm.md).
func runCredsSlot(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("barrage-agent creds-slot", flag.ContinueOnError)
	fs.SetOutput(stderr)
	from := fs.String("from", "", "directory of the slots' credentials (agent-N.creds)")
	pod := fs.String("pod", "", "the StatefulSet pod's name; its ordinal N-1 picks agent-N.creds")
	out := fs.String("o", "", "file to write the slot's credentials to (new, owner-only)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return ExitOK
		}
		return ExitUsage
	}
	if *from == "" || *pod == "" || *out == "" || fs.NArg() > 0 {
		_, _ = fmt.Fprintln(stderr, "barrage-agent creds-slot: needs -from DIR -pod NAME -o FILE")
		return ExitUsage
	}
	slot, err := slotOf(*pod)
	if err != nil {
		_, _ = fmt.Fprintf(stderr, "barrage-agent creds-slot: %v\n", err)
		return ExitUsage
	}
	name := "agent-" + strconv.Itoa(slot) + ".creds"
	file, err := os.ReadFile(filepath.Join(*from, name)) //nolint:gosec // the directory the operator names
	if err != nil {
		_, _ = fmt.Fprintf(stderr, "barrage-agent creds-slot: pod %s has no credentials slot %s (issue more: nats.auth.agentSlots): %v\n", *pod, name, err)
		return ExitFailure
	}
	_, id, err := natsauth.ParseCredentials(file)
	if err != nil {
		_, _ = fmt.Fprintf(stderr, "barrage-agent creds-slot: %s: %v\n", name, err)
		return ExitFailure
	}
	if err := natsauth.WriteSecretFile(*out, file); err != nil {
		_, _ = fmt.Fprintf(stderr, "barrage-agent creds-slot: %v\n", err)
		return ExitFailure
	}
	_, _ = fmt.Fprintf(stdout, "pod %s took %s (agent id %s)\n", *pod, name, id)
	return ExitOK
}

// slotOf is the 1-based slot of a StatefulSet pod: its ordinal plus one.
func slotOf(pod string) (int, error) {
	i := strings.LastIndexByte(pod, '-')
	n, err := strconv.Atoi(pod[i+1:])
	if i < 0 || err != nil || n < 0 || strconv.Itoa(n) != pod[i+1:] {
		return 0, fmt.Errorf("-pod %q: not a StatefulSet pod name (NAME-ORDINAL)", pod)
	}
	return n + 1, nil
}

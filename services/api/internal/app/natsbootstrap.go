package app

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/barrage-dev/barrage/pkg/natsauth"
)

// Names of the files `nats-auth bootstrap` writes.
const (
	bootstrapKeysFile   = "nats-keys.json"
	bootstrapServerFile = "barrage-auth.conf"
)

// maxAgentSlots bounds `nats-auth bootstrap -agents`.
const maxAgentSlots = 1000

// natsBootstrap runs `nats-auth bootstrap`: for a container stack, it makes
// (once) the keys file, writes the nats-server trust file from it, and
// issues the agent credentials agent-1 .. agent-N that are missing, each
// in its own directory so that each service mounts only what it needs
// (the keys: barrage-api; the trust file: nats-server; the credentials:
// the agents). Running it again changes nothing but adds slots.
func natsBootstrap(args []string, stdout, stderr io.Writer) error {
	f := flag.NewFlagSet("nats-auth bootstrap", flag.ContinueOnError)
	f.SetOutput(stderr)
	keysDir := f.String("keys-dir", "", "directory of the keys file (barrage-api's secret)")
	serverDir := f.String("server-dir", "", "directory of the nats-server trust file ("+bootstrapServerFile+")")
	agentsDir := f.String("agents-dir", "", "directory of the agent credentials (agent-N.creds)")
	slots := f.Int("agents", 8, "agent credentials to have (agent-1 .. agent-N)")
	owner := f.String("owner", "", "UID:GID to give the files written (when run as root for non-root services)")
	var opts natsauth.AgentOptions
	agentOptionFlags(f, &opts, "agent-")
	limits := accountLimitFlags(f)
	if err := f.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err //nolint:wrapcheck // matched by Main
		}
		return usageError{err}
	}
	if *keysDir == "" || *serverDir == "" || *agentsDir == "" {
		return usageError{errors.New("nats-auth bootstrap needs -keys-dir, -server-dir and -agents-dir")}
	}
	if *slots < 1 || *slots > maxAgentSlots {
		return usageError{fmt.Errorf("-agents %d: must be from 1 to %d", *slots, maxAgentSlots)}
	}
	if err := opts.Validate(); err != nil {
		return usageError{err}
	}
	if err := limits().Validate(); err != nil {
		return usageError{err}
	}
	uid, gid, err := parseOwner(*owner)
	if err != nil {
		return usageError{err}
	}
	own := func(path string) error {
		if uid < 0 {
			return nil
		}
		if err := os.Chown(path, uid, gid); err != nil {
			return fmt.Errorf("chown %s: %w", path, err)
		}
		return nil
	}
	keysPath := filepath.Join(*keysDir, bootstrapKeysFile)
	keys, err := loadOrCreateKeys(keysPath, stdout)
	if err != nil {
		return err
	}
	if err := own(keysPath); err != nil {
		return err
	}
	trust, err := keys.TrustLimited(limits())
	if err != nil {
		return err //nolint:wrapcheck // natsauth's errors say what failed
	}
	serverPath := filepath.Join(*serverDir, bootstrapServerFile)
	if err := os.WriteFile(serverPath, []byte(trust.ServerConfig()), 0o644); err != nil { //nolint:gosec // public JWTs: nats-server reads it
		return fmt.Errorf("trust file: %w", err)
	}
	_, _ = fmt.Fprintf(stdout, "wrote %s\n", serverPath)
	created, err := issueAgentSlots(keys, opts, *agentsDir, *slots, own)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(stdout, "agent credentials in %s: %d new, %d in all\n", *agentsDir, created, *slots)
	return err //nolint:wrapcheck // a write to stdout
}

// loadOrCreateKeys loads the keys file at path, or creates it.
func loadOrCreateKeys(path string, stdout io.Writer) (natsauth.Keys, error) {
	keys, err := natsauth.Load(path)
	switch {
	case err == nil:
		return keys, nil
	case errors.Is(err, fs.ErrNotExist):
		if keys, err = natsauth.Generate(); err != nil {
			return natsauth.Keys{}, err //nolint:wrapcheck // natsauth's errors say what failed
		}
		if err := keys.Save(path); err != nil {
			return natsauth.Keys{}, err //nolint:wrapcheck // natsauth's errors name the file
		}
		_, _ = fmt.Fprintf(stdout, "created %s\n", path)
		return keys, nil
	default:
		return natsauth.Keys{}, err //nolint:wrapcheck // natsauth's errors name the file
	}
}

// issueAgentSlots issues the credentials agent-1 .. agent-slots that dir
// lacks, each binding opts, gives each new file to own, and returns how
// many it issued.
func issueAgentSlots(keys natsauth.Keys, opts natsauth.AgentOptions, dir string, slots int, own func(string) error) (int, error) {
	created := 0
	for i := 1; i <= slots; i++ {
		name := "agent-" + strconv.Itoa(i)
		path := filepath.Join(dir, name+".creds")
		if _, err := os.Stat(path); err == nil {
			continue
		}
		creds, _, err := keys.AgentUser(name, opts)
		if err != nil {
			return created, err //nolint:wrapcheck // natsauth's errors say what failed
		}
		file, err := creds.File()
		if err != nil {
			return created, err //nolint:wrapcheck // natsauth's errors say what failed
		}
		if err := natsauth.WriteSecretFile(path, file); err != nil {
			return created, err //nolint:wrapcheck // natsauth's errors name the file
		}
		if err := own(path); err != nil {
			return created, err
		}
		created++
	}
	return created, nil
}

// parseOwner parses "UID:GID"; -1, -1 for "".
func parseOwner(s string) (uid, gid int, err error) {
	if s == "" {
		return -1, -1, nil
	}
	u, g, ok := strings.Cut(s, ":")
	uid, uerr := strconv.Atoi(u)
	gid, gerr := strconv.Atoi(g)
	if !ok || uerr != nil || gerr != nil || uid < 0 || gid < 0 {
		return 0, 0, fmt.Errorf("-owner %q: want UID:GID, e.g. 65532:65532", s)
	}
	return uid, gid, nil
}

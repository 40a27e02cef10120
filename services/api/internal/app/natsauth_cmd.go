package app

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/barrage-dev/barrage/pkg/natsauth"
	"github.com/barrage-dev/barrage/pkg/svclog"
)

// natsAuth runs `nats-auth init FILE` and `nats-auth server-config`.
func natsAuth(args, environ []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return usageError{errors.New("nats-auth needs init, server-config or bootstrap")}
	}
	switch args[0] {
	case "init":
		if len(args) != 2 || strings.HasPrefix(args[1], "-") {
			return usageError{errors.New("nats-auth init needs the keys file to create")}
		}
		keys, err := natsauth.Generate()
		if err != nil {
			return err //nolint:wrapcheck // natsauth's errors say what failed
		}
		if err := keys.Save(args[1]); err != nil {
			return err //nolint:wrapcheck // natsauth's errors name the file
		}
		_, err = fmt.Fprintf(stdout, "NATS keys written to %s (owner-only). Set BARRAGE_NATS_KEYS=%s for barrage-api and "+
			"give nats-server the output of `barrage-api nats-auth server-config`.\n", args[1], args[1])
		return err //nolint:wrapcheck // a write to stdout
	case "bootstrap":
		return natsBootstrap(args[1:], stdout, stderr)
	case "server-config":
		var limits func() natsauth.AccountLimits
		keys, _, err := keysFlag("nats-auth server-config", args[1:], environ, stderr, func(fs *flag.FlagSet) {
			limits = accountLimitFlags(fs)
		})
		if err != nil {
			return err
		}
		trust, err := keys.TrustLimited(limits())
		if err != nil {
			return err //nolint:wrapcheck // natsauth's errors say what failed
		}
		_, err = io.WriteString(stdout, trust.ServerConfig())
		return err //nolint:wrapcheck // a write to stdout
	default:
		return usageError{fmt.Errorf("nats-auth: unknown command %q (init, server-config or bootstrap)", args[0])}
	}
}

// agentCredentials runs `agent-credentials create NAME [-o FILE] [-pool
// POOL] [-capacity N]`: the pool and capacity cap are bound in the
// credential (natsauth.AgentOptions).
func agentCredentials(args, environ []string, stdout, stderr io.Writer) error {
	var opts natsauth.AgentOptions
	return issueCredentials("agent-credentials", args, environ, stdout, stderr,
		func(keys natsauth.Keys, name string) (natsauth.Credentials, string, error) {
			creds, id, err := keys.AgentUser(name, opts)
			return creds, fmt.Sprintf("agent %q has id %s; start it with `barrage-agent serve -creds FILE`", name, id), err
		}, func(fs *flag.FlagSet) { agentOptionFlags(fs, &opts, "") })
}

// agentOptionFlags adds the flags of what an agent credential binds.
func agentOptionFlags(fs *flag.FlagSet, opts *natsauth.AgentOptions, prefix string) {
	fs.StringVar(&opts.Pool, prefix+"pool", "", "agent pool bound in the credential (projects restricted to pools get only agents of theirs)")
	fs.IntVar(&opts.Capacity, prefix+"capacity", 0, "most shards the agent may run at once, bound in the credential (0: the server's cap only)")
	fs.Int64Var(&opts.Payload, prefix+"max-payload", 0, "largest message the agent may publish, bytes (0: the server's max_payload)")
}

// accountLimitFlags adds the flags of the account's JetStream limits and
// returns a function that reads them once parsed.
func accountLimitFlags(fs *flag.FlagSet) func() natsauth.AccountLimits {
	def := natsauth.DefaultAccountLimits()
	mem := fs.Int64("js-memory-mib", def.MemoryBytes>>20, "JetStream memory the Barrage account may use, MiB")
	disk := fs.Int64("js-disk-mib", def.DiskBytes>>20, "JetStream disk the Barrage account may use, MiB")
	streams := fs.Int64("js-streams", def.Streams, "JetStream streams the Barrage account may hold")
	consumers := fs.Int64("js-consumers", def.Consumers, "JetStream consumers the Barrage account may hold")
	return func() natsauth.AccountLimits {
		return natsauth.AccountLimits{MemoryBytes: *mem << 20, DiskBytes: *disk << 20, Streams: *streams, Consumers: *consumers}
	}
}

// echoCredentials runs `echo-credentials create NAME [-o FILE]`: a managed
// echo's credentials (natsauth.EchoPermissions).
func echoCredentials(args, environ []string, stdout, stderr io.Writer) error {
	return issueCredentials("echo-credentials", args, environ, stdout, stderr,
		func(keys natsauth.Keys, name string) (natsauth.Credentials, string, error) {
			creds, err := keys.EchoUser(name)
			return creds, fmt.Sprintf("start the echo with `barrage-echo -nats URL -creds FILE -name %s -project PROJECT`", name), err
		}, nil)
}

// issueCredentials parses `create NAME [-o FILE] [-nats-keys FILE]` and
// writes the credentials issue returns, then its note on stderr.
func issueCredentials(cmd string, args, environ []string, stdout, stderr io.Writer,
	issue func(natsauth.Keys, string) (natsauth.Credentials, string, error), extra func(*flag.FlagSet),
) error {
	if len(args) < 2 || args[0] != "create" || strings.HasPrefix(args[1], "-") {
		return usageError{fmt.Errorf("%s needs create NAME", cmd)}
	}
	name := args[1]
	if err := natsauth.CheckName(name); err != nil {
		return usageError{err}
	}
	var out string
	keys, fs, err := keysFlag(cmd+" create", args[2:], environ, stderr, func(fs *flag.FlagSet) {
		fs.StringVar(&out, "o", "", "write the credentials to this new file (owner-only) instead of stdout")
		if extra != nil {
			extra(fs)
		}
	})
	if err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Errorf("%s create: unexpected %q", cmd, fs.Arg(0))}
	}
	creds, note, err := issue(keys, name)
	if err != nil {
		if strings.Contains(err.Error(), "pool") || strings.Contains(err.Error(), "capacity") {
			return usageError{err}
		}
		return err //nolint:wrapcheck // natsauth's errors say what failed
	}
	file, err := creds.File()
	if err != nil {
		return err //nolint:wrapcheck // natsauth's errors say what failed
	}
	if out == "" {
		if _, err := stdout.Write(file); err != nil {
			return err //nolint:wrapcheck // a write to stdout
		}
	} else if err := natsauth.WriteSecretFile(out, file); err != nil {
		return err //nolint:wrapcheck // natsauth's errors name the file
	}
	_, err = fmt.Fprintln(stderr, note)
	return err //nolint:wrapcheck // a write to stderr
}

// keysFlag parses -nats-keys (default BARRAGE_NATS_KEYS) and any extra
// flags, and loads the keys.
func keysFlag(cmd string, args, environ []string, stderr io.Writer, extra ...func(*flag.FlagSet)) (natsauth.Keys, *flag.FlagSet, error) {
	fs := flag.NewFlagSet(cmd, flag.ContinueOnError)
	fs.SetOutput(stderr)
	path := svclog.Lookup(environ, "BARRAGE_NATS_KEYS")
	fs.StringVar(&path, "nats-keys", path, "NATS keys file from `barrage-api nats-auth init` (BARRAGE_NATS_KEYS)")
	for _, f := range extra {
		f(fs)
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return natsauth.Keys{}, nil, err //nolint:wrapcheck // flag.ErrHelp is matched by Main
		}
		return natsauth.Keys{}, nil, usageError{err}
	}
	if path == "" {
		return natsauth.Keys{}, nil, usageError{fmt.Errorf("%s: no keys file: set -nats-keys or BARRAGE_NATS_KEYS (create one with `barrage-api nats-auth init FILE`)", cmd)}
	}
	keys, err := natsauth.Load(path)
	if err != nil {
		return natsauth.Keys{}, nil, err //nolint:wrapcheck // natsauth's errors name the file
	}
	return keys, fs, nil
}

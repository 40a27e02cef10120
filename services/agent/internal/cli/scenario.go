package cli

import (
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/barrage-dev/barrage/pkg/netguard"
	spec "github.com/barrage-dev/barrage/pkg/scenario"
	pkgspec "github.com/barrage-dev/barrage/pkg/spec"
	"github.com/barrage-dev/barrage/services/agent/internal/scenario"
	"github.com/barrage-dev/barrage/services/agent/internal/tlsconf"
)

// scenarioFlags are the flags of `barrage-agent load -scenario FILE`.
type scenarioFlags struct {
	file       string
	rate       float64
	duration   time.Duration
	count      int64
	conns      int
	timeout    time.Duration
	nativeJSON string
	quiet      bool
	insecure   bool
	tls        tlsFlags
}

// wantsScenario reports whether load's arguments name a scenario, which
// load runs with its own flags (runScenarioLoad).
func wantsScenario(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if strings.HasPrefix(a, "-") && name == "scenario" {
			return true
		}
	}
	return false
}

func newScenarioFlagSet(f *scenarioFlags) *flag.FlagSet {
	fs := flag.NewFlagSet("barrage-agent load -scenario", flag.ContinueOnError)
	fs.StringVar(&f.file, "scenario", "", "run this multi-step scenario (JSON or YAML; docs/scenarios.md)")
	fs.Float64Var(&f.rate, "iterations-per-second", 1, "rate of iteration starts (open loop); 0 runs a closed loop of -c virtual users")
	fs.DurationVar(&f.duration, "t", 5*time.Second, "how long iterations start; those in flight then finish")
	fs.Int64Var(&f.count, "n", 0, "start exactly this many iterations (overrides -t)")
	fs.IntVar(&f.conns, "c", 8, "most iterations in flight (closed loop: the virtual users)")
	fs.DurationVar(&f.timeout, "timeout", 3*time.Second, "per-request timeout")
	fs.StringVar(&f.nativeJSON, "native-json", "", `also write the per-step result JSON to this file ("-" = stdout only)`)
	fs.BoolVar(&f.quiet, "quiet", false, "do not announce the run on stderr")
	fs.BoolVar(&f.insecure, "k", false, "do not verify the TLS certificates of the https:// steps (verification is on by default)")
	addTLSFlags(fs, &f.tls)
	return fs
}

// runScenarioLoad is `barrage-agent load -scenario FILE`.
func runScenarioLoad(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	f := &scenarioFlags{}
	fs := newScenarioFlagSet(f)
	fs.SetOutput(io.Discard)
	err := fs.Parse(args)
	if errors.Is(err, flag.ErrHelp) {
		fs.SetOutput(stderr)
		fs.PrintDefaults()
		return ExitOK
	}
	if err == nil && fs.NArg() > 0 {
		err = fmt.Errorf("a scenario names its URLs: unexpected argument %q", fs.Arg(0))
	}
	var plan *spec.Plan
	if err == nil {
		plan, err = readScenario(f.file)
	}
	var tlsCfg *tls.Config
	if err == nil {
		tlsCfg, err = f.tlsConfig()
	}
	if err != nil {
		_, _ = fmt.Fprintf(stderr, "barrage-agent load: %v\n", err)
		return ExitUsage
	}
	opts := scenario.Options{
		Plan: plan, IterationsPerSecond: f.rate, Duration: f.duration, MaxIterations: f.count,
		Concurrency: f.conns, Timeout: f.timeout, DialContext: netguard.Unrestricted().DialContext, TLS: tlsCfg,
	}
	if f.count > 0 {
		opts.Duration = 0
	}
	if err := opts.Normalize(); err != nil {
		_, _ = fmt.Fprintf(stderr, "barrage-agent load: %v\n", err)
		return ExitUsage
	}
	if !f.quiet {
		pace := fmt.Sprintf("%g iterations/s, at most %d in flight", f.rate, opts.Concurrency)
		if f.rate == 0 {
			pace = fmt.Sprintf("closed loop of %d virtual users", opts.Concurrency)
		}
		_, _ = fmt.Fprintf(stderr, "barrage-agent load: scenario %q, %d steps, %s\n", plan.Name, len(plan.Steps), pace)
	}
	res, err := scenario.Run(ctx, opts)
	if err != nil {
		_, _ = fmt.Fprintf(stderr, "barrage-agent load: %v\n", err)
		return ExitFailure
	}
	if f.nativeJSON != "" {
		if err := writeTo(f.nativeJSON, stdout, func(w io.Writer) error { return scenario.WriteJSON(w, res) }); err != nil {
			_, _ = fmt.Fprintf(stderr, "barrage-agent load: -native-json: %v\n", err)
			return ExitFailure
		}
	}
	if f.nativeJSON != "-" {
		if err := scenario.WriteText(stdout, res); err != nil {
			_, _ = fmt.Fprintf(stderr, "barrage-agent load: %v\n", err)
			return ExitFailure
		}
	}
	return iterationsExit(res, stderr)
}

// tlsConfig is the https:// steps' TLS configuration from -k and the TLS
// flags; -alpn is refused, as each step chooses its protocol.
func (f *scenarioFlags) tlsConfig() (*tls.Config, error) {
	if f.tls.alpn != "" {
		return nil, errors.New("-alpn: a scenario's steps choose their protocol (steps[i].protocol: h2 or http/1.1)")
	}
	settings, err := f.tls.settings()
	if err != nil {
		return nil, err
	}
	cfg, err := tlsconf.Config(pkgspec.Spec{Insecure: f.insecure || f.tls.httpsInsecure, TLSSettings: settings})
	if err != nil {
		field, _, _ := strings.Cut(err.Error(), ":")
		if name := tlsFlagName(field); name != "" {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		return nil, err
	}
	return cfg, nil
}

// iterationsExit is the exit code of a scenario that ran: ExitIterationsFailed,
// with a line saying how many, when an iteration failed (a failed check or
// extraction, or a request without a response).
func iterationsExit(res *scenario.Result, stderr io.Writer) int {
	if res.Failed == 0 {
		return ExitOK
	}
	_, _ = fmt.Fprintf(stderr, "barrage-agent load: %d of %d iterations failed\n", res.Failed, res.Started)
	return ExitIterationsFailed
}

// readScenario reads and compiles a scenario file.
func readScenario(name string) (*spec.Plan, error) {
	if name == "" {
		return nil, errors.New("-scenario: give a file")
	}
	doc, err := os.ReadFile(name) //nolint:gosec // the file the user named
	if err != nil {
		return nil, fmt.Errorf("-scenario: %w", err)
	}
	sc, err := spec.Decode(doc)
	if err == nil {
		sc.Data, err = spec.ReadDataFile(sc.Data, filepath.Dir(name))
	}
	var plan *spec.Plan
	if err == nil {
		plan, err = spec.Compile(sc)
	}
	if err != nil {
		// One problem a line, each naming its field.
		return nil, fmt.Errorf("-scenario %s: %s", name, strings.ReplaceAll(err.Error(), "\n", "; "))
	}
	return plan, nil
}

package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"strings"

	"github.com/barrage-dev/barrage/pkg/netguard"
	"github.com/barrage-dev/barrage/pkg/spec"
	"github.com/barrage-dev/barrage/services/agent/internal/engine"
	"github.com/barrage-dev/barrage/services/agent/internal/plan"
	"github.com/barrage-dev/barrage/services/agent/internal/procs"
	"github.com/barrage-dev/barrage/services/agent/internal/report"
	"github.com/barrage-dev/barrage/services/agent/internal/request"
)

// runLoad is `barrage-agent load`.
func runLoad(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if wantsScenario(args) {
		return runScenarioLoad(ctx, args, stdout, stderr)
	}
	f, s, payload, err := parseLoad(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return ExitOK
	}
	if errors.As(err, new(errUsagePrinted)) {
		return ExitUsage
	}
	if err != nil {
		_, _ = fmt.Fprintf(stderr, "barrage-agent load: %v\n", err)
		_, _ = fmt.Fprintln(stderr, "Run 'barrage-agent load -h' for the flags.")
		return ExitUsage
	}
	// No project policy here: like Fortio, dial whatever the user names,
	// except link-local and cloud metadata addresses (netguard.Unrestricted).
	dial := request.DialFunc(netguard.Unrestricted().DialContext)
	if f.resolve != "" {
		dial = dialResolved(dial, f.resolve)
	}
	factory, err := plan.NewFactory(s, payload, dial, nil)
	if err != nil {
		_, _ = fmt.Fprintf(stderr, "barrage-agent load: %v\n", err)
		return ExitUsage
	}
	progress := &report.Progress{Response: s.Pacing == spec.PacingOpen}
	urls, err := newURLRecorder(f.recordURLs, progress)
	if err != nil {
		_, _ = fmt.Fprintf(stderr, "barrage-agent load: -record-urls: %v\n", err)
		return ExitUsage
	}
	if !f.quiet {
		announce(stderr, s, factory, progress)
	}
	opts := plan.EngineOptions(s, factory)
	opts.Sink = progress
	opts.Timeline = -1 // no output of load shows a timeline: keep its memory and draws off
	if urls != nil {
		opts.Sink = urls
	}
	stopProfile, err := startCPUProfile(f.cpuProfile)
	if err != nil {
		urls.discard()
		_, _ = fmt.Fprintf(stderr, "barrage-agent load: -cpuprofile: %v\n", err)
		return ExitUsage
	}
	stopProcs := procs.Start(ctx, procs.InitialFor(s.PeakQPS()), nil)
	final, err := engine.Run(ctx, opts)
	stopProcs()
	stopProfile()
	if err != nil {
		urls.discard()
		_, _ = fmt.Fprintf(stderr, "barrage-agent load: %v\n", err)
		return ExitFailure
	}
	if de, ok := factory.(interface{ SocketError() error }); ok && de.SocketError() != nil {
		// The requests count as -1; say why once, as a TLS failure
		// (unknown authority, refused version, bad client certificate) is
		// otherwise invisible.
		_, _ = fmt.Fprintf(stderr, "barrage-agent load: connection error (requests counted as code -1, or as errors for gRPC): %v\n", de.SocketError())
	}
	if err := urls.save(final, f.quiet, stderr); err != nil {
		_, _ = fmt.Fprintf(stderr, "barrage-agent load: -record-urls: %v\n", err)
		return ExitFailure
	}
	return writeOutputs(f, s, factory, final, progress.Intervals(), stdout, stderr)
}

// writeOutputs writes the result of a finished load as the flags ask and
// returns the exit code.
func writeOutputs(f *loadFlags, s spec.Spec, factory request.Factory, final *engine.Snapshot, intervals []report.Interval,
	stdout, stderr io.Writer,
) int {
	res, err := report.New(final, report.Meta{Spec: s, RunType: factory.RunType(), CodeName: factory.CodeName, Intervals: intervals})
	if err != nil {
		_, _ = fmt.Fprintf(stderr, "barrage-agent load: %v\n", err)
		return ExitFailure
	}
	if err := writeResults(f, &res, stdout); err != nil {
		_, _ = fmt.Fprintf(stderr, "barrage-agent load: %v\n", err)
		return ExitFailure
	}
	if f.autoSave {
		path, err := report.SaveFortio(f.dataDir, &res)
		if err != nil {
			_, _ = fmt.Fprintf(stderr, "barrage-agent load: -a: %v\n", err)
			return ExitFailure
		}
		_, _ = fmt.Fprintf(stderr, "barrage-agent load: saved %s\n", path)
	}
	if res.Aborted {
		return ExitFailure
	}
	return ExitOK
}

// announce says on stderr what the load is about to do and makes progress
// print there.
func announce(stderr io.Writer, s spec.Spec, factory request.Factory, progress *report.Progress) {
	progress.Out = stderr
	progress.InPlace = isTerminal(stderr)
	conns := fmt.Sprintf("%d connections", s.Connections)
	if n := s.Streams(); n > 1 {
		conns += fmt.Sprintf(" × %d streams", n)
	}
	_, _ = fmt.Fprintf(stderr, "barrage-agent load: %s %s, %s pacing, %s, %s\n",
		factory.RunType(), s.Redacted().URL, s.Pacing, conns, describeRate(s))
}

// startCPUProfile starts a pprof CPU profile into name ("" = none) and
// returns the function that stops it.
func startCPUProfile(name string) (func(), error) {
	if name == "" {
		return func() {}, nil
	}
	file, err := os.Create(name) //nolint:gosec // the output file the user named
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(file); err != nil {
		_ = file.Close()
		return nil, err
	}
	return func() {
		pprof.StopCPUProfile()
		_ = file.Close()
	}, nil
}

// isTerminal reports whether w is a character device (an interactive terminal).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

func describeRate(s spec.Spec) string {
	rate := "max qps"
	switch {
	case s.Ramp != nil:
		rate = fmt.Sprintf("ramp %g→%g qps over %v", s.Ramp.From, s.Ramp.To, s.Ramp.Over.Std())
	case len(s.Stages) > 0:
		parts := make([]string, len(s.Stages))
		for i, st := range s.Stages {
			parts[i] = fmt.Sprintf("%g qps for %v", st.QPS, st.Duration.Std())
		}
		rate = "stages " + strings.Join(parts, ", then ")
	case s.QPS > 0:
		rate = fmt.Sprintf("%g qps", s.QPS)
	}
	switch {
	case s.Count > 0:
		return fmt.Sprintf("%s, %d calls", rate, s.Count)
	case s.UntilStopped:
		return rate + ", until interrupted"
	}
	return fmt.Sprintf("%s for %v", rate, s.Duration.Std())
}

// resultWriter returns the writer of a -format value; false for an unknown one.
func resultWriter(format string) (func(io.Writer, *report.Result) error, bool) {
	switch format {
	case "text":
		return report.WriteText, true
	case "json":
		return report.WriteJSON, true
	case "fortio":
		return report.WriteFortio, true
	case "csv":
		return report.WriteCSV, true
	case "prometheus":
		return report.WritePrometheus, true
	case "yaml":
		return report.WriteYAML, true
	}
	return nil, false
}

// formatNames lists the -format values for messages.
const formatNames = "text, json, fortio, csv (a row per percentile), prometheus (text exposition) or yaml"

// writeResults writes the result in -format to -o (or stdout), Fortio's
// JSON to -json and the native JSON to -native-json when asked. Either JSON
// to "-" with the default text format makes stdout that JSON only, as
// Fortio's `-json -` does.
func writeResults(f *loadFlags, res *report.Result, stdout io.Writer) error {
	for _, side := range []struct {
		flag, name string
		write      func(io.Writer, *report.Result) error
	}{{"-json", f.jsonFile, report.WriteFortio}, {"-native-json", f.nativeJSON, report.WriteJSON}} {
		if side.name == "" {
			continue
		}
		if err := writeTo(side.name, stdout, func(w io.Writer) error { return side.write(w, res) }); err != nil {
			return fmt.Errorf("%s: %w", side.flag, err)
		}
		if side.name == "-" && f.output == "" && f.format == "text" {
			return nil
		}
	}
	writer, _ := resultWriter(f.format) // parseLoad checked it
	write := func(w io.Writer) error { return writer(w, res) }
	name := f.output
	if name == "" {
		name = "-"
	}
	return writeTo(name, stdout, write)
}

// checkStdout refuses two outputs on stdout: -json -, -native-json - and
// a -format other than text without -o.
func (f *loadFlags) checkStdout() error {
	switch {
	case f.jsonFile == "-" && f.nativeJSON == "-":
		return errors.New("-json - and -native-json - would both write to stdout: give one a FILE")
	case (f.jsonFile == "-" || f.nativeJSON == "-") && f.output == "" && f.format != "text":
		return fmt.Errorf("a JSON to - and -format %s would both write to stdout: give -o FILE", f.format)
	}
	return nil
}

// writeTo writes to stdout for "-" and to the named file otherwise.
func writeTo(name string, stdout io.Writer, write func(io.Writer) error) error {
	if name == "-" {
		return write(stdout)
	}
	file, err := os.Create(name) //nolint:gosec // the output file the user named
	if err != nil {
		return err
	}
	if err := write(file); err != nil {
		_ = file.Close()
		return err
	}
	return file.Close()
}

package cli

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/google/uuid"
	"go.yaml.in/yaml/v4"
)

// runFlags are the flags of `barrage run`.
type runFlags struct {
	test, specFile, target string
	qps                    float64
	connections            int
	duration               time.Duration
	count                  int64
	project, name          string
	thresholds             listFlag
	labels                 listFlag
	wait                   time.Duration
	junit, json            string
	baseline               string
	baselineLast           int
	allowPartial           bool
	summaryMD              string
	request                requestFlags
	// set holds the names of the flags given.
	set map[string]bool
}

// listFlag is a repeatable string flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ", ") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

// defaultWait is how long `barrage run` waits for its run by default.
const defaultWait = 30 * time.Minute

// parseRunFlags reads the flags of `barrage run`.
func parseRunFlags(args []string, stderr io.Writer) (*runFlags, error) {
	f := &runFlags{set: map[string]bool{}}
	fs := flag.NewFlagSet("barrage run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&f.test, "test", "", "run the stored test of this name or id")
	fs.StringVar(&f.specFile, "spec", "", "run the spec in this JSON or YAML file")
	fs.StringVar(&f.target, "url", "", "target URL of an inline spec")
	fs.Float64Var(&f.qps, "qps", 0, "target requests per second in total; 0 = as fast as possible")
	fs.IntVar(&f.connections, "c", 0, "connections (default 8)")
	fs.DurationVar(&f.duration, "t", 0, "duration (default 5s)")
	fs.Int64Var(&f.count, "n", 0, "exact number of requests; excludes -t")
	fs.StringVar(&f.project, "project", "", "project id or slug (default: the token's or the test's)")
	fs.StringVar(&f.name, "name", "", "run name")
	fs.Var(&f.thresholds, "threshold", "pass/fail expression such as 'p(99) < 250ms' (repeatable)")
	fs.Var(&f.labels, "label", "label key=value (repeatable)")
	fs.DurationVar(&f.wait, "wait", defaultWait, "how long to wait for the run to end before stopping it")
	fs.StringVar(&f.junit, "junit", "", "write the JUnit XML report to this file")
	fs.StringVar(&f.json, "json", "", "write the final run and result as JSON to this file")
	fs.StringVar(&f.baseline, "baseline", "", "run id that baseline thresholds compare with (default: the test's last passing run)")
	fs.IntVar(&f.baselineLast, "baseline-last", 0, "compare baseline thresholds with the test's last N (1 to 20) passing runs, pooled")
	fs.BoolVar(&f.allowPartial, "allow-partial", false, "judge a run that lost an agent's shard by its thresholds instead of exiting 97")
	fs.StringVar(&f.summaryMD, "summary-md", "", "write a Markdown summary (verdict, figures, thresholds) to this file, e.g. $GITHUB_STEP_SUMMARY")
	f.request.register(fs)
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	fs.Visit(func(fl *flag.Flag) { f.set[fl.Name] = true })
	sources := 0
	for _, s := range []string{"test", "spec", "url"} {
		if f.set[s] {
			sources++
		}
	}
	if sources != 1 {
		return nil, errors.New("give exactly one of --test, --spec and --url")
	}
	if f.baseline != "" && !isID(f.baseline) {
		return nil, fmt.Errorf("--baseline %q: want a run id", f.baseline)
	}
	if err := f.checkBaselineLast(); err != nil {
		return nil, err
	}
	if f.wait <= 0 {
		return nil, errors.New("--wait must be positive")
	}
	if f.set["test"] && (f.set["qps"] || f.set["c"] || f.set["t"] || f.set["n"] || f.request.given(f.set) != "") {
		return nil, errors.New("--qps, -c, -t, -n and the request flags (-H, -X, -payload, ...) apply to --url and --spec, not to --test")
	}
	if err := f.request.check(f.set); err != nil {
		return nil, err
	}
	return f, nil
}

// checkBaselineLast checks --baseline-last: 1 to 20, with --test, not
// with --baseline (the API says the same; saying it first spares a
// request).
func (f *runFlags) checkBaselineLast() error {
	switch {
	case !f.set["baseline-last"]:
		return nil
	case f.baselineLast < 1 || f.baselineLast > 20:
		return fmt.Errorf("--baseline-last %d: pool from 1 to 20 runs", f.baselineLast)
	case f.baseline != "":
		return errors.New("give --baseline or --baseline-last, not both")
	case !f.set["test"]:
		return errors.New("--baseline-last pools a stored test's last passing runs: use it with --test")
	}
	return nil
}

// createBody is the JSON of POST /runs (RunCreate); the spec stays a map
// so a spec file's fields reach the API as written, unknown ones included.
type createBody struct {
	Project    string            `json:"project,omitempty"`
	Test       string            `json:"test,omitempty"`
	Spec       map[string]any    `json:"spec,omitempty"`
	Name       string            `json:"name,omitempty"`
	Thresholds []string          `json:"thresholds,omitempty"`
	Labels     map[string]string `json:"labels,omitempty"`
	Baseline   string            `json:"baseline_run,omitempty"`
	Last       int               `json:"baseline_last,omitempty"`
	Partial    bool              `json:"allow_partial,omitempty"`
}

// body maps the flags to a RunCreate. specData is the --spec file's
// content; testID the id --test resolved to.
func (f *runFlags) body(specData []byte, specName, testID string) (createBody, error) {
	b := createBody{
		Project: f.project, Name: f.name, Test: testID, Thresholds: f.thresholds, Baseline: f.baseline, Partial: f.allowPartial,
		Last: f.baselineLast,
	}
	for _, kv := range f.labels {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return createBody{}, fmt.Errorf("--label %q: want key=value", kv)
		}
		if b.Labels == nil {
			b.Labels = map[string]string{}
		}
		b.Labels[k] = v
	}
	switch {
	case f.set["spec"]:
		sp, err := decodeSpec(specData, specName)
		if err != nil {
			return createBody{}, err
		}
		if err := inlineDataFile(sp, specName); err != nil {
			return createBody{}, fmt.Errorf("--spec %s: %w", specName, err)
		}
		b.Spec = sp
	case f.set["url"]:
		b.Spec = map[string]any{"url": f.target}
	default:
		return b, nil
	}
	if f.set["qps"] {
		b.Spec["qps"] = f.qps
	}
	if f.set["c"] {
		b.Spec["connections"] = f.connections
	}
	if f.set["t"] {
		b.Spec["duration"] = f.duration.String()
	}
	if f.set["n"] {
		b.Spec["count"] = f.count
	}
	if err := f.request.apply(b.Spec, f.set); err != nil {
		return createBody{}, err
	}
	return b, nil
}

// decodeSpec reads a RunSpec from JSON, or YAML when name ends in .yaml or
// .yml or the data is not JSON.
func decodeSpec(data []byte, name string) (map[string]any, error) {
	var sp map[string]any
	ext := strings.ToLower(filepath.Ext(name))
	if ext != ".yaml" && ext != ".yml" {
		err := json.Unmarshal(data, &sp)
		if err == nil {
			return sp, nil
		}
		if ext == ".json" {
			return nil, fmt.Errorf("--spec %s: %w", name, err)
		}
	}
	if err := yaml.Unmarshal(data, &sp); err != nil {
		return nil, fmt.Errorf("--spec %s: %w", name, err)
	}
	if sp == nil {
		return nil, fmt.Errorf("--spec %s: empty spec", name)
	}
	return sp, nil
}

// readSpec reads the --spec file.
func readSpec(name string) ([]byte, error) {
	b, err := os.ReadFile(name) //nolint:gosec // the path is the user's own flag
	if err != nil {
		return nil, fmt.Errorf("--spec: %w", err)
	}
	return b, nil
}

// isID reports whether s is a test id rather than a name.
func isID(s string) bool {
	_, err := uuid.Parse(s)
	return err == nil
}

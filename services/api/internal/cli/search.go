package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/barrage-dev/barrage/services/api/client"
)

// searchFlags are the flags of `barrage search`.
type searchFlags struct {
	specFile, target, project, name, objective string
	connections                                int
	minQPS, maxQPS, resolution                 float64
	step, warmup, wait                         time.Duration
	set                                        map[string]bool
}

// searchPoll is how often `barrage search` reads its search.
const searchPoll = time.Second

func parseSearchFlags(args []string, stderr io.Writer) (*searchFlags, error) {
	f := &searchFlags{set: map[string]bool{}}
	fs := flag.NewFlagSet("barrage search", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&f.target, "url", "", "target URL of an inline spec")
	fs.StringVar(&f.specFile, "spec", "", "base spec in this JSON or YAML file (its qps and duration are set per step)")
	fs.IntVar(&f.connections, "c", 0, "connections in total (default the spec's, or 8)")
	fs.StringVar(&f.project, "project", "", "project id or slug (default: the token's)")
	fs.StringVar(&f.name, "name", "", "search name")
	fs.StringVar(&f.objective, "objective", "", `what must hold, e.g. "p(99) < 50ms and error_rate < 0.1%"`)
	fs.Float64Var(&f.minQPS, "min", 0, "lowest qps tried, where the search starts")
	fs.Float64Var(&f.maxQPS, "max", 0, "highest qps tried")
	fs.DurationVar(&f.step, "step", 0, "measured length of each step (default 10s)")
	fs.DurationVar(&f.warmup, "warmup", 0, "unmeasured start of each step (default 2s)")
	fs.Float64Var(&f.resolution, "resolution", 0, "stop when the failing qps is within this fraction of the passing one (default 0.02)")
	fs.DurationVar(&f.wait, "wait", time.Hour, "how long to wait for the search before canceling it")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	fs.Visit(func(fl *flag.Flag) { f.set[fl.Name] = true })
	switch {
	case f.set["url"] == f.set["spec"]:
		return nil, errors.New("give exactly one of --url and --spec")
	case f.objective == "":
		return nil, errors.New(`--objective is required, e.g. --objective "p(99) < 50ms"`)
	case !f.set["min"] || !f.set["max"]:
		return nil, errors.New("--min and --max are required: the qps bounds of the search")
	case f.wait <= 0:
		return nil, errors.New("--wait must be positive")
	}
	return f, nil
}

// body is the SearchCreate of the flags; specData is the --spec file.
func (f *searchFlags) body(specData []byte) (map[string]any, error) {
	sp := map[string]any{"url": f.target}
	if f.set["spec"] {
		var err error
		if sp, err = decodeSpec(specData, f.specFile); err != nil {
			return nil, err
		}
	}
	if f.set["c"] {
		sp["connections"] = f.connections
	}
	b := map[string]any{"spec": sp, "objective": f.objective, "min_qps": f.minQPS, "max_qps": f.maxQPS}
	for k, v := range map[string]string{"project": f.project, "name": f.name} {
		if v != "" {
			b[k] = v
		}
	}
	if f.set["step"] {
		b["step_duration"] = f.step.String()
	}
	if f.set["warmup"] {
		b["warmup"] = f.warmup.String()
	}
	if f.set["resolution"] {
		b["resolution"] = f.resolution
	}
	return b, nil
}

// search is `barrage search`: start a capacity search, print each step as
// it ends and the answer; exit 0 when a rate met the objective, 99 when
// even --min failed it, 97 when the search failed or was canceled.
func (e *env) search(ctx context.Context, args []string) int {
	f, err := parseSearchFlags(args, e.out.stderr)
	if err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			e.out.errorf("barrage search: %v", err)
		}
		return ExitUsage
	}
	var specData []byte
	if f.set["spec"] {
		if specData, err = readSpec(f.specFile); err != nil {
			e.out.errorf("barrage search: %v", err)
			return ExitUsage
		}
	}
	body, err := f.body(specData)
	if err != nil {
		e.out.errorf("barrage search: %v", err)
		return ExitUsage
	}
	b, err := json.Marshal(body)
	if err != nil {
		return e.out.fail("start search", fmt.Errorf("encode request: %w", err))
	}
	var sr client.Search
	if _, err := call(ctx, &sr, func() (*http.Response, error) { return e.api.CreateSearchWithBody(ctx, jsonBody, bytes.NewReader(b)) }); err != nil {
		return e.out.fail("start search", err)
	}
	e.out.printf("search %s: %s between %g and %g qps\n", sr.Id, sr.Objective, sr.MinQps, sr.MaxQps)
	return e.followSearch(ctx, sr, f.wait)
}

// followSearch polls the search, printing each finished step once, until
// it ends or wait passes (then it cancels it).
func (e *env) followSearch(ctx context.Context, sr client.Search, wait time.Duration) int {
	deadline := e.now().Add(wait)
	printed := 0
	tick := time.NewTicker(searchPoll)
	defer tick.Stop()
	for {
		for ; printed < len(sr.Steps) && sr.Steps[printed].Status != client.StepRunning; printed++ {
			e.out.printf("%s\n", formatStep(sr.Steps[printed]))
		}
		if sr.Status != client.SearchRunning {
			return e.searchResult(sr)
		}
		if e.now().After(deadline) || ctx.Err() != nil {
			e.cancelSearch(sr.Id)
			e.out.errorf("barrage search: canceled: not done within --wait %s", wait)
			return ExitRunError
		}
		select {
		case <-ctx.Done():
		case <-tick.C:
		}
		if ctx.Err() != nil {
			continue
		}
		if _, err := call(ctx, &sr, func() (*http.Response, error) { return e.api.GetSearch(ctx, sr.Id) }); err != nil && ctx.Err() == nil {
			return e.out.fail("read search", err)
		}
	}
}

// cancelSearch cancels a search, best effort, even when ctx is done.
func (e *env) cancelSearch(id uuid.UUID) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, _ = call(ctx, nil, func() (*http.Response, error) { return e.api.CancelSearch(ctx, id) })
}

// searchResult prints the answer and returns the exit code.
func (e *env) searchResult(sr client.Search) int {
	e.out.printf("%s\n", sr.Message)
	switch {
	case sr.Status != client.SearchCompleted:
		e.out.printf("search %s\n", sr.Status)
		return ExitRunError
	case sr.Outcome != nil && *sr.Outcome == client.OutcomeNotMet:
		return ExitThresholds
	}
	e.out.printf("capacity: %g qps\n", deref(sr.BestQps))
	return ExitPass
}

// formatStep is one line per step: its rate, verdict and figures.
func formatStep(st client.SearchStep) string {
	var b strings.Builder
	fmt.Fprintf(&b, "step %d  %g qps  %s", st.Step+1, st.Qps, strings.ToUpper(string(st.Status)))
	if st.Status != client.StepError {
		fmt.Fprintf(&b, "  achieved %.1f qps  p50 %s  p99 %s  errors %d (%s)", st.AchievedQps,
			formatMicros(st.P50Us), formatMicros(st.P99Us), st.Errors, formatRate(st.Errors, st.Count))
	}
	if st.Detail != "" {
		fmt.Fprintf(&b, "  — %s", st.Detail)
	}
	return b.String()
}

// Command ingestbench measures barrage-api's ingester under load: it
// resets a dedicated database, starts NATS in this process and barrage-api
// as a subprocess on it, and for each agent count N plays N simulated
// agents (heartbeats in the agents bucket, the real dispatcher's
// assignments taken and acked, one interval snapshot per second each with
// HDR histograms of about 1000 values, then a final) through a run of N
// shards. It reports the lag from publishing a snapshot to the interval
// event that shows it on the run's SSE stream (and, for comparison, to the
// ingester's commit notification), the API's CPU, Postgres rows/s and
// whether every snapshot was stored, as Markdown. It is a development
// tool behind bench/ingest-load; see bench/README.md.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// Exit codes.
const (
	exitOK      = 0
	exitFailure = 1
	exitUsage   = 2
)

// defaultDatabaseURL is the dedicated bench database on the local Postgres.
const defaultDatabaseURL = "postgres://postgres@127.0.0.1:5432/barrage_ingest_bench?sslmode=disable"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// config is the command line.
type config struct {
	databaseURL string
	apiBin      string
	agents      []int
	seconds     int
	values      int
	out         string
	note        string
	// scenario is "ingest" (one phase per agent count) or
	// "control-plane" (runs of agents[0] agents each at once, with SSE
	// viewers and list and compare calls: cplane.go).
	scenario string
	runs     int    // control-plane: concurrent runs
	viewers  int    // control-plane: SSE viewers, spread over the runs
	reads    int    // control-plane: list and compare calls a second
	hold     string // big-run: write the API's address here and hold it until interrupted
	live     int    // big-run: the last seconds, published one a second after -hold is written
}

// run is the whole command: it returns the exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	cfg, err := parseFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	if err != nil {
		fmt.Fprintf(stderr, "ingestbench: %v\n", err)
		return exitUsage
	}
	rep, err := bench(ctx, cfg, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "ingestbench: %v\n", err)
		return exitFailure
	}
	md := rep.markdown()
	if cfg.out != "" {
		if err := writeFile(cfg.out, md); err != nil {
			fmt.Fprintf(stderr, "ingestbench: %v\n", err)
			return exitFailure
		}
		fmt.Fprintf(stderr, "ingestbench: wrote %s\n", cfg.out)
	}
	if _, err := io.WriteString(stdout, md); err != nil {
		return exitFailure
	}
	return exitOK
}

// parseFlags reads the command line.
func parseFlags(args []string, stderr io.Writer) (config, error) {
	var cfg config
	var agents string
	fs := flag.NewFlagSet("ingestbench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&cfg.databaseURL, "database-url", defaultDatabaseURL,
		"Postgres URL of the bench database; it is DROPPED and recreated at start, so its name must contain \"bench\"")
	fs.StringVar(&cfg.apiBin, "api-bin", "bin/barrage-api", "barrage-api binary, run as a subprocess")
	fs.StringVar(&agents, "agents", "10,100,500", "comma-separated simulated agent counts, one phase (and one run of that many shards) each")
	fs.IntVar(&cfg.seconds, "seconds", 60, "interval snapshots each agent sends per phase (one per second)")
	fs.IntVar(&cfg.values, "values", 1000, "values recorded in each interval histogram")
	fs.StringVar(&cfg.out, "out", "", "write the Markdown report to this file too")
	fs.StringVar(&cfg.note, "note", "", "a remark printed in the report header")
	fs.StringVar(&cfg.scenario, "scenario", "ingest", "ingest (a phase per agent count), control-plane (-runs runs of -agents agents at once, -viewers, -reads) "+
		"or big-run (one run of -agents agents and -seconds seconds, published as fast as it is stored)")
	fs.StringVar(&cfg.hold, "hold", "", "big-run: then write the API's address, the run and the admin's credentials to this JSON file and keep the API up until interrupted")
	fs.IntVar(&cfg.live, "live", 0, "big-run with -hold: write -hold while the run is live, then publish its last this many seconds one a second")
	fs.IntVar(&cfg.runs, "runs", 50, "control-plane: runs at once")
	fs.IntVar(&cfg.viewers, "viewers", 200, "control-plane: SSE viewers of the runs' events, spread over the runs")
	fs.IntVar(&cfg.reads, "reads", 20, "control-plane: list and compare calls a second, alternating")
	if err := fs.Parse(args); err != nil {
		return config{}, err
	}
	for _, f := range strings.Split(agents, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 || n > 1000 {
			return config{}, fmt.Errorf("-agents %q: want counts from 1 to 1000", agents)
		}
		cfg.agents = append(cfg.agents, n)
	}
	switch {
	case fs.NArg() > 0:
		return config{}, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	case cfg.seconds < 2 || cfg.seconds > 3600:
		return config{}, errors.New("-seconds must be from 2 to 3600")
	case cfg.values < 1:
		return config{}, errors.New("-values must be at least 1")
	case cfg.apiBin == "":
		return config{}, errors.New("-api-bin must not be empty")
	case cfg.scenario != "ingest" && cfg.scenario != "control-plane" && cfg.scenario != "big-run":
		return config{}, fmt.Errorf("-scenario %q: want ingest, control-plane or big-run", cfg.scenario)
	case cfg.scenario != "ingest" && len(cfg.agents) != 1:
		return config{}, fmt.Errorf("-agents: the %s scenario takes one count, the agents of each run", cfg.scenario)
	case cfg.hold != "" && cfg.scenario != "big-run":
		return config{}, errors.New("-hold is for the big-run scenario")
	case cfg.live != 0 && (cfg.hold == "" || cfg.live < 0 || cfg.live >= cfg.seconds):
		return config{}, errors.New("-live needs -hold and must be from 1 to -seconds minus 1")
	case cfg.scenario == "control-plane" && (cfg.runs < 1 || cfg.runs > 200 || cfg.viewers < 0 || cfg.reads < 1 || cfg.reads > 1000):
		return config{}, errors.New("-runs must be from 1 to 200, -viewers 0 or more, -reads from 1 to 1000")
	}
	return cfg, nil
}

// writeFile writes text to path, creating its directory.
func writeFile(path, text string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil { //nolint:gosec // bench/results, committed and read by others
		return fmt.Errorf("create the report directory: %w", err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil { //nolint:gosec // bench/results, committed and read by others
		return fmt.Errorf("write the report: %w", err)
	}
	return nil
}

// progress prints a line about what the bench is doing.
func progress(w io.Writer, format string, args ...any) {
	fmt.Fprintf(w, "ingestbench: "+format+"\n", args...)
}

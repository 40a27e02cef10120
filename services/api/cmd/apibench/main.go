// Command apibench measures barrage-api on a large runs table: the latency
// of GET /api/v1/runs (first, middle and last pages, unfiltered and
// filtered) over one keep-alive connection, and the throughput of
// POST /api/v1/runs from concurrent clients sharing one connection pool.
// It resets a dedicated database, boots the API (a barrage-api subprocess,
// or in-process), seeds the runs with SQL, measures, and writes a Markdown
// report. It is a development tool behind bench/api-latency; see
// bench/README.md.
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
	"runtime/pprof"
	"syscall"
	"time"
)

// Exit codes.
const (
	exitOK      = 0
	exitFailure = 1
	exitUsage   = 2
)

// defaultDatabaseURL is the dedicated bench database on the local Postgres.
const defaultDatabaseURL = "postgres://postgres@127.0.0.1:5432/barrage_bench?sslmode=disable"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// config is the command line.
type config struct {
	databaseURL string
	apiBin      string // "" runs the API in-process
	runs        int
	samples     int
	warmup      int
	limit       int
	postFor     time.Duration
	postWorkers int
	// compareSamples is the timed GET /runs/compare requests per case;
	// 0 seeds no results and skips the phase.
	compareSamples int
	out            string
	note           string
	cpuProfile     string
}

// run is the whole command: it returns the exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	cfg, err := parseFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	if err != nil {
		fmt.Fprintf(stderr, "apibench: %v\n", err)
		return exitUsage
	}
	stopProfile, err := startProfile(cfg.cpuProfile)
	if err != nil {
		fmt.Fprintf(stderr, "apibench: %v\n", err)
		return exitFailure
	}
	rep, err := bench(ctx, cfg, stderr)
	stopProfile()
	if err != nil {
		fmt.Fprintf(stderr, "apibench: %v\n", err)
		return exitFailure
	}
	md := rep.markdown()
	if cfg.out != "" {
		if err := writeFile(cfg.out, md); err != nil {
			fmt.Fprintf(stderr, "apibench: %v\n", err)
			return exitFailure
		}
	}
	if _, err := io.WriteString(stdout, md); err != nil {
		return exitFailure
	}
	if cfg.out != "" {
		fmt.Fprintf(stderr, "apibench: wrote %s\n", cfg.out)
	}
	return exitOK
}

// parseFlags reads the command line.
func parseFlags(args []string, stderr io.Writer) (config, error) {
	var cfg config
	var postSeconds float64
	fs := flag.NewFlagSet("apibench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&cfg.databaseURL, "database-url", defaultDatabaseURL,
		"Postgres URL of the bench database; it is DROPPED and recreated at start, so its name must contain \"bench\"")
	fs.StringVar(&cfg.apiBin, "api-bin", "", "barrage-api binary to run as a subprocess; empty = serve the API in this process")
	fs.IntVar(&cfg.runs, "runs", 100000, "runs seeded into the table (90% in project default, 10% in another)")
	fs.IntVar(&cfg.samples, "samples", 500, "timed requests per list case")
	fs.IntVar(&cfg.warmup, "warmup", 50, "untimed requests per list case before the timed ones")
	fs.IntVar(&cfg.limit, "limit", 50, "page size of the list requests")
	fs.Float64Var(&postSeconds, "post-seconds", 10, "length of the POST /runs phase, in seconds")
	fs.IntVar(&cfg.postWorkers, "post-workers", 8, "concurrent POST /runs clients (one shared connection pool)")
	fs.IntVar(&cfg.compareSamples, "compare-samples", 0,
		"timed GET /runs/compare requests per case (2, 5, 10 runs); 0 = no compare phase and no run_results rows seeded")
	fs.StringVar(&cfg.out, "out", "", "write the Markdown report to this file too")
	fs.StringVar(&cfg.note, "note", "", "a remark printed in the report header (e.g. what else ran on the machine)")
	fs.StringVar(&cfg.cpuProfile, "cpuprofile", "", "write a CPU profile of apibench (which includes the API when in-process) to this file")
	if err := fs.Parse(args); err != nil {
		return config{}, err
	}
	cfg.postFor = time.Duration(postSeconds * float64(time.Second))
	switch {
	case fs.NArg() > 0:
		return config{}, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	case cfg.runs < 1000:
		return config{}, errors.New("-runs must be at least 1000")
	case cfg.compareSamples < 0:
		return config{}, errors.New("-compare-samples must not be negative")
	case cfg.samples < 1 || cfg.warmup < 0:
		return config{}, errors.New("-samples must be at least 1 and -warmup not negative")
	case cfg.limit < 1 || cfg.limit > 200:
		return config{}, errors.New("-limit must be from 1 to 200")
	case cfg.postFor < 0 || cfg.postWorkers < 1:
		return config{}, errors.New("-post-seconds must not be negative and -post-workers must be at least 1")
	}
	return cfg, nil
}

// startProfile starts a CPU profile into path ("" = none) and returns
// what stops it.
func startProfile(path string) (func(), error) {
	if path == "" {
		return func() {}, nil
	}
	f, err := os.Create(path) //nolint:gosec // the output file of the bench's own flag
	if err != nil {
		return nil, fmt.Errorf("-cpuprofile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("-cpuprofile: %w", err)
	}
	return func() { pprof.StopCPUProfile(); _ = f.Close() }, nil
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

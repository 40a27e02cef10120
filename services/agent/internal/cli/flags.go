package cli

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/barrage-dev/barrage/pkg/spec"
	"github.com/barrage-dev/barrage/services/agent/internal/request"
)

// loadFlags holds `barrage-agent load` flags, named as Fortio names them.
type loadFlags struct {
	qps           float64
	conns         int
	duration      time.Duration
	count         int64
	percentiles   string
	headers       stringList
	payload       string
	payloadFile   string
	contentType   string
	method        string
	timeout       time.Duration
	h2            bool
	h3            bool
	insecure      bool
	labels        string
	jsonFile      string
	nativeJSON    string
	grpc          bool
	ping          bool
	grpcPingDelay time.Duration
	healthService string
	grpcMethod    string
	streams       int
	abortOn       int
	jitter        bool
	uniform       bool
	noCatchUp     bool
	pacing        string
	ramp          string
	stages        string
	format        string
	output        string
	quiet         bool
	cpuProfile    string
	payloadSize   int
	user          string
	resolve       string
	autoSave      bool
	dataDir       string
	latencyHeader string
	urlFile       string
	urlRandom     bool
	urls          []string // read from urlFile
	http10        bool
	compression   bool
	unixSocket    string
	maxPerConn    int64
	prefetch      bool
	burst         int
	follow        bool
	recordURLs    string
	reuse         string
	tls           tlsFlags
	// set holds the names of the flags given on the command line.
	set map[string]bool
}

// errUsagePrinted wraps a flag error whose message and usage were printed already.
type errUsagePrinted struct{ err error }

func (e errUsagePrinted) Error() string { return e.err.Error() }
func (e errUsagePrinted) Unwrap() error { return e.err }

// stringList is a repeatable string flag.
type stringList []string

func (s *stringList) String() string     { return strings.Join(*s, ", ") }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }

func newLoadFlagSet(f *loadFlags, out io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("barrage-agent load", flag.ContinueOnError)
	fs.SetOutput(out)
	fs.Usage = func() {
		_, _ = fmt.Fprintln(fs.Output(), "Usage: barrage-agent load [flags] URL\n"+
			"       barrage-agent load -scenario FILE [-iterations-per-second N] [-t D | -n N] [-c N] [-timeout D] [-native-json FILE]\n"+
			"       (a multi-step scenario, docs/scenarios.md; 'barrage-agent load -scenario x -h' lists its flags)\n\nFlags:")
		fs.PrintDefaults()
	}
	fs.Float64Var(&f.qps, "qps", 8, "target total queries per second; 0 = as fast as possible")
	fs.IntVar(&f.conns, "c", 8, "number of connections")
	fs.DurationVar(&f.duration, "t", 5*time.Second, "how long to run; 0 = until interrupted")
	fs.Int64Var(&f.count, "n", 0, "exact number of calls (overrides -t)")
	fs.StringVar(&f.percentiles, "p", "50,75,90,99,99.9", "percentiles to report, comma-separated")
	fs.Var(&f.headers, "H", `request header "Name: value" (repeatable)`)
	fs.StringVar(&f.payload, "payload", "", "request body / message (makes HTTP a POST)")
	fs.StringVar(&f.payloadFile, "payload-file", "", "read the request body / message from this file")
	fs.StringVar(&f.urlFile, "url-file", "", "send the URLs of this file (one per line, same scheme and host; instead of URL)")
	fs.BoolVar(&f.urlRandom, "url-random", false, "with -url-file: pick a URL at random for every request (default in turn)")
	fs.StringVar(&f.recordURLs, "record-urls", "", "write the URLs of the successful writes (not GET, HEAD or OPTIONS; 2xx) to this file at the end, one per line: a -url-file for reading them back")
	fs.StringVar(&f.contentType, "content-type", "", "HTTP Content-Type of the payload")
	fs.StringVar(&f.method, "X", "", "HTTP method (default GET, or POST with a payload)")
	fs.DurationVar(&f.timeout, "timeout", 0, "per-request timeout (default 3s, 750ms for UDP)")
	fs.BoolVar(&f.h2, "h2", false, "use HTTP/2 (h2 over TLS for https://, h2c for http://)")
	fs.BoolVar(&f.h3, "h3", false, "use HTTP/3 over QUIC (https:// only)")
	fs.BoolVar(&f.insecure, "k", false, "do not verify TLS certificates (verification is on by default)")
	fs.StringVar(&f.labels, "labels", "", `run labels: "k=v,k2=v2", or free text (stored as title)`)
	fs.StringVar(&f.jsonFile, "json", "", `also write Fortio's result JSON to this file ("-" = stdout only), as fortio load -json does`)
	fs.StringVar(&f.nativeJSON, "native-json", "", `also write Barrage's native result JSON (HDR histograms, intervals) to this file ("-" = stdout only)`)
	fs.BoolVar(&f.grpc, "grpc", false, "gRPC health check of the target host:port")
	fs.BoolVar(&f.ping, "ping", false, "with -grpc: call fgrpc.PingServer/Ping instead of the health check")
	fs.DurationVar(&f.grpcPingDelay, "grpc-ping-delay", 0, "with -ping: delay the server waits before replying")
	fs.StringVar(&f.healthService, "healthservice", "", "with -grpc: service name to health-check")
	fs.StringVar(&f.grpcMethod, "grpc-method", "", `gRPC: call this unary method, "package.Service/Method", found by server reflection, with -payload as the request in JSON (implies -grpc)`)
	fs.IntVar(&f.streams, "s", 1, "with -grpc: calls in flight per connection (connections × streams callers)")
	fs.IntVar(&f.abortOn, "abort-on", 0, "stop the run at the first HTTP status equal to this (-1 = socket error)")
	fs.BoolVar(&f.jitter, "jitter", false, "move each send time by up to ±10% of the interval")
	fs.BoolVar(&f.uniform, "uniform", false, "spread connection starts over one interval (fortio pacing)")
	fs.BoolVar(&f.noCatchUp, "nocatchup", false, "do not catch up after a late send (fortio pacing)")
	fs.StringVar(&f.pacing, "pacing", "", "open (default with -qps > 0), closed (default with -qps 0) or fortio")
	fs.StringVar(&f.ramp, "ramp", "", `linear qps ramp "FROM:TO:OVER", e.g. 100:1000:30s`)
	fs.StringVar(&f.stages, "stages", "", `stepped qps "QPS:DURATION,...", e.g. 100:10s,200:10s (the last holds; -t defaults to their sum)`)
	fs.StringVar(&f.format, "format", "text", "result format: "+formatNames)
	fs.StringVar(&f.output, "o", "", "write the result to this file instead of stdout")
	fs.BoolVar(&f.quiet, "quiet", false, "no per-second progress lines on stderr")
	fs.StringVar(&f.cpuProfile, "cpuprofile", "", "write a pprof CPU profile of the run to this file")
	fs.IntVar(&f.payloadSize, "payload-size", 0, "send a random payload of this many bytes (makes HTTP a POST; instead of -payload)")
	fs.StringVar(&f.user, "user", "", `basic auth "user:password" (sent as an Authorization header, redacted in every output)`)
	fs.StringVar(&f.resolve, "resolve", "", "connect to this IP address instead of resolving the URL's host (which stays the Host and TLS name)")
	fs.BoolVar(&f.autoSave, "a", false, "also save the result as Fortio JSON, <ID>.json in -data-dir")
	fs.StringVar(&f.dataDir, "data-dir", ".", "where -a saves results")
	fs.StringVar(&f.latencyHeader, "latency-header", "", "record the latency the target reports in this response header as a fourth (server) histogram: Server-Timing dur= (ms), or µs, or a number with a unit (ns, us, ms, s)")
	addConnFlags(fs, f)
	addTLSFlags(fs, &f.tls)
	return fs
}

// addConnFlags adds the connection and HTTP behaviour flags of Fortio and
// Nighthawk.
func addConnFlags(fs *flag.FlagSet, f *loadFlags) {
	fs.BoolVar(&f.http10, "http1.0", false, "send HTTP/1.0 requests: a new connection per request unless the server keeps it alive")
	fs.BoolVar(&f.compression, "compression", false, "ask for gzip (Accept-Encoding: gzip); bytes are counted compressed")
	fs.StringVar(&f.unixSocket, "unix-socket", "", "send HTTP over this Unix domain socket; the URL's host is only the Host header")
	fs.Int64Var(&f.maxPerConn, "max-requests-per-connection", 0, "close a connection after this many requests and open a new one (0 = no limit; 1 = a new connection, and handshake, per request)")
	fs.StringVar(&f.reuse, "connection-reuse", "", `Fortio's "min:max" (or "n"): close each connection after a random number of requests in that range; 1:1 = a new connection per request`)
	fs.BoolVar(&f.prefetch, "prefetch", false, "reopen a closed connection right after its response, outside the measured times")
	fs.IntVar(&f.burst, "burst", 0, "send in bursts of N requests due at once; the average rate stays -qps")
	fs.BoolVar(&f.follow, "L", false, "follow redirects (up to 10); HTTP/1.1 then uses the standard library's client")
}

// parseLoad parses args into a validated spec (payload file already read).
func parseLoad(args []string, out io.Writer) (*loadFlags, spec.Spec, []byte, error) {
	f := &loadFlags{}
	fs := newLoadFlagSet(f, out)
	fs.SetOutput(io.Discard) // errors are reported once, by the caller
	if err := fs.Parse(args); err != nil {
		fs.SetOutput(out)
		if !errors.Is(err, flag.ErrHelp) {
			_, _ = fmt.Fprintf(out, "barrage-agent load: %v\n", err)
		}
		fs.Usage()
		return nil, spec.Spec{}, nil, errUsagePrinted{err}
	}
	f.set = map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { f.set[fl.Name] = true })
	target := fs.Arg(0)
	switch {
	case f.urlFile != "" && fs.NArg() == 0:
		urls, err := readURLFile(f.urlFile)
		if err != nil {
			return nil, spec.Spec{}, nil, err
		}
		f.urls, target = urls, urls[0]
	case f.urlFile != "":
		return nil, spec.Spec{}, nil, errors.New("-url-file replaces the URL argument: give one")
	case f.urlRandom:
		return nil, spec.Spec{}, nil, errors.New("-url-random needs -url-file")
	case fs.NArg() != 1:
		return nil, spec.Spec{}, nil, fmt.Errorf("want exactly one URL, got %d arguments", fs.NArg())
	}
	if f.conns < 1 {
		return nil, spec.Spec{}, nil, fmt.Errorf("-c %d: need at least 1 connection", f.conns)
	}
	if f.streams < 1 {
		return nil, spec.Spec{}, nil, fmt.Errorf("-s %d: need at least 1 stream", f.streams)
	}
	if _, ok := resultWriter(f.format); !ok {
		return nil, spec.Spec{}, nil, fmt.Errorf("-format %q: want %s", f.format, formatNames)
	}
	if err := f.checkStdout(); err != nil {
		return nil, spec.Spec{}, nil, err
	}
	s, err := f.spec(target)
	if err != nil {
		return nil, spec.Spec{}, nil, err
	}
	payload := []byte(s.Payload)
	if s.PayloadFile != "" {
		if payload, err = os.ReadFile(s.PayloadFile); err != nil {
			return nil, spec.Spec{}, nil, fmt.Errorf("-payload-file: %w", err)
		}
	}
	if f.payloadSize > 0 {
		payload = make([]byte, f.payloadSize)
		_, _ = rand.Read(payload) // crypto/rand never fails
	}
	return f, s, payload, nil
}

// spec translates the flags, Fortio style, into a validated spec.
func (f *loadFlags) spec(target string) (spec.Spec, error) {
	if err := f.checkExtras(); err != nil {
		return spec.Spec{}, err
	}
	if f.user != "" {
		f.headers = append(f.headers, "Authorization: Basic "+base64.StdEncoding.EncodeToString([]byte(f.user)))
	}
	if f.grpcMethod != "" {
		f.grpc = true
	}
	if f.payloadSize > 0 && f.method == "" && !f.grpc {
		f.method = http.MethodPost
	}
	s := spec.Spec{
		URL: targetURL(target, f.grpc, f.h2), QPS: f.qps, Connections: f.conns,
		Count: f.count, Jitter: f.jitter, Uniform: f.uniform, NoCatchUp: f.noCatchUp,
		Pacing: spec.Pacing(f.pacing), Method: f.method, Headers: f.headers,
		Payload: f.payload, PayloadFile: f.payloadFile, ContentType: f.contentType,
		Timeout: spec.Duration(f.timeout), Insecure: f.insecure || f.tls.httpsInsecure, AbortOn: f.abortOn,
		H2: f.h2 && strings.HasPrefix(target, "https://") && !f.grpc,
		H3: f.h3 && !f.grpc, LatencyHeader: f.latencyHeader,
		URLs:   f.urls,
		HTTP10: f.http10, Compression: f.compression, UnixSocket: f.unixSocket,
		MaxRequestsPerConnection: f.maxPerConn, Prefetch: f.prefetch, Burst: f.burst, FollowRedirects: f.follow,
		RecordWrittenURLs: f.recordURLs != "",
	}
	if f.urlRandom {
		s.URLOrder = spec.URLRandom
	}
	switch {
	case f.count > 0:
	case f.duration == 0 && f.set["t"]:
		s.UntilStopped = true
	case f.stages != "" && !f.set["t"]:
		// Normalize makes the run as long as the stages.
	default:
		s.Duration = spec.Duration(f.duration)
	}
	var err error
	if f.stages != "" {
		if s.Stages, err = parseStages(f.stages); err != nil {
			return s, err
		}
		if !f.set["qps"] {
			s.QPS = 0 // the stages set the rate
		}
	}
	if s.Percentiles, err = parsePercentiles(f.percentiles); err != nil {
		return s, err
	}
	if f.ramp != "" {
		if s.Ramp, err = parseRamp(f.ramp); err != nil {
			return s, err
		}
		if !f.set["qps"] {
			s.QPS = 0 // the ramp sets the rate
		}
	}
	s.Labels = spec.ParseFortioLabels(f.labels)
	if s.GRPC, err = f.grpcSpec(); err != nil {
		return s, err
	}
	if s.ConnectionReuse, err = parseReuse(f.reuse); err != nil {
		return s, err
	}
	if s.TLSSettings, err = f.tls.settings(); err != nil {
		return s, err
	}
	s.Normalize()
	return s, withTLSFlags(s.Validate())
}

// grpcSpec is the grpc block of the spec, nil without -grpc.
func (f *loadFlags) grpcSpec() (*spec.GRPC, error) {
	if !f.grpc {
		if f.ping || f.healthService != "" || f.grpcPingDelay != 0 || f.set["s"] {
			return nil, errors.New("-ping, -healthservice, -grpc-ping-delay and -s need -grpc")
		}
		return nil, nil
	}
	g := &spec.GRPC{Mode: spec.GRPCHealth, Service: f.healthService, PingDelay: spec.Duration(f.grpcPingDelay), Streams: f.streams}
	switch {
	case f.grpcMethod != "" && (f.ping || f.healthService != "" || f.grpcPingDelay != 0):
		return nil, errors.New("-grpc-method calls one method: it does not combine with -ping, -healthservice or -grpc-ping-delay")
	case f.grpcMethod != "" && f.payloadSize > 0:
		return nil, errors.New("-grpc-method takes the request as JSON in -payload or -payload-file, not -payload-size")
	case f.grpcMethod != "":
		g.Mode, g.Method = spec.GRPCMethod, f.grpcMethod
	case f.ping:
		g.Mode = spec.GRPCPing
	}
	return g, nil
}

// targetURL maps Fortio's target forms to spec URLs: "-grpc host:port" →
// grpc://host:port (grpcs:// for an https:// target), "-h2 http://" → h2c://.
func targetURL(target string, grpc, h2 bool) string {
	if grpc {
		if rest, ok := strings.CutPrefix(target, "https://"); ok {
			return "grpcs://" + strings.TrimSuffix(rest, "/")
		}
		if rest, ok := strings.CutPrefix(target, "http://"); ok {
			target = strings.TrimSuffix(rest, "/")
		}
		if !strings.Contains(target, "://") {
			return "grpc://" + target
		}
		return target
	}
	if h2 {
		if rest, ok := strings.CutPrefix(target, "http://"); ok {
			return "h2c://" + rest
		}
	}
	return target
}

func parsePercentiles(list string) ([]float64, error) {
	var ps []float64
	for item := range strings.SplitSeq(list, ",") {
		p, err := strconv.ParseFloat(strings.TrimSpace(item), 64)
		if err != nil {
			return nil, fmt.Errorf("-p %q: %q is not a number", list, item)
		}
		ps = append(ps, p)
	}
	return ps, nil
}

func parseRamp(v string) (*spec.Ramp, error) {
	parts := strings.Split(v, ":")
	if len(parts) != 3 {
		return nil, fmt.Errorf("-ramp %q: want FROM:TO:OVER, e.g. 100:1000:30s", v)
	}
	from, err1 := strconv.ParseFloat(parts[0], 64)
	to, err2 := strconv.ParseFloat(parts[1], 64)
	over, err3 := time.ParseDuration(parts[2])
	if err := errors.Join(err1, err2, err3); err != nil {
		return nil, fmt.Errorf("-ramp %q: want FROM:TO:OVER, e.g. 100:1000:30s", v)
	}
	return &spec.Ramp{From: from, To: to, Over: spec.Duration(over)}, nil
}

// parseStages reads "QPS:DURATION,QPS:DURATION,...".
func parseStages(v string) ([]spec.Stage, error) {
	var out []spec.Stage
	for item := range strings.SplitSeq(v, ",") {
		q, d, ok := strings.Cut(strings.TrimSpace(item), ":")
		qps, err1 := strconv.ParseFloat(q, 64)
		length, err2 := time.ParseDuration(d)
		if !ok || errors.Join(err1, err2) != nil {
			return nil, fmt.Errorf("-stages %q: stage %q: want QPS:DURATION, e.g. 100:10s,200:10s", v, item)
		}
		out = append(out, spec.Stage{QPS: qps, Duration: spec.Duration(length)})
	}
	return out, nil
}

// maxPayloadSize bounds -payload-size (the payload is held in memory).
const maxPayloadSize = 64 << 20

// checkExtras checks the flags of Fortio's that do not map onto the spec.
func (f *loadFlags) checkExtras() error {
	switch {
	case f.payloadSize < 0 || f.payloadSize > maxPayloadSize:
		return fmt.Errorf("-payload-size %d: must be from 0 to %d", f.payloadSize, maxPayloadSize)
	case f.payloadSize > 0 && (f.payload != "" || f.payloadFile != ""):
		return errors.New("-payload-size replaces -payload and -payload-file: give one")
	case f.user != "" && !strings.Contains(f.user, ":"):
		return fmt.Errorf("-user: want user:password")
	case f.resolve != "" && net.ParseIP(f.resolve) == nil:
		return fmt.Errorf("-resolve %q: want an IP address", f.resolve)
	case f.autoSave && f.dataDir == "":
		return errors.New("-a: -data-dir must not be empty")
	case f.resolve != "" && f.unixSocket != "":
		return errors.New("-resolve and -unix-socket both say where to connect: give one")
	}
	return nil
}

// dialResolved wraps dial so that every connection goes to ip (keeping
// the port the client asked for): -resolve.
func dialResolved(dial request.DialFunc, ip string) request.DialFunc {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		_, port, err := net.SplitHostPort(addr)
		if err != nil {
			return nil, fmt.Errorf("-resolve: %w", err)
		}
		return dial(ctx, network, net.JoinHostPort(ip, port))
	}
}

// readURLFile reads a -url-file: one URL per line; blank lines and lines
// starting with # are skipped.
func readURLFile(path string) ([]string, error) {
	b, err := os.ReadFile(path) //nolint:gosec // the path is the user's own flag
	if err != nil {
		return nil, fmt.Errorf("-url-file: %w", err)
	}
	var urls []string
	for line := range strings.Lines(string(b)) {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if len(urls) == spec.MaxURLs {
			return nil, fmt.Errorf("-url-file %s: more than %d URLs", path, spec.MaxURLs)
		}
		urls = append(urls, line)
	}
	if len(urls) == 0 {
		return nil, fmt.Errorf("-url-file %s: no URL in it", path)
	}
	return urls, nil
}

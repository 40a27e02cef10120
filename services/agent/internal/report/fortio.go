package report

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/barrage-dev/barrage/pkg/hist"
	"github.com/barrage-dev/barrage/pkg/spec"
)

// maxFortioID is Fortio's limit on result IDs.
const maxFortioID = 96

// fortioResult is Fortio's result JSON (FORTIO-COMPAT.md): Go field names as keys,
// in Fortio's order, latencies in seconds. The protocol-specific fields follow
// the common ones and are omitted when they do not apply.
type fortioResult struct {
	RunType                 string
	Labels                  string
	StartTime               time.Time
	RequestedQPS            string
	RequestedDuration       string
	ActualQPS               float64
	ActualDuration          int64
	NumThreads              int
	Version                 string
	DurationHistogram       hist.FortioHistogram
	ErrorsDurationHistogram hist.FortioHistogram
	Exactly                 int64
	Jitter                  bool
	Uniform                 bool
	NoCatchUp               bool
	RunID                   int64
	AccessLoggerInfo        string
	ID                      string
	RetCodes                map[string]int64
	URL                     string `json:",omitempty"`
	Destination             string `json:",omitempty"`
	NumConnections          int    `json:",omitempty"`
	SocketCount             int
	BytesSent               int64
	BytesReceived           int64
}

// WriteFortio writes r as Fortio result JSON, which `fortio report` lists and
// graphs. The histograms come from the HDR data in r (primary latency as
// DurationHistogram). Barrage does not keep the latencies of failed requests
// apart, so ErrorsDurationHistogram carries only their count.
func WriteFortio(w io.Writer, r *Result) error {
	f, err := toFortio(r)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(f)
}

func toFortio(r *Result) (*fortioResult, error) {
	h, err := hist.Decode([]byte(r.PrimaryLatency().HDR))
	if err != nil {
		return nil, fmt.Errorf("decode %s histogram: %w", r.Primary, err)
	}
	s := r.Spec
	f := &fortioResult{
		RunType:           r.RunType,
		Labels:            FortioLabels(s.Labels),
		StartTime:         r.Start,
		RequestedQPS:      "max",
		RequestedDuration: requestedDuration(s),
		ActualQPS:         r.ActualQPS,
		ActualDuration:    int64(r.End.Sub(r.Start)),
		NumThreads:        r.Connections,
		Version:           "barrage-" + r.Version,
		DurationHistogram: h.Fortio(s.Percentiles),
		ErrorsDurationHistogram: hist.FortioHistogram{
			Count: r.Errors, Data: []hist.FortioBucket{},
		},
		Exactly:        s.Count,
		Jitter:         s.Jitter,
		Uniform:        s.Uniform,
		NoCatchUp:      s.NoCatchUp,
		RetCodes:       r.RetCodes,
		SocketCount:    r.Connections,
		BytesSent:      r.BytesSent,
		BytesReceived:  r.BytesReceived,
		NumConnections: r.Connections,
	}
	if q := r.RequestedQPS; q > 0 {
		f.RequestedQPS = strconv.FormatFloat(q, 'g', 9, 64)
	}
	if s.Protocol() == spec.ProtocolHTTP {
		f.URL = s.URL
	} else {
		f.Destination = s.URL
	}
	f.ID = FortioID(r.Start, 0, f.Labels)
	return f, nil
}

func requestedDuration(s spec.Spec) string {
	switch {
	case s.Count > 0:
		return fmt.Sprintf("exactly %d calls", s.Count)
	case s.UntilStopped:
		return "until stop"
	}
	return s.Duration.Std().String()
}

// FortioLabels renders labels as Fortio's single label string: a "title" label
// alone is used as is, others as sorted "key=value" words.
func FortioLabels(labels map[string]string) string {
	if t, ok := labels["title"]; ok && len(labels) == 1 {
		return t
	}
	var words []string
	for _, k := range slices.Sorted(maps.Keys(labels)) {
		words = append(words, k+"="+labels[k])
	}
	return strings.Join(words, " ")
}

// FortioID builds a Fortio result ID: YYYY-MM-DD-HHMMSS[_<runID>][_<labels>],
// non-alphanumerics of the labels collapsed to "_", at most 96 characters.
func FortioID(start time.Time, runID int64, labels string) string {
	id := start.Format("2006-01-02-150405")
	if runID != 0 {
		id += "_" + strconv.FormatInt(runID, 10)
	}
	if l := strings.Trim(nonAlnum().ReplaceAllString(labels, "_"), "_"); l != "" {
		id += "_" + l
	}
	if len(id) > maxFortioID {
		id = id[:maxFortioID]
	}
	return id
}

func nonAlnum() *regexp.Regexp { return regexp.MustCompile(`[^A-Za-z0-9]+`) }

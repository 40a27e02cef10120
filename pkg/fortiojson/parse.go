package fortiojson

import (
	"encoding/json"
	"errors"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/barrage-dev/barrage/pkg/spec"
)

// MaxDocumentBytes is the largest result JSON Parse and Redact accept.
const MaxDocumentBytes = 8 << 20

// maxListed bounds the buckets, percentiles and return codes of a document.
const maxListed = 10000

// FieldError says which field of an imported document is wrong and why.
// Field is a JSON path such as "DurationHistogram.Count"; it is empty when
// the document as a whole is rejected.
type FieldError struct {
	Field string
	Msg   string
}

// Error reads "<field>: <msg>", or just the message when Field is empty.
func (e *FieldError) Error() string {
	if e.Field == "" {
		return e.Msg
	}
	return e.Field + ": " + e.Msg
}

// fieldErr builds a *FieldError.
func fieldErr(field, msg string) error {
	return &FieldError{Field: field, Msg: msg}
}

// Document is what an imported result says, latencies in microseconds.
type Document struct {
	// RunType is Fortio's run type ("HTTP", "GRPC Ping", ...); empty for Nighthawk.
	RunType string
	// Labels is the run's label string.
	Labels string
	// Version is the producing tool's version.
	Version string
	// ID is the result's ID.
	ID string
	// Target is URL, else Destination, with credentials redacted (spec.RedactURL).
	Target string
	// StartTime is when the run started.
	StartTime time.Time
	// RequestedQPS is the target rate; 0 means "max".
	RequestedQPS float64
	// RequestedDuration is the run's length as the tool wrote it ("30s", "exactly 100 calls").
	RequestedDuration string
	// ActualQPS is the rate achieved.
	ActualQPS float64
	// ActualDuration is how long the run took.
	ActualDuration time.Duration
	// NumThreads is the number of connections/goroutines.
	NumThreads int
	// Latency comes from DurationHistogram.
	Latency Latency
	// Errors is ErrorsDurationHistogram.Count when that key is present, else
	// the calls whose RetCodes key is not a 2xx/3xx HTTP code, "SERVING" or "OK".
	Errors int64
	// RetCodes counts calls by return code.
	RetCodes map[string]int64
	// BytesSent and BytesReceived count bytes on the wire (TCP/UDP runs).
	BytesSent, BytesReceived int64
}

// Latency is a latency histogram in microseconds.
type Latency struct {
	// Count is the number of calls measured.
	Count int64
	// MinUS, MaxUS, AvgUS, StdDevUS and SumUS summarise the calls.
	MinUS, MaxUS, AvgUS, StdDevUS, SumUS float64
	// Percentiles are those the document lists, sorted by P.
	Percentiles []Percentile
	// Buckets are the histogram's non-empty buckets, in document order.
	Buckets []Bucket
}

// Percentile is the latency US at percentile P (0..100).
type Percentile struct{ P, US float64 }

// Bucket counts the calls with latencies from StartUS to EndUS.
type Bucket struct {
	StartUS, EndUS float64
	Count          int64
}

// rawDoc holds the keys Parse reads; numbers may be JSON strings, so every
// value is kept raw and converted with its path for error messages.
type rawDoc struct {
	RunType, Labels, Version, ID          json.RawMessage
	URL, Destination                      json.RawMessage
	StartTime                             json.RawMessage
	RequestedQPS, RequestedDuration       json.RawMessage
	ActualQPS, ActualDuration, NumThreads json.RawMessage
	DurationHistogram                     json.RawMessage
	ErrorsDurationHistogram               json.RawMessage
	RetCodes                              json.RawMessage
	BytesSent, BytesReceived              json.RawMessage
}

// rawHistogram is a Fortio histogram with raw values.
type rawHistogram struct {
	Count, Min, Max, Sum, Avg, StdDev json.RawMessage
	Data                              []struct{ Start, End, Percent, Count json.RawMessage }
	Percentiles                       []struct{ Percentile, Value json.RawMessage }
}

// Parse reads a Fortio result JSON (or Nighthawk's fortio output format).
// Errors are *FieldError.
func Parse(data []byte) (*Document, error) {
	var raw rawDoc
	if err := decodeObject(data, &raw); err != nil {
		return nil, err
	}
	if isAbsent(raw.DurationHistogram) {
		return nil, fieldErr("DurationHistogram", "missing")
	}
	p := &fieldParser{}
	d := &Document{
		RunType:           p.text("RunType", raw.RunType),
		Labels:            p.text("Labels", raw.Labels),
		Version:           p.text("Version", raw.Version),
		ID:                p.text("ID", raw.ID),
		RequestedDuration: p.text("RequestedDuration", raw.RequestedDuration),
		ActualQPS:         p.float("ActualQPS", raw.ActualQPS),
		ActualDuration:    time.Duration(p.int("ActualDuration", raw.ActualDuration)),
		NumThreads:        int(min(p.int("NumThreads", raw.NumThreads), math.MaxInt32)),
		BytesSent:         p.int("BytesSent", raw.BytesSent),
		BytesReceived:     p.int("BytesReceived", raw.BytesReceived),
		RequestedQPS:      p.qps("RequestedQPS", raw.RequestedQPS),
		StartTime:         p.time("StartTime", raw.StartTime),
		Latency:           p.histogram("DurationHistogram", raw.DurationHistogram),
		RetCodes:          p.retCodes("RetCodes", raw.RetCodes),
	}
	target := p.text("URL", raw.URL)
	if target == "" {
		target = p.text("Destination", raw.Destination)
	}
	d.Target = spec.RedactURL(target)
	if isAbsent(raw.ErrorsDurationHistogram) {
		d.Errors = countErrors(d.RetCodes)
	} else {
		d.Errors = p.histogram("ErrorsDurationHistogram", raw.ErrorsDurationHistogram).Count
	}
	if p.err != nil {
		return nil, p.err
	}
	return d, nil
}

// decodeObject checks the size and shape of data and decodes it into v.
func decodeObject(data []byte, v any) error {
	if err := checkObject(data); err != nil {
		return err
	}
	if err := json.Unmarshal(data, v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return fieldErr(te.Field, "wrong type: "+te.Value)
		}
		return fieldErr("", "not a JSON object")
	}
	return nil
}

// isAbsent reports whether a key was missing or null.
func isAbsent(raw json.RawMessage) bool {
	return len(raw) == 0 || string(raw) == "null"
}

// countErrors counts the calls whose return code is not a success.
func countErrors(codes map[string]int64) int64 {
	var n int64
	for code, c := range codes {
		if !isSuccessCode(code) {
			if c > math.MaxInt64-n {
				return math.MaxInt64
			}
			n += c
		}
	}
	return n
}

// isSuccessCode reports whether a RetCodes key means success: a 2xx or 3xx
// HTTP status, gRPC health's "SERVING" or TCP/UDP's "OK".
func isSuccessCode(code string) bool {
	switch code {
	case "SERVING", "OK":
		return true
	}
	n, err := strconv.Atoi(code)
	return err == nil && n >= 200 && n < 400
}

// fieldParser converts raw values, keeping the first error.
type fieldParser struct {
	err error
}

// fail records the first error.
func (p *fieldParser) fail(field, msg string) {
	if p.err == nil {
		p.err = fieldErr(field, msg)
	}
}

// scalar returns the text of a number or string; ok is false for other types.
func (p *fieldParser) scalar(field string, raw json.RawMessage) (s string, quoted, ok bool) {
	if isAbsent(raw) {
		return "", false, true
	}
	if raw[0] == '"' {
		if err := json.Unmarshal(raw, &s); err != nil {
			p.fail(field, "bad string")
			return "", true, false
		}
		return s, true, true
	}
	if raw[0] == '-' || (raw[0] >= '0' && raw[0] <= '9') {
		return string(raw), false, true
	}
	p.fail(field, "want a string or a number, got "+string(raw[:min(len(raw), 20)]))
	return "", false, false
}

// text reads a string (a number is taken as its text).
func (p *fieldParser) text(field string, raw json.RawMessage) string {
	s, _, _ := p.scalar(field, raw)
	return s
}

// float reads a finite, non-negative number, given as a number or a string.
func (p *fieldParser) float(field string, raw json.RawMessage) float64 {
	s, _, ok := p.scalar(field, raw)
	if !ok || s == "" {
		return 0
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	switch {
	case err != nil || math.IsNaN(f) || math.IsInf(f, 0):
		p.fail(field, "not a finite number: "+truncate(s))
		return 0
	case f < 0:
		p.fail(field, "negative")
		return 0
	}
	return f
}

// int reads a non-negative integer, given as a number or a string; an
// integral float ("1e3", "100.0") is accepted.
func (p *fieldParser) int(field string, raw json.RawMessage) int64 {
	s, _, ok := p.scalar(field, raw)
	if !ok || s == "" {
		return 0
	}
	s = strings.TrimSpace(s)
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		f, ferr := strconv.ParseFloat(s, 64)
		if ferr != nil || f != math.Trunc(f) || math.Abs(f) >= math.MaxInt64 {
			p.fail(field, "not an integer: "+truncate(s))
			return 0
		}
		n = int64(f)
	}
	if n < 0 {
		p.fail(field, "negative")
		return 0
	}
	return n
}

// qps reads RequestedQPS: a number, its text, or "max" (0).
func (p *fieldParser) qps(field string, raw json.RawMessage) float64 {
	if s, quoted, ok := p.scalar(field, raw); ok && quoted && strings.EqualFold(strings.TrimSpace(s), "max") {
		return 0
	}
	return p.float(field, raw)
}

// time reads an RFC 3339 time; absent or empty is the zero time.
func (p *fieldParser) time(field string, raw json.RawMessage) time.Time {
	s, _, ok := p.scalar(field, raw)
	if !ok || s == "" {
		return time.Time{}
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		p.fail(field, "not an RFC 3339 time: "+truncate(s))
		return time.Time{}
	}
	return t
}

// retCodes reads the map of return codes to counts.
func (p *fieldParser) retCodes(field string, raw json.RawMessage) map[string]int64 {
	if isAbsent(raw) {
		return nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		p.fail(field, "want an object of counts")
		return nil
	}
	if len(m) > maxListed {
		p.fail(field, "more than "+strconv.Itoa(maxListed)+" codes")
		return nil
	}
	codes := make(map[string]int64, len(m))
	for code, v := range m {
		codes[code] = p.int(field+"."+code, v)
	}
	return codes
}

// truncate shortens s for an error message.
func truncate(s string) string {
	const n = 40
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

// latencyUS converts a latency in seconds to microseconds, rejecting
// values too large to represent.
func (p *fieldParser) latencyUS(field string, raw json.RawMessage) float64 {
	us := p.float(field, raw) * 1e6
	if math.IsInf(us, 0) {
		p.fail(field, "too large")
		return 0
	}
	return us
}

// histogram reads and checks a Fortio histogram in seconds.
func (p *fieldParser) histogram(field string, raw json.RawMessage) Latency {
	var h rawHistogram
	if err := json.Unmarshal(raw, &h); err != nil {
		p.fail(field, "want a histogram object")
		return Latency{}
	}
	l := Latency{
		Count:    p.int(field+".Count", h.Count),
		MinUS:    p.latencyUS(field+".Min", h.Min),
		MaxUS:    p.latencyUS(field+".Max", h.Max),
		SumUS:    p.latencyUS(field+".Sum", h.Sum),
		AvgUS:    p.latencyUS(field+".Avg", h.Avg),
		StdDevUS: p.latencyUS(field+".StdDev", h.StdDev),
	}
	if l.MinUS > l.MaxUS {
		p.fail(field+".Min", "greater than Max")
	}
	l.Buckets = p.buckets(field+".Data", &h, l.Count)
	l.Percentiles = p.percentiles(field+".Percentiles", &h)
	return l
}

// buckets reads a histogram's Data and checks that it adds up to count.
func (p *fieldParser) buckets(field string, h *rawHistogram, count int64) []Bucket {
	if len(h.Data) > maxListed {
		p.fail(field, "more than "+strconv.Itoa(maxListed)+" buckets")
		return nil
	}
	buckets := make([]Bucket, 0, len(h.Data))
	var sum int64
	for i, d := range h.Data {
		at := field + "[" + strconv.Itoa(i) + "]"
		b := Bucket{
			StartUS: p.latencyUS(at+".Start", d.Start),
			EndUS:   p.latencyUS(at+".End", d.End),
			Count:   p.int(at+".Count", d.Count),
		}
		p.float(at+".Percent", d.Percent)
		if b.StartUS > b.EndUS {
			p.fail(at+".Start", "greater than End")
		}
		if b.Count > count-sum {
			p.fail(field, "bucket counts exceed Count")
			return nil
		}
		sum += b.Count
		buckets = append(buckets, b)
	}
	if sum != count {
		p.fail(field, "bucket counts sum to "+strconv.FormatInt(sum, 10)+", not Count "+strconv.FormatInt(count, 10))
	}
	return buckets
}

// percentiles reads a histogram's Percentiles, sorted by P.
func (p *fieldParser) percentiles(field string, h *rawHistogram) []Percentile {
	if len(h.Percentiles) > maxListed {
		p.fail(field, "more than "+strconv.Itoa(maxListed)+" percentiles")
		return nil
	}
	if len(h.Percentiles) == 0 {
		return nil
	}
	out := make([]Percentile, 0, len(h.Percentiles))
	for i, r := range h.Percentiles {
		at := field + "[" + strconv.Itoa(i) + "]"
		pc := Percentile{P: p.float(at+".Percentile", r.Percentile), US: p.latencyUS(at+".Value", r.Value)}
		if pc.P > 100 {
			p.fail(at+".Percentile", "outside [0, 100]")
		}
		out = append(out, pc)
	}
	slices.SortStableFunc(out, func(a, b Percentile) int { return compareFloat(a.P, b.P) })
	return out
}

// compareFloat orders two floats.
func compareFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Percentile returns the latency in microseconds at percentile p (0..100):
// the listed value when p is listed (within 1e-9), else a linear
// interpolation inside the bucket holding that rank, clamped to
// [MinUS, MaxUS]. It is 0 when Count is 0.
func (l Latency) Percentile(p float64) float64 {
	if l.Count <= 0 || math.IsNaN(p) {
		return 0
	}
	for _, listed := range l.Percentiles {
		if math.Abs(listed.P-p) <= 1e-9 {
			return listed.US
		}
	}
	rank := min(max(p, 0), 100) / 100 * float64(l.Count)
	v := l.MaxUS
	var cum float64
	for _, b := range l.Buckets {
		c := float64(b.Count)
		if c <= 0 {
			continue
		}
		if cum+c >= rank {
			frac := max(rank-cum, 0) / c
			v = b.StartUS + frac*(b.EndUS-b.StartUS)
			break
		}
		cum += c
	}
	if p <= 0 {
		v = l.MinUS
	}
	if l.MinUS <= l.MaxUS {
		v = min(max(v, l.MinUS), l.MaxUS)
	}
	return v
}

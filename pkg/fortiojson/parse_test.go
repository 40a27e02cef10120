package fortiojson

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// mustReadFile returns a testdata file.
func mustReadFile(tb testing.TB, name string) []byte {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// mustParseFile parses a testdata document.
func mustParseFile(tb testing.TB, name string) *Document {
	tb.Helper()
	d, err := Parse(mustReadFile(tb, name))
	if err != nil {
		tb.Fatalf("Parse(%s): %v", name, err)
	}
	return d
}

// near reports whether a and b agree to 1e-6 relative.
func near(a, b float64) bool {
	return math.Abs(a-b) <= 1e-6*math.Max(1, math.Abs(b))
}

func TestParseFortioHTTP(t *testing.T) {
	t.Parallel()
	d := mustParseFile(t, "http_credentials.json")
	want := Document{
		RunType: "HTTP", Labels: "my test", Version: "1.68.2", ID: "2026-11-24-020847_my_test",
		Target:            "http://127.0.0.1:18099/echo?delay=1ms&token=REDACTED",
		RequestedQPS:      50,
		RequestedDuration: "exactly 20 calls",
		ActualDuration:    402212475,
		NumThreads:        4,
	}
	if d.RunType != want.RunType || d.Labels != want.Labels || d.Version != want.Version || d.ID != want.ID ||
		d.Target != want.Target || d.RequestedQPS != want.RequestedQPS || d.RequestedDuration != want.RequestedDuration ||
		d.ActualDuration != want.ActualDuration || d.NumThreads != want.NumThreads {
		t.Fatalf("document = %+v", d)
	}
	if !d.StartTime.Equal(time.Date(2026, 11, 24, 2, 8, 47, 431424176, time.UTC)) || !near(d.ActualQPS, 49.72496191223308) {
		t.Errorf("StartTime %v, ActualQPS %v", d.StartTime, d.ActualQPS)
	}
	l := d.Latency
	if l.Count != 20 || !near(l.MinUS, 1270.357) || !near(l.MaxUS, 3045.353) || !near(l.SumUS, 32300.269) ||
		!near(l.AvgUS, 1615.01345) || !near(l.StdDevUS, 508.4731775196679) {
		t.Errorf("latency = %+v", l)
	}
	if len(l.Buckets) != 3 || l.Buckets[0].Count != 16 || !near(l.Buckets[1].StartUS, 2000) || !near(l.Buckets[2].EndUS, 3045.353) {
		t.Errorf("buckets = %+v", l.Buckets)
	}
	if len(l.Percentiles) != 5 || l.Percentiles[4].P != 99.9 || !near(l.Percentile(50), 1708.1428) || !near(l.Percentile(99), 3036.2824) {
		t.Errorf("percentiles = %+v", l.Percentiles)
	}
	if d.Errors != 0 || len(d.RetCodes) != 1 || d.RetCodes["200"] != 20 {
		t.Errorf("errors %d, codes %v", d.Errors, d.RetCodes)
	}
}

func TestParseSamples(t *testing.T) {
	t.Parallel()
	tests := []struct {
		file, runType, target string
		qps                   float64
		count, errors         int64
		sent, received        int64
	}{
		{"http_errors_max.json", "HTTP", "http://127.0.0.1:18099/echo?status=503:25&delay=1ms", 0, 40, 12, 0, 0},
		{"http_duration.json", "HTTP", "http://127.0.0.1:18099/echo", 20, 6, 0, 0, 0},
		{"tcp.json", "TCP", "tcp://127.0.0.1:18792", 50, 10, 0, 240, 240},
		{"grpc_ping.json", "GRPC Ping", "127.0.0.1:18793", 50, 10, 0, 0, 0},
		{"nighthawk.json", "", "http://REDACTED:REDACTED@example.com:8080/path?api_key=REDACTED&x=1", 100, 200, 10, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			t.Parallel()
			d := mustParseFile(t, tt.file)
			if d.RunType != tt.runType || d.Target != tt.target || d.RequestedQPS != tt.qps || d.Latency.Count != tt.count ||
				d.Errors != tt.errors || d.BytesSent != tt.sent || d.BytesReceived != tt.received {
				t.Fatalf("document = %+v", d)
			}
		})
	}
}

func TestParseNighthawkStrings(t *testing.T) {
	t.Parallel()
	d := mustParseFile(t, "nighthawk.json")
	if d.ActualDuration != 2010*time.Millisecond || d.RetCodes["200"] != 190 || d.Latency.Buckets[1].Count != 100 {
		t.Fatalf("document = %+v", d)
	}
	// Percentiles are sorted; listed ones are returned as is, others interpolated in buckets.
	l := d.Latency
	if l.Percentiles[0].P != 50 || l.Percentile(99) != 1990 {
		t.Errorf("percentiles = %+v", l.Percentiles)
	}
	tests := []struct{ p, want float64 }{
		{0, 500}, {25, 750}, {50, 1000}, {75, 1500}, {90, 1800}, {100, 2000}, {150, 2000}, {-5, 500},
	}
	for _, tt := range tests {
		if got := l.Percentile(tt.p); !near(got, tt.want) {
			t.Errorf("Percentile(%v) = %v, want %v", tt.p, got, tt.want)
		}
	}
	if got := (Latency{}).Percentile(50); got != 0 {
		t.Errorf("empty Percentile = %v", got)
	}
}

// minimal is a valid document that the bad cases below break one at a time.
const minimal = `{"DurationHistogram": {"Count": 2, "Min": 0.001, "Max": 0.002,
 "Data": [{"Start": 0.001, "End": 0.002, "Percent": 100, "Count": 2}]}, "RetCodes": {"200": 1, "-1": 1, "301": 5, "OK": 1}}`

func TestParseMinimal(t *testing.T) {
	t.Parallel()
	d, err := Parse([]byte(minimal))
	if err != nil {
		t.Fatal(err)
	}
	if d.Errors != 1 || d.Latency.Count != 2 || d.Latency.Percentiles != nil {
		t.Fatalf("document = %+v", d)
	}
	d, err = Parse([]byte(`{"RequestedQPS": "max", "ErrorsDurationHistogram": {"Count": "3", "Data": [{"Start": 1, "End": 1, "Count": 3}]},
		"DurationHistogram": {"Count": 0, "Data": null}, "RetCodes": {"500": 9}, "Unknown": [1, {"x": null}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if d.Errors != 3 || d.RequestedQPS != 0 || d.Latency.Percentile(50) != 0 {
		t.Fatalf("document = %+v", d)
	}
}

func TestParseErrors(t *testing.T) {
	t.Parallel()
	hist := func(body string) string { return `{"DurationHistogram": {` + body + `}}` }
	tests := []struct {
		name, in, field string
	}{
		{"array", `[1]`, ""},
		{"null", `null`, ""},
		{"trailing", minimal + ` {}`, ""},
		{"truncated", `{"DurationHistogram": {`, ""},
		{"too big", `{"Labels": "` + strings.Repeat("x", MaxDocumentBytes) + `"}`, ""},
		{"no histogram", `{"RunType": "HTTP"}`, "DurationHistogram"},
		{"null histogram", `{"DurationHistogram": null}`, "DurationHistogram"},
		{"histogram not object", `{"DurationHistogram": 5}`, "DurationHistogram"},
		{"negative count", hist(`"Count": -1`), "DurationHistogram.Count"},
		{"fractional count", hist(`"Count": 1.5`), "DurationHistogram.Count"},
		{"bool count", hist(`"Count": true`), "DurationHistogram.Count"},
		{"negative min", hist(`"Min": -0.1`), "DurationHistogram.Min"},
		{"nan", hist(`"Max": "NaN"`), "DurationHistogram.Max"},
		{"inf", hist(`"Avg": "+Inf"`), "DurationHistogram.Avg"},
		{"huge", hist(`"Sum": 1e306`), "DurationHistogram.Sum"},
		{"overflow", hist(`"StdDev": 1e400`), "DurationHistogram.StdDev"},
		{"min over max", hist(`"Min": 2, "Max": 1`), "DurationHistogram.Min"},
		{"sum mismatch", hist(`"Count": 3, "Data": [{"Start": 0, "End": 1, "Count": 2}]`), "DurationHistogram.Data"},
		{"sum over", hist(`"Count": 1, "Data": [{"Start": 0, "End": 1, "Count": 9223372036854775807}]`), "DurationHistogram.Data"},
		{"missing data", hist(`"Count": 3`), "DurationHistogram.Data"},
		{"start over end", hist(`"Count": 1, "Data": [{"Start": 2, "End": 1, "Count": 1}]`), "DurationHistogram.Data[0].Start"},
		{"bad bucket", hist(`"Count": 1, "Data": [{"Start": "x", "End": 1, "Count": 1}]`), "DurationHistogram.Data[0].Start"},
		{"percentile over 100", hist(`"Percentiles": [{"Percentile": 50, "Value": 1}, {"Percentile": 100.5, "Value": 1}]`), "DurationHistogram.Percentiles[1].Percentile"},
		{"percentile negative", hist(`"Percentiles": [{"Percentile": -1, "Value": 1}]`), "DurationHistogram.Percentiles[0].Percentile"},
		{"too many buckets", hist(`"Data": [` + strings.Repeat(`{},`, maxListed) + `{}]`), "DurationHistogram.Data"},
		{"too many percentiles", hist(`"Percentiles": [` + strings.Repeat(`{},`, maxListed) + `{}]`), "DurationHistogram.Percentiles"},
		{"errors histogram", `{"DurationHistogram": {}, "ErrorsDurationHistogram": {"Count": -2}}`, "ErrorsDurationHistogram.Count"},
		{"negative code", `{"DurationHistogram": {}, "RetCodes": {"200": -1}}`, "RetCodes.200"},
		{"codes not object", `{"DurationHistogram": {}, "RetCodes": [1]}`, "RetCodes"},
		{"bad time", `{"DurationHistogram": {}, "StartTime": "yesterday"}`, "StartTime"},
		{"bad qps", `{"DurationHistogram": {}, "RequestedQPS": "fast"}`, "RequestedQPS"},
		{"negative duration", `{"DurationHistogram": {}, "ActualDuration": "-5"}`, "ActualDuration"},
		{"object label", `{"DurationHistogram": {}, "Labels": {}}`, "Labels"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d, err := Parse([]byte(tt.in))
			var fe *FieldError
			if !errors.As(err, &fe) {
				t.Fatalf("Parse = %+v, %v; want a *FieldError", d, err)
			}
			if fe.Field != tt.field {
				t.Fatalf("error %q names field %q, want %q", err, fe.Field, tt.field)
			}
		})
	}
}

func TestParseTooManyCodes(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString(`{"DurationHistogram": {}, "RetCodes": {`)
	for i := range maxListed + 1 {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`"` + strings.Repeat("x", i%7) + strconv.Itoa(i) + `": 1`)
	}
	b.WriteString("}}")
	_, err := Parse([]byte(b.String()))
	var fe *FieldError
	if !errors.As(err, &fe) || fe.Field != "RetCodes" {
		t.Fatalf("Parse error = %v, want RetCodes", err)
	}
}

func TestFieldErrorText(t *testing.T) {
	t.Parallel()
	if got := (&FieldError{Field: "DurationHistogram.Count", Msg: "negative"}).Error(); got != "DurationHistogram.Count: negative" {
		t.Errorf("Error() = %q", got)
	}
	if got := (&FieldError{Msg: "not a JSON object"}).Error(); got != "not a JSON object" {
		t.Errorf("Error() = %q", got)
	}
}

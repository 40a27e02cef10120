package fortiojson

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/barrage-dev/barrage/pkg/spec"
)

// addTestdata seeds f with the testdata files matching pattern.
func addTestdata(f *testing.F, pattern string) {
	f.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", pattern))
	if err != nil {
		f.Fatal(err)
	}
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
}

// jsonSeeds are small documents that reach the corners of Parse and Redact.
func jsonSeeds(f *testing.F) {
	f.Helper()
	addTestdata(f, "*.json")
	for _, s := range []string{
		minimal,
		`{"DurationHistogram": {"Count": "1", "Min": "0.5", "Max": "1", "Data": [{"Start": "0.5", "End": 1, "Count": "1"}],
		  "Percentiles": [{"Percentile": "99.9", "Value": 1}]}, "RequestedQPS": "max", "usercredentials": "u:p"}`,
		`{"UserCredentials": "a", "UserCredentials": "", "URL": "http://u:p@h/?key=1", "Headers": {"Cookie": ["c"]}}`,
		`{"x": [{"ExtraHeaders": {"Authorization": "b"}}], "Headers": ["Authorization: b"]}`,
		`{"DurationHistogram": {"Count": 1e2, "Min": -0}}`, `[]`, `null`, `{`, `{} {}`,
	} {
		f.Add([]byte(s))
	}
}

// FuzzParse checks that Parse never panics, returns only *FieldError and
// that what it accepts holds together: finite non-negative figures, buckets
// adding up to Count, sorted percentiles and a Percentile function that
// stays within [MinUS, MaxUS] for unlisted percentiles.
func FuzzParse(f *testing.F) {
	jsonSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := Parse(data)
		if err != nil {
			var fe *FieldError
			if !errors.As(err, &fe) {
				t.Fatalf("error %v is not a *FieldError", err)
			}
			return
		}
		l := d.Latency
		var sum int64
		for _, b := range l.Buckets {
			if b.Count < 0 || b.StartUS > b.EndUS || b.StartUS < 0 {
				t.Fatalf("bad bucket %+v", b)
			}
			sum += b.Count
		}
		if sum != l.Count || l.MinUS > l.MaxUS || d.Errors < 0 {
			t.Fatalf("inconsistent document %+v", d)
		}
		for i, p := range l.Percentiles {
			if p.P < 0 || p.P > 100 || math.IsNaN(p.US) || (i > 0 && p.P < l.Percentiles[i-1].P) {
				t.Fatalf("bad percentiles %+v", l.Percentiles)
			}
		}
		for _, p := range []float64{0, 12.5, 50, 99.99, 100} {
			v := l.Percentile(p)
			if math.IsNaN(v) || (l.Count > 0 && !listed(l, p) && (v < l.MinUS || v > l.MaxUS)) {
				t.Fatalf("Percentile(%v) = %v outside [%v, %v]", p, v, l.MinUS, l.MaxUS)
			}
		}
		if spec.RedactURL(d.Target) != d.Target {
			t.Fatalf("Target %q is not redacted", d.Target)
		}
	})
}

// listed reports whether p is one of l's listed percentiles.
func listed(l Latency, p float64) bool {
	for _, lp := range l.Percentiles {
		if math.Abs(lp.P-p) <= 1e-9 {
			return true
		}
	}
	return false
}

// FuzzRedact checks that Redact never panics, that its output is JSON,
// idempotent, keeps the top-level keys in order, and holds no user
// credentials.
func FuzzRedact(f *testing.F) {
	jsonSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		out, err := Redact(data)
		if err != nil {
			return
		}
		if !json.Valid(out) {
			t.Fatalf("output %q is not JSON", out)
		}
		if !reflect.DeepEqual(keysOf(t, data), keysOf(t, out)) {
			t.Fatalf("keys changed: %q -> %q", data, out)
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(out, &m); err != nil {
			t.Fatalf("output does not decode: %v", err)
		}
		for k, v := range m {
			if strings.EqualFold(k, "UserCredentials") {
				switch string(v) {
				case "null", `""`, redactedJSON:
				default:
					t.Fatalf("UserCredentials %s survived in %q", v, out)
				}
			}
		}
		again, err := Redact(out)
		if err != nil || !bytes.Equal(again, out) {
			t.Fatalf("second Redact = %q, %v; first %q", again, err, out)
		}
	})
}

// keysOf lists the top-level keys of a JSON object in order.
func keysOf(tb testing.TB, data []byte) []string {
	tb.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	if _, err := dec.Token(); err != nil {
		tb.Fatal(err)
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			tb.Fatal(err)
		}
		k, _ := tok.(string)
		keys = append(keys, k)
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			tb.Fatal(err)
		}
	}
	return keys
}

// FuzzParseIndex checks that ParseIndex never panics and that what it
// accepts survives WriteIndex and ParseIndex unchanged.
func FuzzParseIndex(f *testing.F) {
	addTestdata(f, "*.tsv")
	f.Add([]byte(IndexHeader + "\nhttp://h/a b\t+7\nhttps://[::1]:8/x?y=z#f\t0\tAAAAAAAAAAAAAAAAAAAAAA==\n\n"))
	f.Add([]byte("\uFEFF" + IndexHeader + "\r\nHTTP://h/\r\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		const maxEntries = 100
		entries, err := ParseIndex(data, maxEntries)
		if err != nil {
			return
		}
		if len(entries) > maxEntries {
			t.Fatalf("%d entries", len(entries))
		}
		var b bytes.Buffer
		if err := WriteIndex(&b, entries); err != nil {
			t.Fatalf("WriteIndex of parsed entries: %v", err)
		}
		again, err := ParseIndex(b.Bytes(), maxEntries)
		if err != nil {
			t.Fatalf("ParseIndex of %q: %v", b.Bytes(), err)
		}
		if !reflect.DeepEqual(again, entries) {
			t.Fatalf("round trip %+v -> %+v", entries, again)
		}
	})
}

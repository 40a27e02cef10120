package echofault

import (
	"errors"
	"math/rand/v2"
	"net/url"
	"testing"
	"time"
)

func TestParseDelay(t *testing.T) {
	t.Parallel()
	const limit = 1500 * time.Millisecond
	tests := []struct {
		name     string
		in       string
		values   []time.Duration
		percents []float64
		err      error
	}{
		{"single", "150ms", []time.Duration{150 * time.Millisecond}, []float64{100}, nil},
		{"zero", "0s", []time.Duration{0}, []float64{100}, nil},
		{"clamped", "10s", []time.Duration{limit}, []float64{100}, nil},
		{"list", "10ms:50,1s:0.5", []time.Duration{10 * time.Millisecond, time.Second}, []float64{50, 0.5}, nil},
		{"percent sign", "5ms:25%", []time.Duration{5 * time.Millisecond}, []float64{25}, nil},
		{"list clamped", "1h:10", []time.Duration{limit}, []float64{10}, nil},
		{"exactly 100", "1ms:60,2ms:40", []time.Duration{time.Millisecond, 2 * time.Millisecond}, []float64{60, 40}, nil},
		{"over 100", "1ms:60,2ms:41", nil, nil, ErrOverHundred},
		{"no unit", "150", nil, nil, ErrSyntax},
		{"negative", "-5ms", nil, nil, ErrSyntax},
		{"missing percent", "1ms,2ms", nil, nil, ErrSyntax},
		{"bad percent", "1ms:abc", nil, nil, ErrSyntax},
		{"percent over 100", "1ms:101", nil, nil, ErrSyntax},
		{"empty", "", nil, nil, ErrSyntax},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d, err := ParseDelay(tt.in, limit)
			if !errors.Is(err, tt.err) {
				t.Fatalf("ParseDelay(%q) error = %v, want %v", tt.in, err, tt.err)
			}
			values, percents := d.Chances()
			assertChances(t, values, percents, tt.values, tt.percents)
		})
	}
}

func TestParseStatus(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		in       string
		values   []int
		percents []float64
		err      error
	}{
		{"single", "503", []int{503}, []float64{100}, nil},
		{"list", "503:20,429:5.5", []int{503, 429}, []float64{20, 5.5}, nil},
		{"lowest", "200", []int{200}, []float64{100}, nil},
		{"interim 1xx refused", "103", nil, nil, ErrSyntax},
		{"highest", "599", []int{599}, []float64{100}, nil},
		{"too low", "199", nil, nil, ErrSyntax},
		{"too high", "600", nil, nil, ErrSyntax},
		{"word", "teapot", nil, nil, ErrSyntax},
		{"over 100", "503:50,500:50.1", nil, nil, ErrOverHundred},
		{"trailing comma", "503:20,", nil, nil, ErrSyntax},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d, err := ParseStatus(tt.in)
			if !errors.Is(err, tt.err) {
				t.Fatalf("ParseStatus(%q) error = %v, want %v", tt.in, err, tt.err)
			}
			values, percents := d.Chances()
			assertChances(t, values, percents, tt.values, tt.percents)
		})
	}
}

func TestParseSize(t *testing.T) {
	t.Parallel()
	const limit = 256 << 10
	tests := []struct {
		name     string
		in       string
		values   []int
		percents []float64
		err      error
	}{
		{"single", "1024", []int{1024}, []float64{100}, nil},
		{"empty body", "0", []int{0}, []float64{100}, nil},
		{"clamped", "100000000", []int{limit}, []float64{100}, nil},
		{"list", "0:10,65536:5", []int{0, 65536}, []float64{10, 5}, nil},
		{"negative", "-1", nil, nil, ErrSyntax},
		{"units", "1KiB", nil, nil, ErrSyntax},
		{"over 100", "1:100,2:1", nil, nil, ErrOverHundred},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d, err := ParseSize(tt.in, limit)
			if !errors.Is(err, tt.err) {
				t.Fatalf("ParseSize(%q) error = %v, want %v", tt.in, err, tt.err)
			}
			values, percents := d.Chances()
			assertChances(t, values, percents, tt.values, tt.percents)
		})
	}
}

func TestParseChance(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want float64
		err  error
	}{
		{"true", 100, nil}, {"false", 0, nil}, {"25", 25, nil}, {"2.5%", 2.5, nil},
		{"yes", 0, ErrSyntax}, {"150", 0, ErrSyntax}, {"-1", 0, ErrSyntax}, {"NaN", 0, ErrSyntax},
	}
	for _, tt := range tests {
		got, err := ParseChance(tt.in)
		if !errors.Is(err, tt.err) || got != tt.want {
			t.Errorf("ParseChance(%q) = %v, %v; want %v, %v", tt.in, got, err, tt.want, tt.err)
		}
	}
}

func TestParseHeader(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in, name, value string
		ok              bool
	}{
		{"X-Test:hello", "X-Test", "hello", true},
		{"X-Test: spaced value ", "X-Test", "spaced value", true},
		{"X-Empty:", "X-Empty", "", true},
		{"X-Url:http://a:b", "X-Url", "http://a:b", true},
		{"NoColon", "", "", false},
		{":value", "", "", false},
		{"Bad Name:v", "", "", false},
		{"X-Inject:a\r\nSet-Cookie: x", "", "", false},
	}
	for _, tt := range tests {
		name, value, err := ParseHeader(tt.in)
		if (err == nil) != tt.ok || name != tt.name || value != tt.value {
			t.Errorf("ParseHeader(%q) = %q, %q, %v; want %q, %q, ok=%v", tt.in, name, value, err, tt.name, tt.value, tt.ok)
		}
	}
}

func TestParseQuery(t *testing.T) {
	t.Parallel()
	lim := Limits{MaxDelay: time.Second, MaxPayload: 1000}
	tests := []struct {
		name    string
		query   string
		ignored []string
		errSub  error
	}{
		{"all good", "delay=5ms&status=503:10&size=10&close=true&gzip=50&header=A:b", nil, nil},
		{"bad delay ignored", "delay=abc", []string{"delay"}, nil},
		{"bad size ignored", "size=big", []string{"size"}, nil},
		{"bad close and gzip ignored", "close=maybe&gzip=often", []string{"close", "gzip"}, nil},
		{"bad header ignored", "header=nocolon&header=Ok:1", []string{"header"}, nil},
		{"bad status fails", "status=abc", nil, ErrSyntax},
		{"delay over 100 fails", "delay=1ms:70,2ms:70", nil, ErrOverHundred},
		{"size over 100 fails", "size=1:70,2:70", nil, ErrOverHundred},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			q, err := url.ParseQuery(tt.query)
			if err != nil {
				t.Fatal(err)
			}
			p, err := ParseQuery(q, lim)
			if !errors.Is(err, tt.errSub) {
				t.Fatalf("error = %v, want %v", err, tt.errSub)
			}
			if len(p.Ignored) != len(tt.ignored) {
				t.Fatalf("ignored = %v, want %v", p.Ignored, tt.ignored)
			}
			for i := range tt.ignored {
				if p.Ignored[i] != tt.ignored[i] {
					t.Fatalf("ignored = %v, want %v", p.Ignored, tt.ignored)
				}
			}
		})
	}
}

func TestDrawAlways(t *testing.T) {
	t.Parallel()
	q, _ := url.ParseQuery("delay=5ms&status=418&size=7&close=true&gzip=true")
	p, err := ParseQuery(q, Limits{MaxDelay: time.Second, MaxPayload: 100})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 100 {
		got := p.Draw(rng.Float64)
		want := Outcome{Delay: 5 * time.Millisecond, Status: 418, Size: 7, Close: true, Gzip: true}
		if got != want {
			t.Fatalf("Draw = %+v, want %+v", got, want)
		}
	}
	var none Params
	if got := none.Draw(rng.Float64); got != (Outcome{Status: 200, Size: -1}) {
		t.Fatalf("Draw of no params = %+v", got)
	}
}

// TestDrawShares checks the observed shares over 10,000 seeded draws.
func TestDrawShares(t *testing.T) {
	t.Parallel()
	const draws = 10_000
	tests := []struct {
		query string
		pick  func(Outcome) bool
		want  float64 // percent
	}{
		{"status=503:20", func(o Outcome) bool { return o.Status == 503 }, 20},
		{"status=503:20,429:30", func(o Outcome) bool { return o.Status == 429 }, 30},
		{"status=503:20,429:30", func(o Outcome) bool { return o.Status == 200 }, 50},
		{"delay=1ms:10", func(o Outcome) bool { return o.Delay == time.Millisecond }, 10},
		{"size=0:40", func(o Outcome) bool { return o.Size == 0 }, 40},
		{"close=25", func(o Outcome) bool { return o.Close }, 25},
		{"gzip=75%25", func(o Outcome) bool { return o.Gzip }, 75},
	}
	for i, tt := range tests {
		q, err := url.ParseQuery(tt.query)
		if err != nil {
			t.Fatal(err)
		}
		p, err := ParseQuery(q, Limits{MaxDelay: time.Second, MaxPayload: 100})
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(uint64(i), 42))
		hits := 0
		for range draws {
			if tt.pick(p.Draw(rng.Float64)) {
				hits++
			}
		}
		share := 100 * float64(hits) / draws
		if share < tt.want-2 || share > tt.want+2 {
			t.Errorf("%s: observed share %.2f%%, want %v ± 2%%", tt.query, share, tt.want)
		}
	}
}

func assertChances[T comparable](t *testing.T, values []T, percents []float64, wantValues []T, wantPercents []float64) {
	t.Helper()
	if len(values) != len(wantValues) {
		t.Fatalf("values = %v, want %v", values, wantValues)
	}
	for i := range values {
		if values[i] != wantValues[i] || !near(percents[i], wantPercents[i]) {
			t.Fatalf("chances = %v %v, want %v %v", values, percents, wantValues, wantPercents)
		}
	}
}

func near(a, b float64) bool {
	d := a - b
	return d < 1e-9 && d > -1e-9
}

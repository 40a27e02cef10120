package echofault

import (
	"errors"
	"net/url"
	"testing"
	"time"
)

// checkDist asserts the invariants every parsed distribution keeps.
func checkDist[T any](t *testing.T, d Dist[T], err error) {
	t.Helper()
	if err != nil {
		if !errors.Is(err, ErrSyntax) && !errors.Is(err, ErrOverHundred) {
			t.Fatalf("error %v is neither ErrSyntax nor ErrOverHundred", err)
		}
		if !d.Empty() {
			t.Fatalf("error %v with a non-empty distribution", err)
		}
		return
	}
	_, percents := d.Chances()
	total := 0.0
	for _, p := range percents {
		if p < 0 || p > 100 {
			t.Fatalf("chance %v out of range", p)
		}
		total += p
	}
	if total > 100+1e-9 {
		t.Fatalf("chances add up to %v", total)
	}
}

func FuzzParseDelay(f *testing.F) {
	for _, s := range []string{"150ms", "10ms:50,1s:0.5", "1ms:20%", "1h", "-1s", "1ms:60,2ms:41", ","} {
		f.Add(s)
	}
	const limit = 1500 * time.Millisecond
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseDelay(s, limit)
		checkDist(t, d, err)
		values, _ := d.Chances()
		for _, v := range values {
			if v < 0 || v > limit {
				t.Fatalf("delay %v outside [0, %v]", v, limit)
			}
		}
	})
}

func FuzzParseStatus(f *testing.F) {
	for _, s := range []string{"503", "503:20,429:5", "99", "600", "503:101", "a:b:c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseStatus(s)
		checkDist(t, d, err)
		values, _ := d.Chances()
		for _, v := range values {
			if v < MinStatus || v > MaxStatus {
				t.Fatalf("status %d out of range", v)
			}
		}
	})
}

func FuzzParseSize(f *testing.F) {
	for _, s := range []string{"1024", "0:10,65536:5", "-1", "99999999999999999999", "1:50%,2:50%"} {
		f.Add(s)
	}
	const limit = 256 << 10
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseSize(s, limit)
		checkDist(t, d, err)
		values, _ := d.Chances()
		for _, v := range values {
			if v < 0 || v > limit {
				t.Fatalf("size %d outside [0, %d]", v, limit)
			}
		}
	})
}

// FuzzParseQuery covers the whole query, including close, gzip and header.
func FuzzParseQuery(f *testing.F) {
	for _, s := range []string{
		"delay=5ms&status=503:10&size=10&close=true&gzip=50&header=A:b",
		"close=25%&gzip=maybe&header=:x&header=Bad Name:v",
		"status=500:60,501:50",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		q, err := url.ParseQuery(raw)
		if err != nil {
			return
		}
		p, err := ParseQuery(q, Limits{MaxDelay: time.Second, MaxPayload: 4096})
		if err != nil {
			return
		}
		if p.Close < 0 || p.Close > 100 || p.Gzip < 0 || p.Gzip > 100 {
			t.Fatalf("chances out of range: %+v", p)
		}
		for _, h := range p.Headers {
			if !validToken(h.Name) || !validValue(h.Value) {
				t.Fatalf("invalid header accepted: %q", h)
			}
		}
		o := p.Draw(func() float64 { return 0.999999 })
		if o.Size > 4096 || o.Delay > time.Second || o.Status < MinStatus || o.Status > MaxStatus {
			t.Fatalf("outcome out of bounds: %+v", o)
		}
	})
}

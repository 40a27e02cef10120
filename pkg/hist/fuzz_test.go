package hist

import (
	"bytes"
	"errors"
	"math"
	"testing"
	"time"
)

// FuzzDecode feeds arbitrary bytes to Decode: it must never panic, must
// reject with ErrCorrupt or ErrConfigMismatch, and whatever it accepts must
// survive an Encode/Decode round trip unchanged. (Memory is bounded by the
// input cap; TestDecodeHostileIsCheap measures it for known hostile shapes.)
func FuzzDecode(f *testing.F) {
	h := mustHist(f, time.Microsecond, 250*time.Microsecond, 3*time.Millisecond, time.Second, time.Hour)
	valid := mustEncode(f, h)
	f.Add(valid)
	f.Add(mustEncode(f, New()))
	f.Add(valid[:len(valid)/2])
	f.Add(truncate(f, valid, 1))
	f.Add([]byte{})
	f.Add(rawSnapshot{payload: zz(0, 2, -3, 3)}.encode(f))
	f.Add(rawSnapshot{payload: zz(-(countsLen), 1)}.encode(f))
	f.Fuzz(checkDecode)
}

// checkDecode decodes b and checks the fuzz properties.
func checkDecode(t *testing.T, b []byte) {
	got, err := Decode(b)
	if err != nil {
		if !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrConfigMismatch) {
			t.Fatalf("Decode error %v wraps neither sentinel", err)
		}
		if got != nil {
			t.Fatalf("Decode returned a histogram with an error")
		}
		return
	}
	enc := mustEncode(t, got)
	again, err := Decode(enc)
	if err != nil {
		t.Fatalf("re-decode: %v", err)
	}
	if !again.full().Equals(got.full()) || !bytes.Equal(mustEncode(t, again), enc) {
		t.Fatalf("round trip of an accepted snapshot changed it")
	}
	if lib := libraryDecode(t, b); !lib.Equals(got.full()) {
		t.Fatalf("Decode and hdrhistogram-go's decoder read different histograms")
	}
	_ = got.Fortio([]float64{0, 50, 99, 100})
}

// FuzzDecodeInflated fuzzes what lies inside the zlib stream (header and
// counts), which random bytes given to FuzzDecode almost never reach past
// the base64, zlib and checksum layers; the same properties hold.
func FuzzDecodeInflated(f *testing.F) {
	h := mustHist(f, time.Microsecond, 250*time.Microsecond, 3*time.Millisecond, time.Second, time.Hour)
	valid := unwrap(f, mustEncode(f, h))
	f.Add(valid)
	f.Add(unwrap(f, mustEncode(f, New())))
	f.Add(valid[:headerLen])
	f.Add(valid[:len(valid)-1])
	f.Add(unwrap(f, rawSnapshot{payload: zz(0, 2, -3, 3)}.encode(f)))
	f.Add(unwrap(f, rawSnapshot{payload: zz(-(countsLen - 1), math.MaxInt64)}.encode(f)))
	f.Fuzz(func(t *testing.T, inner []byte) {
		checkDecode(t, wrap(t, inner, 0, 0))
	})
}

package hist

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/HdrHistogram/hdrhistogram-go"
	"pgregory.net/rapid"
)

// libraryDecode decodes b with hdrhistogram-go's own decoder, which Decode
// no longer calls, failing t if that decoder refuses or panics.
func libraryDecode(t fataler, b []byte) (h *hdrhistogram.Histogram) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			t.Fatalf("hdrhistogram-go's decoder panicked on a snapshot Decode accepted: %v", r)
		}
	}()
	h, err := hdrhistogram.Decode(b)
	if err != nil {
		t.Fatalf("hdrhistogram-go's decoder refused a snapshot Decode accepted: %v", err)
	}
	return h
}

// A decoded histogram is its slots until it is recorded or merged into;
// every figure it reports must be the library's for the same snapshot.
func TestDecodeMatchesTheLibrary(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		src := New()
		for _, d := range rapid.SliceOfN(latencyGen(), 0, 500).Draw(t, "samples") {
			src.Record(d)
		}
		enc := mustEncode(t, src)
		sparse, err := Decode(enc)
		if err != nil {
			t.Fatalf("Decode: %v", err)
		}
		if sparse.h != nil {
			t.Fatalf("Decode made the full counts array")
		}
		lib := &Histogram{h: libraryDecode(t, enc)}
		if g, w := figuresOf(sparse), figuresOf(lib); !g.equal(w) {
			t.Fatalf("decoded %+v\nlibrary %+v", g, w)
		}
		if g, w := sparse.Bins(), lib.Bins(); !reflect.DeepEqual(g, w) {
			t.Fatalf("bins %v, library %v", g, w)
		}
		bounds := []int64{1, 10, 100, 1000, 10_000, 1_000_000, HighestMicros}
		if g, w := sparse.CountsAtOrBelow(bounds), lib.CountsAtOrBelow(bounds); !reflect.DeepEqual(g, w) {
			t.Fatalf("counts at or below %v, library %v", g, w)
		}
		ps := []float64{0, 50, 99, 100}
		if g, w := sparse.Fortio(ps), lib.Fortio(ps); !reflect.DeepEqual(g, w) {
			t.Fatalf("fortio view %+v\nlibrary     %+v", g, w)
		}
		if sparse.h != nil {
			t.Fatalf("reading figures made the full counts array")
		}

		// Merging the sparse form adds exactly what merging the library's does.
		into, want := New(), New()
		base := rapid.SliceOfN(latencyGen(), 0, 50).Draw(t, "base")
		for _, d := range base {
			into.Record(d)
			want.Record(d)
		}
		if err := into.Merge(sparse); err != nil {
			t.Fatalf("Merge: %v", err)
		}
		if err := want.Merge(lib); err != nil {
			t.Fatalf("Merge: %v", err)
		}
		if !bytes.Equal(mustEncode(t, into), mustEncode(t, want)) {
			t.Fatalf("merging the decoded form differs from merging the library's")
		}

		// A decoded histogram merged into itself doubles, as a full one does.
		if err := sparse.Merge(sparse); err != nil {
			t.Fatalf("self Merge: %v", err)
		}
		if err := lib.Merge(lib); err != nil {
			t.Fatalf("self Merge: %v", err)
		}
		if g, w := figuresOf(sparse), figuresOf(lib); !g.equal(w) {
			t.Fatalf("self-merged %+v\nlibrary     %+v", g, w)
		}

		// Recording into and resetting a decoded histogram.
		again, err := Decode(enc)
		if err != nil {
			t.Fatalf("Decode: %v", err)
		}
		again.RecordMicros(1234)
		src.RecordMicros(1234)
		if g, w := figuresOf(again), figuresOf(src); !g.equal(w) {
			t.Fatalf("recorded into decoded %+v\nwant %+v", g, w)
		}
		reset, err := Decode(enc)
		if err != nil {
			t.Fatalf("Decode: %v", err)
		}
		reset.Reset()
		if g, w := figuresOf(reset), figuresOf(New()); !g.equal(w) {
			t.Fatalf("reset decoded %+v, want empty %+v", g, w)
		}
	})
}

// BenchmarkMergeDecoded is the ingest's step: decode a snapshot of 1,000
// values and merge it into the second's histogram.
func BenchmarkMergeDecoded(b *testing.B) {
	src := New()
	for i := range 1000 {
		src.RecordMicros(int64(500 + i*i%20_000))
	}
	enc := mustEncode(b, src)
	into := New()
	b.ReportAllocs()
	for b.Loop() {
		h, err := Decode(enc)
		if err != nil {
			b.Fatal(err)
		}
		if err := into.Merge(h); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecodeSnapshot is the ingest's decode of one incoming snapshot
// histogram of 1,000 values.
func BenchmarkDecodeSnapshot(b *testing.B) {
	src := New()
	for i := range 1000 {
		src.RecordMicros(int64(500 + i*i%20_000))
	}
	enc := mustEncode(b, src)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Decode(enc); err != nil {
			b.Fatal(err)
		}
	}
}

// A snapshot with more non-empty slots than maxSparseBins decodes straight
// into the full counts array, which is then the smaller form.
func TestDecodeDenseIsFull(t *testing.T) {
	t.Parallel()
	src := New()
	for slot := range maxSparseBins + 100 {
		src.RecordMicros(slotValue(1 + slot))
	}
	enc := mustEncode(t, src)
	got, err := Decode(enc)
	if err != nil {
		t.Fatalf("Decode: %v", err)
	}
	if got.h == nil || got.bins != nil {
		t.Fatalf("%d non-empty slots decoded as bins", maxSparseBins+100)
	}
	if g, w := figuresOf(got), figuresOf(&Histogram{h: libraryDecode(t, enc)}); !g.equal(w) {
		t.Fatalf("decoded %+v\nlibrary %+v", g, w)
	}
	if got.Count() != int64(maxSparseBins+100) {
		t.Fatalf("count %d, want %d", got.Count(), maxSparseBins+100)
	}
}

// Encode writes what hdrhistogram-go's encoder writes, byte for byte, from
// a full histogram and from a decoded one.
func TestEncodeMatchesTheLibrary(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		h := New()
		for _, d := range rapid.SliceOfN(latencyGen(), 0, 500).Draw(t, "samples") {
			h.Record(d)
		}
		want, err := h.h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
		if err != nil {
			t.Fatalf("library Encode: %v", err)
		}
		got := mustEncode(t, h)
		if !bytes.Equal(got, want) {
			t.Fatalf("Encode wrote %d bytes, the library %d, and they differ", len(got), len(want))
		}
		dec, err := Decode(got)
		if err != nil {
			t.Fatalf("Decode: %v", err)
		}
		if again := mustEncode(t, dec); !bytes.Equal(again, want) {
			t.Fatalf("a decoded histogram encodes differently from the library")
		}
	})
}

// Decoded histograms merged into one another stay slots, and hold what the
// library's merge of the same snapshots holds.
func TestMergeDecodedIntoDecoded(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		k := rapid.IntRange(2, 6).Draw(t, "k")
		want := hdrhistogram.New(LowestMicros, HighestMicros, SignificantFigures)
		var merged *Histogram
		for range k {
			part := New()
			for _, d := range rapid.SliceOfN(latencyGen(), 0, 200).Draw(t, "samples") {
				part.Record(d)
			}
			enc := mustEncode(t, part)
			want.Merge(libraryDecode(t, enc))
			dec, err := Decode(enc)
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			if merged == nil {
				merged = dec
				continue
			}
			if err := merged.Merge(dec); err != nil {
				t.Fatalf("Merge: %v", err)
			}
		}
		if merged.h != nil {
			t.Fatalf("merging decoded histograms made the full counts array")
		}
		if g, w := figuresOf(merged), figuresOf(&Histogram{h: want}); !g.equal(w) {
			t.Fatalf("merged %+v\nlibrary %+v", g, w)
		}
		lib, err := want.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
		if err != nil {
			t.Fatalf("library Encode: %v", err)
		}
		if !bytes.Equal(mustEncode(t, merged), lib) {
			t.Fatalf("merged snapshot differs from the library's")
		}
	})
}

package hist

import (
	"bytes"
	"compress/zlib"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"hash/adler32"
	"io"
	"math"
	"runtime"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// fataler is the part of testing.TB that rapid.T also has.
type fataler interface {
	Helper()
	Fatalf(format string, args ...any)
}

// mustEncode encodes h or fails the test.
func mustEncode(tb fataler, h *Histogram) []byte {
	tb.Helper()
	b, err := h.Encode()
	if err != nil {
		tb.Fatalf("Encode: %v", err)
	}
	return b
}

// rawSnapshot describes a hand-made V2 compressed snapshot, for building
// hostile inputs. The zero value of a field means the valid default.
type rawSnapshot struct {
	outerCookie int32
	outerLen    int32 // 0: the real compressed length
	cookie      int32
	payloadLen  int32 // 0: the real payload length
	offset      int32
	sig         int32
	lowest      int64
	highest     int64
	ratio       float64
	payload     []byte
	trailing    []byte // appended to the zlib stream's contents after payload
	deflate     bool   // compress for real (for zip bombs) instead of storing
}

// encode builds the base64 snapshot.
func (r rawSnapshot) encode(tb testing.TB) []byte {
	tb.Helper()
	var inner []byte
	be := binary.BigEndian
	inner = be.AppendUint32(inner, uint32(or(r.cookie, payloadCookieBase|0x10)))
	inner = be.AppendUint32(inner, uint32(or(r.payloadLen, int32(len(r.payload)))))
	inner = be.AppendUint32(inner, uint32(r.offset))
	inner = be.AppendUint32(inner, uint32(or(r.sig, SignificantFigures)))
	inner = be.AppendUint64(inner, uint64(or(r.lowest, LowestMicros)))
	inner = be.AppendUint64(inner, uint64(or(r.highest, HighestMicros)))
	inner = be.AppendUint64(inner, math.Float64bits(or(r.ratio, 1)))
	inner = append(inner, r.payload...)
	inner = append(inner, r.trailing...)
	if r.deflate {
		return envelope(deflate(tb, inner), r.outerCookie, r.outerLen)
	}
	return wrap(tb, inner, r.outerCookie, r.outerLen)
}

// deflate compresses b with zlib.
func deflate(tb testing.TB, b []byte) []byte {
	tb.Helper()
	var z bytes.Buffer
	zw, err := zlib.NewWriterLevel(&z, zlib.BestSpeed)
	if err != nil {
		tb.Fatalf("zlib: %v", err)
	}
	if _, err := zw.Write(b); err != nil {
		tb.Fatalf("zlib: %v", err)
	}
	if err := zw.Close(); err != nil {
		tb.Fatalf("zlib: %v", err)
	}
	return z.Bytes()
}

// or returns v, or d if v is zero.
func or[T comparable](v, d T) T {
	var zero T
	if v == zero {
		return d
	}
	return v
}

// wrap puts inner (header and counts) in a zlib stream of stored
// (uncompressed) blocks, which is valid zlib and far cheaper to build than
// running a compressor, and adds the envelope; zero outerCookie and
// outerLen mean the valid values.
func wrap(tb testing.TB, inner []byte, outerCookie, outerLen int32) []byte {
	tb.Helper()
	const maxStored = 0xffff
	z := []byte{0x78, 0x01} // zlib header: deflate, 32 KiB window, no dictionary
	for rest := inner; ; {
		n := min(len(rest), maxStored)
		final := byte(0)
		if n == len(rest) {
			final = 1
		}
		z = append(z, final)
		z = binary.LittleEndian.AppendUint16(z, uint16(n))
		z = binary.LittleEndian.AppendUint16(z, ^uint16(n))
		z = append(z, rest[:n]...)
		if rest = rest[n:]; final == 1 {
			break
		}
	}
	z = binary.BigEndian.AppendUint32(z, adler32.Checksum(inner))
	return envelope(z, outerCookie, outerLen)
}

// envelope adds the outer cookie and length to a zlib stream and base64
// encodes the result; zero outerCookie and outerLen mean the valid values.
func envelope(z []byte, outerCookie, outerLen int32) []byte {
	be := binary.BigEndian
	outer := be.AppendUint32(nil, uint32(or(outerCookie, compressedCookieBase|0x10)))
	outer = be.AppendUint32(outer, uint32(or(outerLen, int32(len(z)))))
	outer = append(outer, z...)
	return []byte(base64.StdEncoding.EncodeToString(outer))
}

// unwrap returns the decompressed header and counts of a valid snapshot.
func unwrap(tb testing.TB, enc []byte) []byte {
	tb.Helper()
	raw, err := base64.StdEncoding.DecodeString(string(enc))
	if err != nil {
		tb.Fatal(err)
	}
	z, err := zlib.NewReader(bytes.NewReader(raw[envelopeLen:]))
	if err != nil {
		tb.Fatal(err)
	}
	inner, err := io.ReadAll(z)
	if err != nil {
		tb.Fatal(err)
	}
	return inner
}

// zz appends the ZigZag LEB128 (9-byte) encoding of each v.
func zz(vs ...int64) []byte {
	var out []byte
	for _, v := range vs {
		u := uint64(v<<1) ^ uint64(v>>63)
		for i := 0; ; i++ {
			if i == maxVarintLen-1 {
				out = append(out, byte(u))
				break
			}
			if u < 0x80 {
				out = append(out, byte(u))
				break
			}
			out = append(out, byte(u)|0x80)
			u >>= 7
		}
	}
	return out
}

func TestEncodeDecode(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		h    *Histogram
	}{
		{"empty", New()},
		{"one", mustHist(t, time.Millisecond)},
		{"range", mustHist(t, time.Microsecond, 3*time.Millisecond, 3*time.Millisecond, time.Minute, time.Hour)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := mustEncode(t, tt.h)
			got, err := Decode(b)
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			if !got.full().Equals(tt.h.h) {
				t.Errorf("decoded histogram differs")
			}
			if again := mustEncode(t, got); !bytes.Equal(again, b) {
				t.Errorf("re-encoding differs:\n%s\n%s", again, b)
			}
		})
	}
}

func TestEncodeWorstCaseFits(t *testing.T) {
	t.Parallel()
	// Every slot holds a count as large as the total allows, so every
	// varint is as long as it can be in a valid snapshot.
	h := New()
	for i := range countsLen {
		lo, _ := slotRange(i)
		if err := h.h.RecordValues(lo, math.MaxInt64/countsLen-int64(i)); err != nil {
			t.Fatal(err)
		}
	}
	b := mustEncode(t, h)
	if len(b) > MaxEncodedLen {
		t.Fatalf("worst-case snapshot is %d bytes, MaxEncodedLen %d", len(b), MaxEncodedLen)
	}
	got, err := Decode(b)
	if err != nil {
		t.Fatalf("Decode: %v", err)
	}
	if !got.full().Equals(h.h) {
		t.Errorf("decoded histogram differs")
	}
}

func TestDecodeHandMade(t *testing.T) {
	t.Parallel()
	// Counts 2 at 1 µs, 3 at 5 µs; written with offset 0 as Java does.
	got, err := Decode(rawSnapshot{payload: zz(0, 2, -3, 3)}.encode(t))
	if err != nil {
		t.Fatalf("Decode: %v", err)
	}
	if got.Count() != 5 || got.Min() != time.Microsecond || got.Max() != 5*time.Microsecond {
		t.Errorf("count %d min %v max %v; want 5, 1µs, 5µs", got.Count(), got.Min(), got.Max())
	}
}

func TestDecodeErrors(t *testing.T) {
	t.Parallel()
	valid := mustEncode(t, mustHist(t, time.Millisecond, time.Second))
	other := hdrhistogram.New(1, 1000, 2)
	_ = other.RecordValue(10)
	otherEnc, err := other.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	if err != nil {
		t.Fatal(err)
	}
	huge := hdrhistogram.New(1, math.MaxInt64, 5)
	_ = huge.RecordValue(math.MaxInt64 / 2)
	hugeEnc, err := huge.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	if err != nil {
		t.Fatal(err)
	}
	zeros := make([]byte, 8<<20)
	tests := []struct {
		name string
		in   []byte
		want error
	}{
		{"nil", nil, ErrCorrupt},
		{"empty", []byte{}, ErrCorrupt},
		{"not base64", []byte("!!!!"), ErrCorrupt},
		{"short envelope", []byte(base64.StdEncoding.EncodeToString([]byte{0x1c, 0x84})), ErrCorrupt},
		{"truncated base64", valid[:len(valid)-5], ErrCorrupt},
		{"truncated bytes", truncate(t, valid, 4), ErrCorrupt},
		{"too long", bytes.Repeat([]byte("A"), MaxEncodedLen+4), ErrCorrupt},
		{"other config", otherEnc, ErrConfigMismatch},
		{"huge config", hugeEnc, ErrConfigMismatch},
		{"lowest differs", rawSnapshot{lowest: 1000}.encode(t), ErrConfigMismatch},
		{"double histogram", rawSnapshot{ratio: 0.5}.encode(t), ErrConfigMismatch},
		{"outer cookie", rawSnapshot{outerCookie: 0x12345678}.encode(t), ErrCorrupt},
		{"negative outer length", rawSnapshot{outerLen: -1}.encode(t), ErrCorrupt},
		{"outer length too big", rawSnapshot{outerLen: math.MaxInt32}.encode(t), ErrCorrupt},
		{"inner cookie", rawSnapshot{cookie: 0x0badf00d}.encode(t), ErrCorrupt},
		{"shifted", rawSnapshot{offset: 7}.encode(t), ErrCorrupt},
		{"payload length huge", rawSnapshot{payloadLen: math.MaxInt32, payload: zz(1)}.encode(t), ErrCorrupt},
		{"payload length negative", rawSnapshot{payloadLen: -8, payload: zz(1)}.encode(t), ErrCorrupt},
		{"payload shorter than declared", rawSnapshot{payloadLen: 10, payload: zz(1)}.encode(t), ErrCorrupt},
		{"zip bomb", rawSnapshot{payloadLen: maxPayloadLen, trailing: zeros, deflate: true}.encode(t), ErrCorrupt},
		{"trailing payload", rawSnapshot{payload: zz(1), trailing: []byte{0}}.encode(t), ErrCorrupt},
		{"truncated varint", rawSnapshot{payload: []byte{0x80}}.encode(t), ErrCorrupt},
		{"slot beyond counts", rawSnapshot{payload: zz(-(countsLen), 1)}.encode(t), ErrCorrupt},
		{"run beyond counts", rawSnapshot{payload: zz(-(countsLen + 1))}.encode(t), ErrCorrupt},
		{"run of MinInt64", rawSnapshot{payload: zz(math.MinInt64)}.encode(t), ErrCorrupt},
		{"count overflow", rawSnapshot{payload: zz(math.MaxInt64, 1)}.encode(t), ErrCorrupt},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h, err := Decode(tt.in)
			if !errors.Is(err, tt.want) {
				t.Fatalf("Decode error %v, want %v", err, tt.want)
			}
			if h != nil {
				t.Errorf("Decode returned a histogram with an error")
			}
		})
	}
}

// truncate drops n bytes from the decoded snapshot and re-encodes it.
func truncate(tb testing.TB, enc []byte, n int) []byte {
	tb.Helper()
	raw, err := base64.StdEncoding.DecodeString(string(enc))
	if err != nil {
		tb.Fatal(err)
	}
	return []byte(base64.StdEncoding.EncodeToString(raw[:len(raw)-n]))
}

func TestDecodeHostileIsCheap(t *testing.T) {
	tests := []struct {
		name string
		in   []byte
	}{
		{"huge payload length", rawSnapshot{payloadLen: math.MaxInt32}.encode(t)},
		{"huge range", rawSnapshot{lowest: 1, highest: math.MaxInt64, sig: 5}.encode(t)},
		{"zip bomb", rawSnapshot{payloadLen: maxPayloadLen, trailing: make([]byte, 8<<20), deflate: true}.encode(t)},
		{"huge count", rawSnapshot{payload: zz(math.MaxInt64)}.encode(t)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if len(tt.in) > MaxEncodedLen {
				t.Fatalf("input of %d bytes would be rejected for its length alone", len(tt.in))
			}
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			_, _ = Decode(tt.in)
			runtime.ReadMemStats(&after)
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 4<<20 {
				t.Errorf("Decode allocated %d bytes, want under 4 MiB", alloc)
			}
		})
	}
}

func BenchmarkEncode(b *testing.B) {
	h := New()
	for i := range 100_000 {
		h.Record(time.Duration(i) * 37 * time.Microsecond)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := h.Encode(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecode(b *testing.B) {
	h := New()
	for i := range 100_000 {
		h.Record(time.Duration(i) * 37 * time.Microsecond)
	}
	enc := mustEncode(b, h)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Decode(enc); err != nil {
			b.Fatal(err)
		}
	}
}

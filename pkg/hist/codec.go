package hist

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"sync"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/klauspost/compress/zlib"
)

// ErrCorrupt reports a snapshot that is not a well-formed HdrHistogram V2
// compressed encoding.
var ErrCorrupt = errors.New("corrupt histogram snapshot")

// Wire format (HdrHistogram V2 compressed, as hdrhistogram-go writes it):
// base64( cookie int32 | len int32 | zlib( header | counts ) ), big-endian,
// where header is cookie, payload length, normalizing index offset and
// significant figures (int32 each), lowest and highest trackable value
// (int64 each) and the integer-to-double conversion ratio (float64), and
// counts is a run of ZigZag LEB128 varints (at most 9 bytes each): a
// positive value is the next slot's count, a negative one a run of empty
// slots.
const (
	compressedCookieBase = hdrhistogram.V2CompressedEncodingCookieBase
	payloadCookieBase    = hdrhistogram.V2EncodingCookieBase
	cookieFlagsMask      = 0xf0 // word-size flags, ignored like the library does
	envelopeLen          = 8
	headerLen            = hdrhistogram.ENCODING_HEADER_SIZE
	maxVarintLen         = 9
	// maxPayloadLen bounds the counts payload of any snapshot of the fixed
	// configuration: every slot present, each at the longest varint.
	maxPayloadLen = countsLen * maxVarintLen
	// maxCompressedLen allows for zlib's worst-case expansion of
	// incompressible data (5 bytes per 16 KiB stored block, plus framing).
	maxCompressedLen = headerLen + maxPayloadLen + 1024
)

// MaxEncodedLen is the length in bytes of the longest snapshot Decode
// accepts (about 280 KB); no snapshot of the fixed configuration is longer.
const MaxEncodedLen = (envelopeLen + maxCompressedLen + 2) / 3 * 4

// Encode returns a snapshot of h in the HdrHistogram V2 compressed encoding,
// base64 encoded (ASCII, as the HdrHistogram log format and the other
// HdrHistogram implementations use it). Decode reverses it.
//
// It writes what hdrhistogram-go's encoder writes, byte for byte
// (TestEncodeMatchesTheLibrary), from the non-empty slots alone (encode.go).
func (h *Histogram) Encode() ([]byte, error) {
	var b []byte
	var err error
	if h.h != nil {
		b, err = encodeCounts(func(w *bytes.Buffer) { appendArray(w, h.h.Export().Counts) })
	} else {
		b, err = encodeCounts(func(w *bytes.Buffer) { appendBins(w, h.bins) })
	}
	if err != nil {
		return nil, fmt.Errorf("encode histogram: %w", err)
	}
	return b, nil
}

// Decode parses a snapshot made by Encode (or by any HdrHistogram
// implementation's V2 compressed, base64 encoding). It fails with an error
// wrapping ErrCorrupt if b is not a well-formed snapshot and with one
// wrapping ErrConfigMismatch if the snapshot's configuration differs from
// the fixed one. It never panics, and its work and memory are bounded by
// MaxEncodedLen whatever b claims.
//
// It reads the snapshot once, into its non-empty slots (Histogram), and
// does not call hdrhistogram-go's decoder: that one would inflate the
// payload a second time and fill a full counts array for every snapshot.
// TestDecodeMatchesTheLibrary holds the two to the same histograms.
func Decode(b []byte) (*Histogram, error) {
	sc, _ := scratches.Get().(*scratch)
	if sc == nil {
		sc = &scratch{}
	}
	defer scratches.Put(sc)
	payload, err := sc.validate(b)
	sc.src.Reset(nil) // the pool keeps no hold on b
	if err != nil {
		return nil, fmt.Errorf("decode histogram: %w", err)
	}
	bins, total, err := readBins(payload, sc.bins[:0])
	sc.bins = bins[:0] // keep what it grew to
	if err != nil {
		return nil, fmt.Errorf("decode histogram: %w", err)
	}
	h := &Histogram{}
	if len(bins) > maxSparseBins { // the full array is the smaller form
		h.h = hdrhistogram.New(LowestMicros, HighestMicros, SignificantFigures)
		for _, x := range bins {
			// Cannot fail: readBins checked every slot.
			_ = h.h.RecordValues(slotValue(x.slot), x.count)
		}
	} else {
		h.bins, h.total = slices.Clone(bins), total
	}
	return h, nil
}

// maxSparseBins is the most non-empty slots a decoded histogram keeps as
// bins (24 bytes each): past it, the full counts array (8 bytes a slot) is
// smaller.
const maxSparseBins = countsLen / 3

// scratch is one Decode's working memory: the base64-decoded envelope,
// the inflated payload and the bins read from it, all copied out or
// dropped before Decode returns, so that the ingest's thousands of decodes
// a second reuse them rather than allocate them.
type scratch struct {
	raw, payload []byte
	bins         []bin
	z            io.ReadCloser // a zlib reader, about 40 KB of state
	src          bytes.Reader
}

// scratches keeps scratch for reuse.
var scratches sync.Pool //nolint:gochecknoglobals // a pool of buffers, shared by every Decode

// validate checks the envelope, the zlib stream and the header of a
// snapshot with bounded memory, and returns its counts payload for
// readBins, in sc's memory.
func (sc *scratch) validate(b []byte) ([]byte, error) {
	if len(b) == 0 {
		return nil, fmt.Errorf("empty input: %w", ErrCorrupt)
	}
	if len(b) > MaxEncodedLen {
		return nil, fmt.Errorf("%d bytes, more than %d: %w", len(b), MaxEncodedLen, ErrCorrupt)
	}
	sc.raw = grow(sc.raw, base64.StdEncoding.DecodedLen(len(b)))
	n64, err := base64.StdEncoding.Decode(sc.raw, b)
	raw := sc.raw[:n64]
	if err != nil {
		return nil, fmt.Errorf("base64: %w: %w", err, ErrCorrupt)
	}
	if len(raw) < envelopeLen {
		return nil, fmt.Errorf("%d bytes, shorter than the envelope: %w", len(raw), ErrCorrupt)
	}
	cookie := int32(binary.BigEndian.Uint32(raw[0:4]))
	if cookie&^cookieFlagsMask != compressedCookieBase {
		return nil, fmt.Errorf("cookie %#x is not V2 compressed: %w", cookie, ErrCorrupt)
	}
	n := int32(binary.BigEndian.Uint32(raw[4:8]))
	if int(n) != len(raw)-envelopeLen {
		return nil, fmt.Errorf("compressed length %d, have %d bytes: %w", n, len(raw)-envelopeLen, ErrCorrupt)
	}
	return sc.inflate(raw[envelopeLen:])
}

// grow returns b resliced to n bytes, reallocated only when too small.
func grow(b []byte, n int) []byte {
	if cap(b) < n {
		return make([]byte, n)
	}
	return b[:n]
}

// inflate decompresses the zlib stream, checks the header and returns the
// counts payload, reading no more than the header promises and at most
// maxPayloadLen bytes of it.
func (sc *scratch) inflate(compressed []byte) ([]byte, error) {
	sc.src.Reset(compressed)
	var err error
	if sc.z == nil {
		sc.z, err = zlib.NewReader(&sc.src)
	} else {
		err = sc.z.(zlib.Resetter).Reset(&sc.src, nil)
	}
	if err != nil {
		sc.z = nil // a reader whose reset failed is not reused
		return nil, fmt.Errorf("zlib: %w: %w", err, ErrCorrupt)
	}
	var hdr [headerLen]byte
	if _, err := io.ReadFull(sc.z, hdr[:]); err != nil {
		return nil, fmt.Errorf("read header: %w: %w", err, ErrCorrupt)
	}
	n, err := checkHeader(hdr[:])
	if err != nil {
		return nil, err
	}
	sc.payload = grow(sc.payload, n)
	if _, err := io.ReadFull(sc.z, sc.payload); err != nil {
		return nil, fmt.Errorf("read %d payload bytes: %w: %w", n, err, ErrCorrupt)
	}
	// The stream must end here; reading to its end also verifies the
	// zlib checksum.
	var extra [1]byte
	k, err := sc.z.Read(extra[:])
	switch {
	case k != 0:
		return nil, fmt.Errorf("payload longer than its declared %d bytes: %w", n, ErrCorrupt)
	case err == nil:
		return nil, fmt.Errorf("zlib stream does not end after %d payload bytes: %w", n, ErrCorrupt)
	case !errors.Is(err, io.EOF):
		return nil, fmt.Errorf("end of zlib stream: %w: %w", err, ErrCorrupt)
	}
	return sc.payload, nil
}

// checkHeader validates the decompressed header and returns the payload
// length it declares.
func checkHeader(hdr []byte) (int, error) {
	be := binary.BigEndian
	cookie := int32(be.Uint32(hdr[0:4]))
	n := int32(be.Uint32(hdr[4:8]))
	offset := int32(be.Uint32(hdr[8:12]))
	sig := int32(be.Uint32(hdr[12:16]))
	lo := int64(be.Uint64(hdr[16:24]))
	hi := int64(be.Uint64(hdr[24:32]))
	ratio := math.Float64frombits(be.Uint64(hdr[32:40]))
	switch {
	case cookie&^cookieFlagsMask != payloadCookieBase:
		return 0, fmt.Errorf("payload cookie %#x is not V2: %w", cookie, ErrCorrupt)
	case lo != LowestMicros || hi != HighestMicros || sig != SignificantFigures:
		return 0, fmt.Errorf("lowest %d, highest %d, %d significant figures (want %d, %d, %d): %w",
			lo, hi, sig, LowestMicros, HighestMicros, SignificantFigures, ErrConfigMismatch)
	case ratio != 1:
		return 0, fmt.Errorf("integer to double conversion ratio %g, want 1: %w", ratio, ErrConfigMismatch)
	case offset != 0 && offset != 1:
		// Java honours a normalizing index offset (shifted histograms);
		// hdrhistogram-go ignores it and writes 1, so only 0 and 1 mean
		// "not shifted".
		return 0, fmt.Errorf("normalizing index offset %d not supported: %w", offset, ErrCorrupt)
	case n < 0 || n > maxPayloadLen:
		return 0, fmt.Errorf("payload length %d outside 0..%d: %w", n, maxPayloadLen, ErrCorrupt)
	}
	return int(n), nil
}

// readBins reads the counts payload in one pass, checking that every slot
// index is inside the counts array and that the total count does not
// overflow, and appends each non-empty slot to bins in ascending order. It
// returns them with their total count.
func readBins(payload []byte, bins []bin) ([]bin, int64, error) {
	var slot, total int64
	for pos := 0; pos < len(payload); {
		v, n, err := readZigZag(payload[pos:])
		if err != nil {
			return bins, 0, fmt.Errorf("counts at byte %d: %w", pos, err)
		}
		pos += n
		switch {
		case v < 0:
			if v == math.MinInt64 || -v > countsLen-slot {
				return bins, 0, fmt.Errorf("run of %d empty slots from slot %d overflows %d: %w", uint64(-v), slot, countsLen, ErrCorrupt)
			}
			slot -= v
		case slot >= countsLen:
			return bins, 0, fmt.Errorf("count for slot %d beyond %d: %w", slot, countsLen, ErrCorrupt)
		default:
			if v > math.MaxInt64-total {
				return bins, 0, fmt.Errorf("total count overflows at slot %d: %w", slot, ErrCorrupt)
			}
			if v > 0 {
				lo, hi := slotRange(int(slot))
				bins = append(bins, bin{slot: int(slot), lo: lo, hi: hi, count: v})
			}
			total += v
			slot++
		}
	}
	return bins, total, nil
}

// readZigZag decodes one ZigZag LEB128 varint of at most 9 bytes, the
// ninth contributing all 8 of its bits, and returns it with its length.
func readZigZag(b []byte) (int64, int, error) {
	var u uint64
	for i, c := range b {
		if i == maxVarintLen-1 {
			u |= uint64(c) << 56
			return zigZag(u), i + 1, nil
		}
		u |= uint64(c&0x7f) << (7 * i)
		if c&0x80 == 0 {
			return zigZag(u), i + 1, nil
		}
	}
	return 0, 0, fmt.Errorf("truncated varint: %w", ErrCorrupt)
}

// zigZag maps an unsigned ZigZag value back to the signed one.
func zigZag(u uint64) int64 {
	return int64(u>>1) ^ -int64(u&1)
}

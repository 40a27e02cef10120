package hist

import (
	"bytes"
	"compress/zlib"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"sync"

	"github.com/HdrHistogram/hdrhistogram-go"
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
	payload, err := validate(b)
	if err != nil {
		return nil, fmt.Errorf("decode histogram: %w", err)
	}
	nonEmpty, total, err := validateCounts(payload)
	if err != nil {
		return nil, fmt.Errorf("decode histogram: %w", err)
	}
	h := &Histogram{}
	if nonEmpty > maxSparseBins { // the full array is the smaller form
		h.h = hdrhistogram.New(LowestMicros, HighestMicros, SignificantFigures)
	} else {
		h.bins, h.total = make([]bin, 0, nonEmpty), total
	}
	eachCount(payload, func(slot int, count int64) {
		if h.h != nil {
			// Cannot fail: validateCounts checked every slot.
			_ = h.h.RecordValues(slotValue(slot), count)
			return
		}
		lo, hi := slotRange(slot)
		h.bins = append(h.bins, bin{slot: slot, lo: lo, hi: hi, count: count})
	})
	return h, nil
}

// maxSparseBins is the most non-empty slots a decoded histogram keeps as
// bins (24 bytes each): past it, the full counts array (8 bytes a slot) is
// smaller.
const maxSparseBins = countsLen / 3

// eachCount calls f with each non-empty slot of a payload validateCounts
// accepted, in ascending order.
func eachCount(payload []byte, f func(slot int, count int64)) {
	slot := 0
	for pos := 0; pos < len(payload); {
		v, n, _ := readZigZag(payload[pos:])
		pos += n
		switch {
		case v < 0:
			slot -= int(v)
		case v == 0:
			slot++
		default:
			f(slot, v)
			slot++
		}
	}
}

// validate checks the envelope, the zlib stream and the header of a
// snapshot with bounded memory, and returns its counts payload for
// validateCounts.
func validate(b []byte) ([]byte, error) {
	if len(b) == 0 {
		return nil, fmt.Errorf("empty input: %w", ErrCorrupt)
	}
	if len(b) > MaxEncodedLen {
		return nil, fmt.Errorf("%d bytes, more than %d: %w", len(b), MaxEncodedLen, ErrCorrupt)
	}
	raw := make([]byte, base64.StdEncoding.DecodedLen(len(b)))
	n64, err := base64.StdEncoding.Decode(raw, b)
	raw = raw[:n64]
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
	return inflate(raw[envelopeLen:])
}

// inflate decompresses the zlib stream, checks the header and returns the
// counts payload, reading no more than the header promises and at most
// maxPayloadLen bytes of it.
func inflate(compressed []byte) ([]byte, error) {
	z, err := inflater(bytes.NewReader(compressed))
	if err != nil {
		return nil, fmt.Errorf("zlib: %w: %w", err, ErrCorrupt)
	}
	defer inflaters.Put(z)
	var hdr [headerLen]byte
	if _, err := io.ReadFull(z, hdr[:]); err != nil {
		return nil, fmt.Errorf("read header: %w: %w", err, ErrCorrupt)
	}
	n, err := checkHeader(hdr[:])
	if err != nil {
		return nil, err
	}
	payload := make([]byte, n)
	if _, err := io.ReadFull(z, payload); err != nil {
		return nil, fmt.Errorf("read %d payload bytes: %w: %w", n, err, ErrCorrupt)
	}
	// The stream must end here; reading to its end also verifies the
	// zlib checksum.
	var extra [1]byte
	k, err := z.Read(extra[:])
	switch {
	case k != 0:
		return nil, fmt.Errorf("payload longer than its declared %d bytes: %w", n, ErrCorrupt)
	case err == nil:
		return nil, fmt.Errorf("zlib stream does not end after %d payload bytes: %w", n, ErrCorrupt)
	case !errors.Is(err, io.EOF):
		return nil, fmt.Errorf("end of zlib stream: %w: %w", err, ErrCorrupt)
	}
	return payload, nil
}

// inflaters keeps zlib readers (about 40 KB of state each) for reuse: the
// ingest inflates thousands of snapshots a second.
var inflaters sync.Pool //nolint:gochecknoglobals // a pool of readers, shared by every Decode

// inflater returns a zlib reader of r, reused when one is free.
func inflater(r io.Reader) (io.ReadCloser, error) {
	if z, ok := inflaters.Get().(io.ReadCloser); ok {
		if err := z.(zlib.Resetter).Reset(r, nil); err != nil {
			return nil, err //nolint:wrapcheck // inflate wraps it
		}
		return z, nil
	}
	return zlib.NewReader(r) //nolint:wrapcheck // inflate wraps it
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

// validateCounts walks the counts payload, checking that every slot index
// is inside the counts array and that the total count does not overflow,
// and returns how many slots are not empty and their total count.
func validateCounts(payload []byte) (int, int64, error) {
	var slot, total int64
	nonEmpty := 0
	for pos := 0; pos < len(payload); {
		v, n, err := readZigZag(payload[pos:])
		if err != nil {
			return 0, 0, fmt.Errorf("counts at byte %d: %w", pos, err)
		}
		pos += n
		switch {
		case v < 0:
			if v == math.MinInt64 || -v > countsLen-slot {
				return 0, 0, fmt.Errorf("run of %d empty slots from slot %d overflows %d: %w", uint64(-v), slot, countsLen, ErrCorrupt)
			}
			slot -= v
		case slot >= countsLen:
			return 0, 0, fmt.Errorf("count for slot %d beyond %d: %w", slot, countsLen, ErrCorrupt)
		default:
			if v > math.MaxInt64-total {
				return 0, 0, fmt.Errorf("total count overflows at slot %d: %w", slot, ErrCorrupt)
			}
			if v > 0 {
				nonEmpty++
			}
			total += v
			slot++
		}
	}
	return nonEmpty, total, nil
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

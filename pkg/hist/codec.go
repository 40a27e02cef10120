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
func (h *Histogram) Encode() ([]byte, error) {
	b, err := h.h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
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
func Decode(b []byte) (*Histogram, error) {
	total, err := validate(b)
	if err != nil {
		return nil, fmt.Errorf("decode histogram: %w", err)
	}
	h, err := decodeGuarded(b)
	if err != nil {
		return nil, fmt.Errorf("decode histogram: %w", err)
	}
	if err := checkConfig(h); err != nil {
		return nil, fmt.Errorf("decode histogram: %w", err)
	}
	if got := h.TotalCount(); got != total {
		return nil, fmt.Errorf("decode histogram: library read count %d, validation %d: %w", got, total, ErrCorrupt)
	}
	return &Histogram{h: h}, nil
}

// decodeGuarded runs hdrhistogram-go's decoder, turning a panic into
// ErrCorrupt. validate has already rejected every input known to make it
// panic or over-allocate; this is the last resort.
func decodeGuarded(b []byte) (h *hdrhistogram.Histogram, err error) {
	defer func() {
		if r := recover(); r != nil {
			h, err = nil, fmt.Errorf("hdrhistogram decoder panicked: %v: %w", r, ErrCorrupt)
		}
	}()
	h, err = hdrhistogram.Decode(b)
	if err != nil {
		return nil, fmt.Errorf("hdrhistogram decoder: %w: %w", err, ErrCorrupt)
	}
	return h, nil
}

// validate checks everything hdrhistogram-go's decoder trusts (lengths,
// cookies, configuration, slot indexes, counts) with bounded memory, and
// returns the total count the snapshot holds.
func validate(b []byte) (int64, error) {
	if len(b) == 0 {
		return 0, fmt.Errorf("empty input: %w", ErrCorrupt)
	}
	if len(b) > MaxEncodedLen {
		return 0, fmt.Errorf("%d bytes, more than %d: %w", len(b), MaxEncodedLen, ErrCorrupt)
	}
	raw, err := base64.StdEncoding.DecodeString(string(b))
	if err != nil {
		return 0, fmt.Errorf("base64: %w: %w", err, ErrCorrupt)
	}
	if len(raw) < envelopeLen {
		return 0, fmt.Errorf("%d bytes, shorter than the envelope: %w", len(raw), ErrCorrupt)
	}
	cookie := int32(binary.BigEndian.Uint32(raw[0:4]))
	if cookie&^cookieFlagsMask != compressedCookieBase {
		return 0, fmt.Errorf("cookie %#x is not V2 compressed: %w", cookie, ErrCorrupt)
	}
	n := int32(binary.BigEndian.Uint32(raw[4:8]))
	if int(n) != len(raw)-envelopeLen {
		return 0, fmt.Errorf("compressed length %d, have %d bytes: %w", n, len(raw)-envelopeLen, ErrCorrupt)
	}
	payload, err := inflate(raw[envelopeLen:])
	if err != nil {
		return 0, err
	}
	return validateCounts(payload)
}

// inflate decompresses the zlib stream, checks the header and returns the
// counts payload, reading no more than the header promises and at most
// maxPayloadLen bytes of it.
func inflate(compressed []byte) ([]byte, error) {
	z, err := zlib.NewReader(bytes.NewReader(compressed))
	if err != nil {
		return nil, fmt.Errorf("zlib: %w: %w", err, ErrCorrupt)
	}
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

// validateCounts walks the counts payload as hdrhistogram-go will, checking
// that every slot index is inside the counts array and that the total count
// does not overflow, and returns the total.
func validateCounts(payload []byte) (int64, error) {
	var slot, total int64
	for pos := 0; pos < len(payload); {
		v, n, err := readZigZag(payload[pos:])
		if err != nil {
			return 0, fmt.Errorf("counts at byte %d: %w", pos, err)
		}
		pos += n
		switch {
		case v < 0:
			if v == math.MinInt64 || -v > countsLen-slot {
				return 0, fmt.Errorf("run of %d empty slots from slot %d overflows %d: %w", uint64(-v), slot, countsLen, ErrCorrupt)
			}
			slot -= v
		case slot >= countsLen:
			return 0, fmt.Errorf("count for slot %d beyond %d: %w", slot, countsLen, ErrCorrupt)
		default:
			if v > math.MaxInt64-total {
				return 0, fmt.Errorf("total count overflows at slot %d: %w", slot, ErrCorrupt)
			}
			total += v
			slot++
		}
	}
	return total, nil
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

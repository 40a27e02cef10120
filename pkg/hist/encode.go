package hist

import (
	"bytes"
	"compress/zlib"
	"encoding/base64"
	"encoding/binary"
	"math"
	"sync"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// What hdrhistogram-go writes in every snapshot besides the counts: the
// cookies carry its 8-byte word-size flag, the normalizing index offset is
// 1 (not shifted), and the integer to double conversion ratio 1.
const (
	wordSizeFlag          = 0x10
	unshiftedIndexOffset  = 1
	compressionLevel      = zlib.BestCompression // the library's: the snapshots stay byte for byte its own
	encodedCompressedBase = hdrhistogram.V2CompressedEncodingCookieBase | wordSizeFlag
	encodedPayloadBase    = hdrhistogram.V2EncodingCookieBase | wordSizeFlag
)

// deflaters keeps zlib writers (several hundred KB of state each at the
// best compression) for reuse: the ingest encodes a merged second for
// every batch of snapshots.
var deflaters sync.Pool //nolint:gochecknoglobals // a pool of writers, shared by every Encode

// encodeCounts writes the V2 compressed, base64 encoding of a histogram of
// the fixed configuration whose counts payload appendCounts writes.
func encodeCounts(appendCounts func(*bytes.Buffer)) ([]byte, error) {
	var raw bytes.Buffer
	raw.Grow(4096)
	var hdr [headerLen]byte
	raw.Write(hdr[:]) // filled in once the counts' length is known
	appendCounts(&raw)
	payload := raw.Bytes()
	be := binary.BigEndian
	be.PutUint32(payload[0:4], uint32(encodedPayloadBase))
	be.PutUint32(payload[4:8], uint32(len(payload)-headerLen))
	be.PutUint32(payload[8:12], unshiftedIndexOffset)
	be.PutUint32(payload[12:16], SignificantFigures)
	be.PutUint64(payload[16:24], uint64(LowestMicros))
	be.PutUint64(payload[24:32], uint64(HighestMicros))
	be.PutUint64(payload[32:40], math.Float64bits(1))

	var out bytes.Buffer
	out.Grow(envelopeLen + len(payload)/2 + 64)
	out.Write(make([]byte, envelopeLen))
	z, ok := deflaters.Get().(*zlib.Writer)
	if ok {
		z.Reset(&out)
	} else {
		var err error
		if z, err = zlib.NewWriterLevel(&out, compressionLevel); err != nil {
			return nil, err //nolint:wrapcheck // Encode wraps it
		}
	}
	defer deflaters.Put(z)
	if _, err := z.Write(payload); err != nil {
		return nil, err //nolint:wrapcheck // Encode wraps it
	}
	if err := z.Close(); err != nil {
		return nil, err //nolint:wrapcheck // Encode wraps it
	}
	env := out.Bytes()
	be.PutUint32(env[0:4], uint32(encodedCompressedBase))
	be.PutUint32(env[4:8], uint32(len(env)-envelopeLen))
	enc := make([]byte, base64.StdEncoding.EncodedLen(len(env)))
	base64.StdEncoding.Encode(enc, env)
	return enc, nil
}

// The counts payload runs slot by slot from the first to the last non-empty
// one (only slot 0 when there is none): each count a ZigZag varint, a run
// of two or more empty slots as the negated run length and a single empty
// slot as a count of 0. appendBins writes it from the non-empty slots of a
// decoded histogram, appendArray from a full counts array.

// appendBins writes the counts payload of the non-empty slots bins.
func appendBins(w *bytes.Buffer, bins []bin) {
	if len(bins) == 0 {
		putZigZag(w, 0)
		return
	}
	next := 0
	for _, b := range bins {
		switch gap := b.slot - next; {
		case gap > 1:
			putZigZag(w, -int64(gap))
		case gap == 1:
			putZigZag(w, 0)
		}
		putZigZag(w, b.count)
		next = b.slot + 1
	}
}

// appendArray writes the counts payload of a full counts array.
func appendArray(w *bytes.Buffer, counts []int64) {
	last := len(counts) - 1
	for last > 0 && counts[last] == 0 {
		last--
	}
	for i := 0; i <= last; {
		if counts[i] != 0 {
			putZigZag(w, counts[i])
			i++
			continue
		}
		run := 1
		for i+run <= last && counts[i+run] == 0 {
			run++
		}
		if run > 1 {
			putZigZag(w, -int64(run))
		} else {
			putZigZag(w, 0)
		}
		i += run
	}
}

// putZigZag writes v as a ZigZag LEB128 varint of at most 9 bytes, the
// ninth carrying all 8 of its bits (readZigZag reverses it).
func putZigZag(w *bytes.Buffer, v int64) {
	u := uint64(v<<1) ^ uint64(v>>63)
	for range maxVarintLen - 1 {
		if u < 0x80 {
			w.WriteByte(byte(u))
			return
		}
		w.WriteByte(byte(u) | 0x80)
		u >>= 7
	}
	w.WriteByte(byte(u))
}

package reqtemplate

import (
	"math/rand/v2"
	"strconv"
	"sync/atomic"
)

const letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"

const hexDigits = "0123456789abcdef"

// Append renders the template for one request onto dst and returns the
// extended buffer: seq is the request's sequence number (from a Seq) and r
// the caller's random source (one per goroutine: *rand.Rand is not safe for
// concurrent use). It allocates only when dst must grow.
func (t *Template) Append(dst []byte, seq uint64, r *rand.Rand) []byte {
	if t == nil {
		return dst
	}
	for i := range t.segs {
		s := &t.segs[i]
		switch s.kind {
		case literal:
			dst = append(dst, s.lit...)
		case seqDec:
			dst = appendPadded(dst, seq, int(s.n))
		case seqMod:
			dst = appendPadded(dst, seq%s.mod, int(s.n))
		case randBelow:
			dst = strconv.AppendUint(dst, r.Uint64N(s.n), 10)
		case alphaN:
			for range s.n {
				dst = append(dst, letters[r.IntN(len(letters))])
			}
		case digitsN:
			for range s.n {
				dst = append(dst, byte('0'+r.IntN(10)))
			}
		case uuidV4:
			dst = appendUUID(dst, r)
		}
	}
	return dst
}

// appendPadded appends v in decimal, zero-padded to at least width digits.
func appendPadded(dst []byte, v uint64, width int) []byte {
	var buf [20]byte
	b := strconv.AppendUint(buf[:0], v, 10)
	for i := len(b); i < width; i++ {
		dst = append(dst, '0')
	}
	return append(dst, b...)
}

// appendUUID appends a random RFC 9562 version 4 UUID in its 36-character form.
func appendUUID(dst []byte, r *rand.Rand) []byte {
	var u [16]byte
	hi, lo := r.Uint64(), r.Uint64()
	for i := range 8 {
		u[i] = byte(hi >> (8 * i))
		u[8+i] = byte(lo >> (8 * i))
	}
	u[6] = u[6]&0x0f | 0x40 // version 4
	u[8] = u[8]&0x3f | 0x80 // RFC 9562 variant
	for i, b := range u {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			dst = append(dst, '-')
		}
		dst = append(dst, hexDigits[b>>4], hexDigits[b&0x0f])
	}
	return dst
}

// Seq hands out the sequence numbers of one shard: start, start+stride,
// start+2*stride... Shards of a run get start = shard+1 and stride = the
// shard count, so their numbers never collide and together they count
// 1, 2, 3... It is safe for concurrent use.
type Seq struct {
	next          atomic.Uint64
	start, stride uint64
}

// NewSeq returns a Seq from start in steps of stride; a zero start or
// stride means 1 (a standalone run counts 1, 2, 3...).
func NewSeq(start, stride uint64) *Seq {
	return &Seq{start: max(start, 1), stride: max(stride, 1)}
}

// Next returns the next number.
func (s *Seq) Next() uint64 {
	k := s.next.Add(1) - 1
	return s.start + k*s.stride
}

// NewRand returns a random source for one goroutine's rendering, seeded
// from the runtime's entropy.
func NewRand() *rand.Rand {
	return rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64())) //nolint:gosec // load-test data, not secrets
}

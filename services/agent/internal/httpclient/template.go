package httpclient

import (
	crand "crypto/rand"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"sync/atomic"

	"github.com/barrage-dev/barrage/pkg/reqtemplate"
)

// dynamic renders the request of a templated target or body: the fixed
// parts are built once, the placeholders per request into the client's
// buffers.
type dynamic struct {
	method  string // "GET "
	targets []*reqtemplate.Template
	random  bool
	next    atomic.Uint64 // round robin over targets
	head    string        // " HTTP/1.1\r\n" and the header lines
	body    *reqtemplate.Template
	opts    *Options // for needsLength
	seq     *reqtemplate.Seq
	sizes   *BodySize // random bodies of random sizes, cut from noise
	noise   []byte    // sizes.Max random bytes
}

// newDynamic returns the renderer of opts' templates, or nil when neither
// the target nor the body has a placeholder.
func newDynamic(o *Options, t target) *dynamic {
	dynTarget := len(o.Targets) > 1 || (len(o.Targets) == 1 && o.Targets[0].Dynamic())
	if !dynTarget && !o.Body.Dynamic() {
		return nil
	}
	d := &dynamic{method: o.Method + " ", head: headerBlock(o, t), opts: o, seq: o.Seq, random: o.RandomTarget}
	d.targets = o.Targets
	if !dynTarget {
		d.targets = []*reqtemplate.Template{reqtemplate.Literal(t.path)}
	}
	d.body = o.Body
	if !d.body.Dynamic() {
		d.body = reqtemplate.Literal(string(o.Payload))
	}
	if d.seq == nil {
		d.seq = reqtemplate.NewSeq(1, 1)
	}
	return d
}

// renderer is one client's buffers and random source.
type renderer struct {
	req, body []byte
	rnd       *rand.Rand
}

// render builds the next request into r.req and returns it.
func (d *dynamic) render(r *renderer) []byte {
	if r.rnd == nil {
		r.rnd = reqtemplate.NewRand()
	}
	seq := d.seq.Next()
	if d.sizes != nil {
		r.body = d.noise[:d.sizes.draw(r.rnd)]
	} else {
		r.body = d.body.Append(r.body[:0], seq, r.rnd)
	}
	target := d.targets[0]
	switch n := len(d.targets); {
	case n == 1:
	case d.random:
		target = d.targets[r.rnd.IntN(n)]
	default:
		target = d.targets[(d.next.Add(1)-1)%uint64(n)]
	}
	b := r.req[:0]
	b = append(b, d.method...)
	b = target.Append(b, seq, r.rnd)
	b = append(b, d.head...)
	if needsLength(d.opts, len(r.body)) {
		b = append(b, "Content-Length: "...)
		b = strconv.AppendInt(b, int64(len(r.body)), 10)
		b = append(b, "\r\n"...)
	}
	b = append(b, "\r\n"...)
	b = append(b, r.body...)
	r.req = b
	return b
}

// buildVariants prepares the renderers of a request mix's entries.
func (f *Factory) buildVariants(o *Options, t target) error {
	seq := o.Seq
	if seq == nil {
		seq = reqtemplate.NewSeq(1, 1)
	}
	for i, v := range o.Variants {
		vo := *o
		vo.Method, vo.Payload, vo.Variants = v.Method, nil, nil
		vo.Headers = append(slices.Clone(o.Headers), v.Headers...)
		if vo.Method == "" {
			vo.Method = "GET"
			if v.Body.String() != "" || v.BodySize.Max > 0 {
				vo.Method = "POST"
			}
		}
		if err := vo.normalize(); err != nil {
			return fmt.Errorf("request %d: %w", i, err)
		}
		d := &dynamic{method: vo.Method + " ", targets: []*reqtemplate.Template{v.Target}, head: headerBlock(&vo, t), opts: &vo, seq: seq}
		d.body = v.Body
		if d.body == nil {
			d.body = reqtemplate.Literal("")
		}
		if v.BodySize.Max > 0 {
			bs := v.BodySize
			d.sizes, d.noise = &bs, make([]byte, bs.Max)
			_, _ = crand.Read(d.noise) // crypto/rand never fails
		}
		f.variants = append(f.variants, d)
	}
	return nil
}

// draw returns a body size: uniform in [Min, Max], or with Fair, with
// density 1/size (log-uniform), so that every size range carries the same
// share of the bytes.
func (b *BodySize) draw(r *rand.Rand) int {
	if b.Max <= b.Min {
		return b.Max
	}
	if !b.Fair {
		return b.Min + r.IntN(b.Max-b.Min+1)
	}
	lo := math.Log(float64(max(b.Min, 1)))
	hi := math.Log(float64(b.Max) + 1)
	n := int(math.Exp(lo + r.Float64()*(hi-lo)))
	return min(max(n, b.Min), b.Max)
}

package echofault

import (
	"errors"
	"fmt"
	"net/url"
	"time"
)

// Limits bound what a request may ask for.
type Limits struct {
	// MaxDelay is the longest delay a request gets; longer ones are clamped.
	MaxDelay time.Duration
	// MaxPayload is the largest generated reply in bytes; larger ones are clamped.
	MaxPayload int
}

// Params is the parsed fault-injection parameters of one request.
type Params struct {
	Delay  Dist[time.Duration]
	Status Dist[int]
	// Size draws a generated reply size; when it draws nothing the request body is echoed.
	Size Dist[int]
	// Close and Gzip are chances in percent.
	Close, Gzip float64
	// Headers are added to the reply, in order.
	Headers []Header
	// Saturate delays in proportion to the requests in flight; the
	// handler, which knows that count, applies it.
	Saturate Saturation
	// Ignored names the parameters that were malformed and ignored, as Fortio does.
	Ignored []string
}

// Header is one response header asked for with header=Name:Value.
type Header struct{ Name, Value string }

// Outcome is what one request gets after drawing from its Params.
type Outcome struct {
	Delay  time.Duration
	Status int
	// Size is the generated reply size, or -1 to echo the request body.
	Size  int
	Close bool
	Gzip  bool
}

// ParseQuery parses the fault parameters of a query. Malformed delay, size,
// saturate, close, gzip and header values are ignored (and listed in Ignored); a malformed status or
// any list whose percentages exceed 100 is an error that names the parameter.
func ParseQuery(q url.Values, lim Limits) (Params, error) {
	var p Params
	var err error
	if s, ok := first(q, "status"); ok {
		if p.Status, err = ParseStatus(s); err != nil {
			return Params{}, fmt.Errorf("status: %w", err)
		}
	}
	if s, ok := first(q, "delay"); ok {
		var perr error
		p.Delay, perr = ParseDelay(s, lim.MaxDelay)
		if err := p.ignore("delay", perr); err != nil {
			return Params{}, err
		}
	}
	if s, ok := first(q, "size"); ok {
		var perr error
		p.Size, perr = ParseSize(s, lim.MaxPayload)
		if err := p.ignore("size", perr); err != nil {
			return Params{}, err
		}
	}
	if s, ok := first(q, "saturate"); ok {
		var perr error
		p.Saturate, perr = ParseSaturate(s, lim.MaxDelay)
		_ = p.ignore("saturate", perr)
	}
	if s, ok := first(q, "close"); ok {
		p.Close, err = ParseChance(s)
		_ = p.ignore("close", err)
	}
	if s, ok := first(q, "gzip"); ok {
		p.Gzip, err = ParseChance(s)
		_ = p.ignore("gzip", err)
	}
	for _, h := range q["header"] {
		name, value, err := ParseHeader(h)
		if err != nil {
			p.Ignored = append(p.Ignored, "header")
			continue
		}
		p.Headers = append(p.Headers, Header{Name: name, Value: value})
	}
	return p, nil
}

// ignore records a malformed parameter; percentages over 100 stay an error.
func (p *Params) ignore(name string, err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, ErrOverHundred) {
		return fmt.Errorf("%s: %w", name, err)
	}
	p.Ignored = append(p.Ignored, name)
	return nil
}

func first(q url.Values, key string) (string, bool) {
	vs := q[key]
	if len(vs) == 0 {
		return "", false
	}
	return vs[0], true
}

// Draw picks this request's outcome; uniform returns numbers in [0, 1) and each
// parameter draws independently.
func (p *Params) Draw(uniform func() float64) Outcome {
	o := Outcome{Status: 200, Size: -1}
	if !p.Delay.Empty() {
		o.Delay, _ = p.Delay.Draw(uniform() * 100)
	}
	if !p.Status.Empty() {
		if code, ok := p.Status.Draw(uniform() * 100); ok {
			o.Status = code
		}
	}
	if !p.Size.Empty() {
		if n, ok := p.Size.Draw(uniform() * 100); ok {
			o.Size = n
		}
	}
	o.Close = p.Close > 0 && uniform()*100 < p.Close
	o.Gzip = p.Gzip > 0 && uniform()*100 < p.Gzip
	return o
}

// Package reqtemplate parses and renders request templates: URLs and payloads
// with placeholders that change on every request ({seq}, {rand:N},
// {alpha:N}, {uuid}, and Goader's XXXXX, NNNNN and RRRRR in URLs). A
// template is parsed once per run into segments; rendering appends to a
// buffer the caller reuses and allocates nothing.
//
// Placeholders:
//
//	{seq}      the request's sequence number (see Seq), in decimal
//	{seq:W}    the same, zero-padded to at least W digits (1 <= W <= 20)
//	{rand:N}   a random integer in [0, N) (1 <= N <= 2^63-1)
//	{alpha:N}  N random ASCII letters, a-z and A-Z (1 <= N <= 1024)
//	{uuid}     a random (version 4) UUID
//
// A '{' that does not start one of these names is literal text, so JSON
// payloads need no escaping; "{seq", "{rand", "{alpha" or "{uuid" followed
// by ':' or '}' must be a well-formed placeholder, or Parse fails.
//
// With Aliases (URLs only), Goader's placeholders are accepted too: a run
// of two or more X (the sequence number modulo 10^len, zero-padded to len
// digits, as Goader does), N (len random decimal digits) or R (len random
// letters), at most 19 long. Unlike Goader, which replaces such runs
// anywhere, a run counts only when it is a whole word: not touching another
// letter or digit ("/post/XXXXX" and "?id=NNNN" are placeholders,
// "/CONNECTION" is not).
//
// It is not the place for choosing which request to send (the agent's mix),
// nor for sequence ranges across shards (the API assigns them; Seq applies
// one).
package reqtemplate

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Limits on placeholder arguments.
const (
	// MaxSeqWidth is the widest zero-padding of {seq:W} (a uint64 has 20 digits).
	MaxSeqWidth = 20
	// MaxAlpha is the most letters {alpha:N} renders.
	MaxAlpha = 1024
	// maxGoader is the longest Goader run: 10^19 still fits in a uint64.
	maxGoader = 19
	// MaxSegments is the most placeholders one template may hold.
	MaxSegments = 64
)

// kind is what a segment renders.
type kind uint8

const (
	literal   kind = iota
	seqDec         // {seq} / {seq:W}: n = width (0 = none)
	seqMod         // Goader XXXXX: n = width, seq modulo 10^width
	randBelow      // {rand:N}: n = N
	alphaN         // {alpha:N} and Goader RRRRR: n = count
	digitsN        // Goader NNNNN: n = count
	uuidV4         // {uuid}
)

// segment is one piece of a template.
type segment struct {
	kind kind
	lit  string // literal text
	n    uint64 // width, bound or count (see kind)
	mod  uint64 // seqMod: 10^n
}

// Template is a parsed template. The zero value renders nothing.
type Template struct {
	segs    []segment
	src     string
	dynamic bool
	usesSeq bool
}

// Options control parsing.
type Options struct {
	// Aliases accepts Goader's XXXXX, NNNNN and RRRRR (for URLs).
	Aliases bool
}

// ErrSyntax is wrapped by every error Parse returns.
var ErrSyntax = errors.New("bad template")

// Parse splits s into literal text and placeholders.
func Parse(s string, opts Options) (*Template, error) {
	t := &Template{src: s}
	var lit strings.Builder
	placeholders := 0
	flush := func() {
		if lit.Len() > 0 {
			t.segs = append(t.segs, segment{kind: literal, lit: lit.String()})
			lit.Reset()
		}
	}
	for i := 0; i < len(s); {
		seg, n, err := placeholderAt(s, i, opts)
		if err != nil {
			return nil, err
		}
		if n == 0 {
			lit.WriteByte(s[i])
			i++
			continue
		}
		flush()
		t.segs = append(t.segs, seg)
		t.dynamic = true
		t.usesSeq = t.usesSeq || seg.kind == seqDec || seg.kind == seqMod
		placeholders++
		if placeholders > MaxSegments {
			return nil, fmt.Errorf("%w: more than %d placeholders", ErrSyntax, MaxSegments)
		}
		i += n
	}
	flush()
	return t, nil
}

// MustParse is Parse for templates known to be valid; it panics otherwise.
func MustParse(s string, opts Options) *Template {
	t, err := Parse(s, opts)
	if err != nil {
		panic(err)
	}
	return t
}

// placeholderAt returns the placeholder starting at s[i] and its length in
// bytes, or 0 when s[i] starts literal text.
func placeholderAt(s string, i int, opts Options) (segment, int, error) {
	switch c := s[i]; {
	case c == '{':
		return braceAt(s, i)
	case opts.Aliases && (c == 'X' || c == 'N' || c == 'R'):
		return goaderAt(s, i)
	}
	return segment{}, 0, nil
}

// braceAt parses "{name}" or "{name:arg}" at s[i].
func braceAt(s string, i int) (segment, int, error) {
	rest := s[i+1:]
	var name string
	for _, n := range []string{"seq", "rand", "alpha", "uuid"} {
		if rest == n || strings.HasPrefix(rest, n+"}") || strings.HasPrefix(rest, n+":") {
			name = n
			break
		}
	}
	if name == "" {
		return segment{}, 0, nil
	}
	end := strings.IndexByte(rest, '}')
	if end < 0 {
		return segment{}, 0, fmt.Errorf("%w: {%s at byte %d is not closed with }", ErrSyntax, name, i)
	}
	body := rest[:end]
	_, arg, hasArg := strings.Cut(body, ":")
	seg, err := braceSegment(name, arg, hasArg)
	if err != nil {
		return segment{}, 0, fmt.Errorf("%w: {%s} at byte %d: %w", ErrSyntax, body, i, err)
	}
	return seg, end + 2, nil
}

// braceSegment builds the segment of a brace placeholder.
func braceSegment(name, arg string, hasArg bool) (segment, error) {
	switch name {
	case "uuid":
		if hasArg {
			return segment{}, errors.New("takes no argument")
		}
		return segment{kind: uuidV4}, nil
	case "seq":
		if !hasArg {
			return segment{kind: seqDec}, nil
		}
		w, err := number(arg, 1, MaxSeqWidth)
		return segment{kind: seqDec, n: w}, err
	case "rand":
		if !hasArg {
			return segment{}, errors.New("needs a bound, like {rand:1000}")
		}
		n, err := number(arg, 1, 1<<63-1)
		return segment{kind: randBelow, n: n}, err
	default: // alpha
		if !hasArg {
			return segment{}, errors.New("needs a length, like {alpha:8}")
		}
		n, err := number(arg, 1, MaxAlpha)
		return segment{kind: alphaN, n: n}, err
	}
}

// number parses a decimal argument between lo and hi.
func number(arg string, lo, hi uint64) (uint64, error) {
	n, err := strconv.ParseUint(arg, 10, 64)
	if err != nil || n < lo || n > hi {
		return 0, fmt.Errorf("argument %q must be a whole number from %d to %d", arg, lo, hi)
	}
	return n, nil
}

// goaderAt parses a whole-word run of X, N or R at s[i].
func goaderAt(s string, i int) (segment, int, error) {
	c := s[i]
	if i > 0 && isAlnum(s[i-1]) {
		return segment{}, 0, nil
	}
	j := i
	for j < len(s) && s[j] == c {
		j++
	}
	n := j - i
	if n < 2 || (j < len(s) && isAlnum(s[j])) {
		return segment{}, 0, nil
	}
	if n > maxGoader {
		return segment{}, 0, fmt.Errorf("%w: %s at byte %d is longer than %d", ErrSyntax, s[i:j], i, maxGoader)
	}
	switch c {
	case 'X':
		mod := uint64(1)
		for range n {
			mod *= 10
		}
		return segment{kind: seqMod, n: uint64(n), mod: mod}, n, nil
	case 'N':
		return segment{kind: digitsN, n: uint64(n)}, n, nil
	default:
		return segment{kind: alphaN, n: uint64(n)}, n, nil
	}
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// Literal returns a template that renders s as it is.
func Literal(s string) *Template {
	return &Template{src: s, segs: []segment{{kind: literal, lit: s}}}
}

// Dynamic reports whether the template has any placeholder; a static one
// always renders its source.
func (t *Template) Dynamic() bool { return t != nil && t.dynamic }

// UsesSeq reports whether the template renders the sequence number.
func (t *Template) UsesSeq() bool { return t != nil && t.usesSeq }

// String returns the template's source text.
func (t *Template) String() string {
	if t == nil {
		return ""
	}
	return t.src
}

// HasPlaceholder reports whether s, parsed with opts, has a placeholder
// (false when it does not parse).
func HasPlaceholder(s string, opts Options) bool {
	t, err := Parse(s, opts)
	return err == nil && t.Dynamic()
}

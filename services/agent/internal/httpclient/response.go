package httpclient

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"time"

	"github.com/barrage-dev/barrage/services/agent/internal/servertime"
)

// Parse errors. They end the connection and count as socket errors.
var (
	errStatusLine = errors.New("malformed status line")
	errChunk      = errors.New("malformed chunk size")
	errLength     = errors.New("malformed Content-Length")
)

// respHead is what readResponse needs from the header block.
type respHead struct {
	code          int
	contentLength int64 // -1 when absent
	chunked       bool
	keepAlive     bool
	// latency is the lower-cased latency header name ("" for none);
	// serverTime its value when hasServerTime.
	latency       string
	serverTime    time.Duration
	hasServerTime bool
}

// readResponse reads one whole response (skipping 1xx interim ones) and
// discards its body. It returns the final head (status, whether the
// connection may carry another request, the latency header's value when
// latency names one) and the bytes read.
func readResponse(br *bufio.Reader, noBody bool, latency string) (h respHead, n int64, err error) {
	for {
		h, hn, err := readHead(br, latency)
		n += hn
		if err != nil {
			return respHead{}, n, err
		}
		if h.code >= 100 && h.code < 200 && h.code != 101 {
			continue // interim response: the real one follows
		}
		bn, toEOF, err := discardBody(br, h, noBody)
		n += bn
		h.keepAlive = h.keepAlive && !toEOF && h.code != 101
		if err != nil {
			h.keepAlive = false
		}
		return h, n, err
	}
}

func readHead(br *bufio.Reader, latency string) (h respHead, n int64, err error) {
	h.latency = latency
	line, err := br.ReadSlice('\n')
	n += int64(len(line))
	if err != nil {
		return h, n, err
	}
	// "HTTP/1.1 200 OK\r\n"
	if len(line) < 13 || !bytes.HasPrefix(line, []byte("HTTP/1.")) || line[8] != ' ' {
		return h, n, errStatusLine
	}
	for _, c := range line[9:12] {
		if c < '0' || c > '9' {
			return h, n, errStatusLine
		}
		h.code = h.code*10 + int(c-'0')
	}
	h.keepAlive = line[7] == '1'
	h.contentLength = -1
	for {
		line, err = br.ReadSlice('\n')
		n += int64(len(line))
		overflow := false
		for errors.Is(err, bufio.ErrBufferFull) { // a huge header line: skip the rest of it
			var more []byte
			more, err = br.ReadSlice('\n')
			n += int64(len(more))
			overflow = true
		}
		if err != nil {
			return h, n, err
		}
		if overflow {
			continue // its start was overwritten; no framing header is that long
		}
		if len(line) <= 2 && (len(line) == 1 || line[0] == '\r') {
			return h, n, nil
		}
		if err := h.header(line); err != nil {
			return h, n, err
		}
	}
}

// header records the fields of one header line that framing depends on.
func (h *respHead) header(line []byte) error {
	colon := bytes.IndexByte(line, ':')
	if colon <= 0 {
		return nil // tolerate junk, as browsers do
	}
	name, value := line[:colon], bytes.TrimSpace(line[colon+1:])
	switch {
	case servertime.EqualFold(name, "content-length"):
		var v int64
		if len(value) == 0 || len(value) > 18 {
			return errLength
		}
		for _, c := range value {
			if c < '0' || c > '9' {
				return errLength
			}
			v = v*10 + int64(c-'0')
		}
		h.contentLength = v
	case servertime.EqualFold(name, "transfer-encoding"):
		h.chunked = hasToken(value, "chunked")
	case servertime.EqualFold(name, "connection"):
		if hasToken(value, "close") {
			h.keepAlive = false
		} else if hasToken(value, "keep-alive") {
			h.keepAlive = true
		}
	case h.latency != "" && !h.hasServerTime && servertime.EqualFold(name, h.latency):
		h.serverTime, h.hasServerTime = servertime.Parse(value)
	}
	return nil
}

// discardBody reads the body; toEOF is true when it ran to the end of the
// connection, which then cannot carry another request.
func discardBody(br *bufio.Reader, h respHead, noBody bool) (n int64, toEOF bool, err error) {
	switch {
	case noBody || h.code == 204 || h.code == 304:
		return 0, false, nil
	case h.chunked:
		n, err = discardChunked(br)
		return n, false, err
	case h.contentLength >= 0:
		d, err := br.Discard(int(h.contentLength))
		return int64(d), false, err
	default: // no framing: the body runs to the end of the connection
		n, err = br.WriteTo(io.Discard)
		return n, true, err
	}
}

func discardChunked(br *bufio.Reader) (int64, error) {
	var n int64
	for {
		line, err := br.ReadSlice('\n')
		n += int64(len(line))
		if err != nil {
			return n, err
		}
		size, err := chunkSize(line)
		if err != nil {
			return n, err
		}
		if size == 0 {
			return discardTrailers(br, n)
		}
		d, err := br.Discard(int(size))
		n += int64(d)
		if err != nil {
			return n, err
		}
		crlf, err := br.ReadSlice('\n')
		n += int64(len(crlf))
		if err != nil {
			return n, err
		}
	}
}

func discardTrailers(br *bufio.Reader, n int64) (int64, error) {
	for {
		line, err := br.ReadSlice('\n')
		n += int64(len(line))
		if err != nil {
			return n, err
		}
		if len(line) == 1 || (len(line) == 2 && line[0] == '\r') {
			return n, nil
		}
	}
}

// chunkSize parses "1a2b;ext=1\r\n".
func chunkSize(line []byte) (int64, error) {
	var v int64
	digits := 0
	for _, c := range line {
		var d byte
		switch {
		case c >= '0' && c <= '9':
			d = c - '0'
		case c >= 'a' && c <= 'f':
			d = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			d = c - 'A' + 10
		case c == ';' || c == '\r' || c == '\n' || c == ' ' || c == '\t':
			if digits == 0 {
				return 0, errChunk
			}
			return v, nil
		default:
			return 0, errChunk
		}
		digits++
		if digits > 15 {
			return 0, errChunk
		}
		v = v<<4 | int64(d)
	}
	return 0, errChunk
}

// hasToken reports whether the comma-separated list v holds token (lower-case), ignoring case.
func hasToken(v []byte, token string) bool {
	for len(v) > 0 {
		i := bytes.IndexByte(v, ',')
		var item []byte
		if i < 0 {
			item, v = v, nil
		} else {
			item, v = v[:i], v[i+1:]
		}
		if servertime.EqualFold(bytes.TrimSpace(item), token) {
			return true
		}
	}
	return false
}

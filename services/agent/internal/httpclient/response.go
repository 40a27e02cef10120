package httpclient

import (
	"bufio"
	"bytes"
	"errors"
	"io"
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
}

// readResponse reads one whole response (skipping 1xx interim ones) and
// discards its body. It returns the status, the bytes read and whether the
// connection may carry another request.
func readResponse(br *bufio.Reader, noBody bool) (code int, n int64, keepAlive bool, err error) {
	for {
		h, hn, err := readHead(br)
		n += hn
		if err != nil {
			return 0, n, false, err
		}
		if h.code >= 100 && h.code < 200 && h.code != 101 {
			continue // interim response: the real one follows
		}
		bn, toEOF, err := discardBody(br, h, noBody)
		n += bn
		if err != nil {
			return h.code, n, false, err
		}
		return h.code, n, h.keepAlive && !toEOF && h.code != 101, nil
	}
}

func readHead(br *bufio.Reader) (h respHead, n int64, err error) {
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
	case asciiEqualFold(name, "content-length"):
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
	case asciiEqualFold(name, "transfer-encoding"):
		h.chunked = hasToken(value, "chunked")
	case asciiEqualFold(name, "connection"):
		if hasToken(value, "close") {
			h.keepAlive = false
		} else if hasToken(value, "keep-alive") {
			h.keepAlive = true
		}
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

// asciiEqualFold compares b with the lower-case ASCII string s, ignoring case.
func asciiEqualFold(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := range len(b) {
		c := b[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != s[i] {
			return false
		}
	}
	return true
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
		if asciiEqualFold(bytes.TrimSpace(item), token) {
			return true
		}
	}
	return false
}

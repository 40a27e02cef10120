package fortiojson

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strconv"
	"strings"
)

// IndexHeader is the first line of an index.tsv (Google's TsvHttpData format).
const IndexHeader = "TsvHttpData-1.0"

// utf8BOM may precede the header.
const utf8BOM = "\uFEFF"

// IndexEntry is one line of an index.tsv: a result's absolute URL, its size
// and the MD5 of its bytes.
type IndexEntry struct {
	// URL is an absolute http(s) URL.
	URL string
	// Size is the file's size in bytes; -1 when the line gives none.
	Size int64
	// MD5 is the raw 16-byte MD5 of the file, or nil when the line has none.
	MD5 []byte
}

// WriteIndex writes the header line, then "<url>\t<size>\t<base64 md5>\n"
// per entry. An entry with Size -1 is written without size and MD5, one
// with a nil MD5 without MD5; a URL holding a tab or line break, a Size
// below -1, an MD5 that is not 16 bytes or an MD5 without a size is an error.
func WriteIndex(w io.Writer, entries []IndexEntry) error {
	bw := bufio.NewWriter(w)
	if _, err := bw.WriteString(IndexHeader + "\n"); err != nil {
		return fmt.Errorf("write index: %w", err)
	}
	for i, e := range entries {
		if err := checkIndexEntry(e); err != nil {
			return fmt.Errorf("write index entry %d: %w", i, err)
		}
		line := e.URL
		if e.Size >= 0 {
			line += "\t" + strconv.FormatInt(e.Size, 10)
		}
		if e.MD5 != nil {
			line += "\t" + base64.StdEncoding.EncodeToString(e.MD5)
		}
		if _, err := bw.WriteString(line + "\n"); err != nil {
			return fmt.Errorf("write index: %w", err)
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write index: %w", err)
	}
	return nil
}

// checkIndexEntry rejects an entry that cannot be written as one line.
func checkIndexEntry(e IndexEntry) error {
	switch {
	case strings.ContainsAny(e.URL, "\t\r\n") || strings.TrimSpace(e.URL) == "":
		return errors.New("URL is empty or holds a tab or line break")
	case e.Size < -1:
		return errors.New("negative size")
	case e.MD5 != nil && len(e.MD5) != 16:
		return errors.New("MD5 is not 16 bytes")
	case e.MD5 != nil && e.Size < 0:
		return errors.New("MD5 without a size")
	}
	return nil
}

// IsIndex reports whether body is an index.tsv: its first line (after an
// optional UTF-8 byte order mark) is IndexHeader.
func IsIndex(data []byte) bool {
	first, _, _ := bytes.Cut(bytes.TrimPrefix(data, []byte(utf8BOM)), []byte("\n"))
	return string(bytes.TrimSuffix(first, []byte("\r"))) == IndexHeader
}

// ParseIndex reads an index.tsv: the header line, then lines of
// "URL[\tsize[\tbase64 md5]]"; blank lines are skipped and CRLF line ends
// accepted. URLs must be absolute http(s). More than maxEntries entries is
// an error. Errors name the line ("line 3: size ...").
func ParseIndex(data []byte, maxEntries int) ([]IndexEntry, error) {
	if !IsIndex(data) {
		return nil, errors.New("line 1: not " + IndexHeader)
	}
	lines := strings.Split(string(bytes.TrimPrefix(data, []byte(utf8BOM))), "\n")
	var entries []IndexEntry
	for i, line := range lines[1:] {
		line = strings.TrimSuffix(line, "\r")
		if strings.TrimSpace(line) == "" {
			continue
		}
		e, err := parseIndexLine(line)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", i+2, err)
		}
		if len(entries) >= maxEntries {
			return nil, fmt.Errorf("line %d: more than %d entries", i+2, maxEntries)
		}
		entries = append(entries, e)
	}
	return entries, nil
}

// parseIndexLine reads one "URL[\tsize[\tmd5]]" line.
func parseIndexLine(line string) (IndexEntry, error) {
	fields := strings.Split(line, "\t")
	if len(fields) > 3 {
		return IndexEntry{}, fmt.Errorf("%d fields, want at most 3", len(fields))
	}
	e := IndexEntry{URL: fields[0], Size: -1}
	if strings.IndexFunc(e.URL, func(r rune) bool { return r < 0x20 || r == 0x7f }) >= 0 {
		return IndexEntry{}, fmt.Errorf("URL %q holds a control character", truncate(e.URL))
	}
	u, err := url.Parse(e.URL)
	if err != nil || (!strings.EqualFold(u.Scheme, "http") && !strings.EqualFold(u.Scheme, "https")) || u.Host == "" {
		return IndexEntry{}, fmt.Errorf("URL %q is not an absolute http(s) URL", truncate(e.URL))
	}
	if len(fields) > 1 {
		e.Size, err = strconv.ParseInt(fields[1], 10, 64)
		if err != nil || e.Size < 0 {
			return IndexEntry{}, fmt.Errorf("size %q is not a non-negative integer", truncate(fields[1]))
		}
	}
	if len(fields) > 2 {
		e.MD5, err = base64.StdEncoding.DecodeString(fields[2])
		if err != nil || len(e.MD5) != 16 {
			return IndexEntry{}, fmt.Errorf("md5 %q is not a base64 16-byte MD5", truncate(fields[2]))
		}
	}
	return e, nil
}

// Package objlisting reads one page of an S3 or GCS bucket listing (the
// ListBucketResult XML of ListObjects v1 and v2) and builds the URLs of the
// next page and of the listed objects. It does no I/O; fetching the pages
// and objects is the caller's job.
package objlisting

import (
	"bytes"
	"encoding/hex"
	"encoding/xml"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Listing is one page of a bucket listing.
type Listing struct {
	// V2 is true for ListObjectsV2 (KeyCount, ContinuationToken or
	// NextContinuationToken present); NextURL also treats a page fetched
	// with list-type=2 as v2.
	V2 bool
	// Name is the bucket's name.
	Name string
	// Prefix is the prefix the listing was asked for.
	Prefix string
	// Objects are the listed objects, in listing order.
	Objects []Object
	// IsTruncated says more pages follow.
	IsTruncated bool
	// NextMarker is v1's marker of the next page; when a truncated v1 page
	// has none, NextURL uses the last key.
	NextMarker string
	// NextContinuationToken is v2's token for the next page.
	NextContinuationToken string
}

// Object is one listed object.
type Object struct {
	// Key is the object's key (URL-decoded when the listing used encoding-type=url).
	Key string
	// Size is the object's size in bytes.
	Size int64
	// ETag is the object's ETag as listed.
	ETag string
	// MD5 is the object's MD5 when its ETag is a plain 32-hex-digit MD5
	// (quotes stripped); nil for multipart ("-N") or other ETags.
	MD5 []byte
	// LastModified is when the object was last written; zero when not listed.
	LastModified time.Time
}

// xmlListing is ListBucketResult as S3 and GCS write it.
type xmlListing struct {
	XMLName               xml.Name `xml:"ListBucketResult"`
	Name                  string   `xml:"Name"`
	Prefix                string   `xml:"Prefix"`
	IsTruncated           string   `xml:"IsTruncated"`
	NextMarker            string   `xml:"NextMarker"`
	EncodingType          string   `xml:"EncodingType"`
	KeyCount              *string  `xml:"KeyCount"`
	ContinuationToken     *string  `xml:"ContinuationToken"`
	NextContinuationToken *string  `xml:"NextContinuationToken"`
	Contents              []struct {
		Key          string `xml:"Key"`
		Size         string `xml:"Size"`
		ETag         string `xml:"ETag"`
		LastModified string `xml:"LastModified"`
	} `xml:"Contents"`
}

// utf8BOM may precede the XML.
const utf8BOM = "\uFEFF"

// Parse reads one page of a bucket listing. The root element must be
// ListBucketResult (in any namespace); more than maxObjects objects is an
// error.
func Parse(data []byte, maxObjects int) (*Listing, error) {
	if !IsListing(data) {
		return nil, errors.New("listing: root element is not ListBucketResult")
	}
	var x xmlListing
	if err := xml.Unmarshal(bytes.TrimPrefix(data, []byte(utf8BOM)), &x); err != nil {
		return nil, fmt.Errorf("listing: %w", err)
	}
	if len(x.Contents) > maxObjects {
		return nil, fmt.Errorf("listing: %d objects, more than %d", len(x.Contents), maxObjects)
	}
	l := &Listing{
		V2:   x.KeyCount != nil || x.ContinuationToken != nil || x.NextContinuationToken != nil,
		Name: strings.TrimSpace(x.Name),
	}
	if x.NextContinuationToken != nil {
		l.NextContinuationToken = strings.TrimSpace(*x.NextContinuationToken)
	}
	if s := strings.TrimSpace(x.IsTruncated); s != "" {
		t, err := strconv.ParseBool(s)
		if err != nil {
			return nil, fmt.Errorf("listing: IsTruncated %q is not a boolean", s)
		}
		l.IsTruncated = t
	}
	decode := func(s string) (string, error) { return s, nil }
	switch et := strings.TrimSpace(x.EncodingType); et {
	case "":
	case "url":
		decode = url.QueryUnescape
	default:
		return nil, fmt.Errorf("listing: unknown EncodingType %q", et)
	}
	var err error
	if l.Prefix, err = decode(x.Prefix); err != nil {
		return nil, fmt.Errorf("listing: Prefix: %w", err)
	}
	if l.NextMarker, err = decode(x.NextMarker); err != nil {
		return nil, fmt.Errorf("listing: NextMarker: %w", err)
	}
	l.Objects = make([]Object, 0, len(x.Contents))
	for i, c := range x.Contents {
		o, err := parseObject(c.Key, c.Size, c.ETag, c.LastModified, decode)
		if err != nil {
			return nil, fmt.Errorf("listing: object %d: %w", i+1, err)
		}
		l.Objects = append(l.Objects, o)
	}
	return l, nil
}

// parseObject reads one Contents element.
func parseObject(key, size, etag, modified string, decode func(string) (string, error)) (Object, error) {
	k, err := decode(key)
	if err != nil {
		return Object{}, fmt.Errorf("url-encoded key: %w", err)
	}
	if k == "" {
		return Object{}, errors.New("empty Key")
	}
	o := Object{Key: k, ETag: strings.TrimSpace(etag)}
	if s := strings.TrimSpace(size); s != "" {
		o.Size, err = strconv.ParseInt(s, 10, 64)
		if err != nil || o.Size < 0 {
			return Object{}, fmt.Errorf("key %q: Size %q is not a non-negative integer", k, s)
		}
	}
	if m := strings.TrimSpace(modified); m != "" {
		o.LastModified, err = time.Parse(time.RFC3339Nano, m)
		if err != nil {
			return Object{}, fmt.Errorf("key %q: LastModified %q is not an RFC 3339 time", k, m)
		}
	}
	if h := strings.Trim(o.ETag, `"`); len(h) == 32 {
		if md5, err := hex.DecodeString(h); err == nil {
			o.MD5 = md5
		}
	}
	return o, nil
}

// IsListing reports whether data is XML whose root element is
// ListBucketResult, in any namespace.
func IsListing(data []byte) bool {
	dec := xml.NewDecoder(bytes.NewReader(bytes.TrimPrefix(data, []byte(utf8BOM))))
	for {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		switch t := tok.(type) {
		case xml.StartElement:
			return t.Name.Local == "ListBucketResult"
		case xml.CharData:
			if len(bytes.TrimSpace(t)) != 0 {
				return false
			}
		case xml.EndElement:
			return false
		}
	}
}

package objlisting

import (
	"bytes"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// mustRead returns a testdata file.
func mustRead(tb testing.TB, name string) []byte {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// mustParse parses a testdata listing.
func mustParse(tb testing.TB, name string) *Listing {
	tb.Helper()
	l, err := Parse(mustRead(tb, name), 1000)
	if err != nil {
		tb.Fatalf("Parse(%s): %v", name, err)
	}
	return l
}

func TestParseV1(t *testing.T) {
	t.Parallel()
	l := mustParse(t, "s3_v1.xml")
	if l.V2 || l.Name != "results" || l.Prefix != "fortio/" || !l.IsTruncated || l.NextMarker != "" {
		t.Fatalf("listing = %+v", l)
	}
	if len(l.Objects) != 2 {
		t.Fatalf("objects = %d, want 2", len(l.Objects))
	}
	a, b := l.Objects[0], l.Objects[1]
	if a.Key != "fortio/2026-11-24-020847_my_test.json" || a.Size != 4321 || a.ETag != `"fba9dede5f27731c9771645a39863328"` {
		t.Errorf("first = %+v", a)
	}
	if len(a.MD5) != 16 || a.MD5[0] != 0xfb || a.MD5[15] != 0x28 {
		t.Errorf("first MD5 = %x", a.MD5)
	}
	if want := time.Date(2026, 11, 24, 2, 8, 48, 0, time.UTC); !a.LastModified.Equal(want) {
		t.Errorf("first LastModified = %v", a.LastModified)
	}
	if b.Key != "fortio/big run/résumé.json" || b.Size != 90000000 || b.MD5 != nil {
		t.Errorf("second (multipart) = %+v", b)
	}
}

func TestParseV2AndGCS(t *testing.T) {
	t.Parallel()
	l := mustParse(t, "s3_v2.xml")
	if !l.V2 || !l.IsTruncated || l.NextContinuationToken != "1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM=" {
		t.Fatalf("v2 listing = %+v", l)
	}
	if len(l.Objects) != 1 || l.Objects[0].Size != 0 || len(l.Objects[0].MD5) != 16 {
		t.Fatalf("v2 objects = %+v", l.Objects)
	}
	g := mustParse(t, "gcs_v1_last.xml")
	if g.V2 || g.IsTruncated || g.Name != "fortio-data" || len(g.Objects) != 1 || g.Objects[0].LastModified.Nanosecond() != 123e6 {
		t.Fatalf("gcs listing = %+v", g)
	}
	u := mustParse(t, "s3_v1_urlencoded.xml")
	if u.Prefix != "a b/" || u.Objects[0].Key != "a b/c&d.json" {
		t.Fatalf("url-encoded listing = %+v", u)
	}
}

func TestParseErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, xml, want string
		max             int
	}{
		{"not xml", `{"a":1}`, "root element", 10},
		{"other root", `<Error><Code>AccessDenied</Code></Error>`, "root element", 10},
		{"too many", `<ListBucketResult><Contents><Key>a</Key></Contents><Contents><Key>b</Key></Contents></ListBucketResult>`, "more than 1", 1},
		{"bad size", `<ListBucketResult><Contents><Key>a</Key><Size>-1</Size></Contents></ListBucketResult>`, "Size", 10},
		{"bad time", `<ListBucketResult><Contents><Key>a</Key><LastModified>yesterday</LastModified></Contents></ListBucketResult>`, "LastModified", 10},
		{"empty key", `<ListBucketResult><Contents><Size>1</Size></Contents></ListBucketResult>`, "empty Key", 10},
		{"bad truncated", `<ListBucketResult><IsTruncated>maybe</IsTruncated></ListBucketResult>`, "IsTruncated", 10},
		{"bad encoding", `<ListBucketResult><EncodingType>rot13</EncodingType></ListBucketResult>`, "EncodingType", 10},
		{"bad escape", `<ListBucketResult><EncodingType>url</EncodingType><Contents><Key>%zz</Key></Contents></ListBucketResult>`, "url-encoded key", 10},
		{"broken", `<ListBucketResult><Contents>`, "listing", 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Parse([]byte(tt.xml), tt.max)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Parse error = %v, want one mentioning %q", err, tt.want)
			}
		})
	}
}

func TestIsListing(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want bool
	}{
		{`<?xml version="1.0"?><!-- c --><ListBucketResult/>`, true},
		{"\uFEFF<ListBucketResult xmlns='x'></ListBucketResult>", true},
		{`<x:ListBucketResult xmlns:x="y"/>`, true},
		{`<ListAllMyBucketsResult/>`, false},
		{"TsvHttpData-1.0\n", false},
		{``, false},
	}
	for _, tt := range tests {
		if got := IsListing([]byte(tt.in)); got != tt.want {
			t.Errorf("IsListing(%q) = %v", tt.in, got)
		}
	}
}

func TestNextURL(t *testing.T) {
	t.Parallel()
	v1 := mustParse(t, "s3_v1.xml")
	v2 := mustParse(t, "s3_v2.xml")
	last := mustParse(t, "gcs_v1_last.xml")
	withMarker := &Listing{IsTruncated: true, NextMarker: "m/1", Objects: []Object{{Key: "z"}}}
	askedV2 := &Listing{IsTruncated: true, NextContinuationToken: "tok"}
	tests := []struct {
		name    string
		l       *Listing
		page    string
		want    string
		wantErr bool
	}{
		{"v1 last key", v1, "http://s3.local/results?prefix=fortio/&X-Amz-Signature=abc",
			"http://s3.local/results?X-Amz-Signature=abc&marker=fortio%2Fbig+run%2Fr%C3%A9sum%C3%A9.json&prefix=fortio%2F", false},
		{"v1 next marker", withMarker, "http://h/b?marker=m/0", "http://h/b?marker=m%2F1", false},
		{"v1 no progress", withMarker, "http://h/b?marker=m/1", "", true},
		{"v2", v2, "https://b.s3.amazonaws.com/?list-type=2&prefix=",
			"https://b.s3.amazonaws.com/?continuation-token=1ueGcxLPRx1Tr%2FXYExHnhbYLgveDs2J%2Fwm36Hy4vbOwM%3D&list-type=2&prefix=", false},
		{"asked v2", askedV2, "http://h/b?list-type=2", "http://h/b?continuation-token=tok&list-type=2", false},
		{"last page", last, "http://h/b", "", false},
		{"truncated without way on", &Listing{IsTruncated: true}, "http://h/b", "", true},
		{"v2 without token", &Listing{V2: true, IsTruncated: true}, "http://h/b", "", true},
		{"relative page", v1, "/b?prefix=x", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := tt.l.NextURL(tt.page)
			if (err != nil) != tt.wantErr || got != tt.want {
				t.Fatalf("NextURL = %q, %v; want %q, error %v", got, err, tt.want, tt.wantErr)
			}
		})
	}
}

func TestObjectURL(t *testing.T) {
	t.Parallel()
	tests := []struct {
		page, key, want string
	}{
		{"http://s3.local/results?prefix=fortio/&marker=x&X-Amz-Signature=abc", "fortio/a.json",
			"http://s3.local/results/fortio/a.json?X-Amz-Signature=abc"},
		{"https://b.s3.amazonaws.com/?list-type=2&continuation-token=t&max-keys=5", "a.json",
			"https://b.s3.amazonaws.com/a.json"},
		{"https://storage.googleapis.com/bkt/?prefix=p&userProject=me", "p/big run/résumé #1?.json",
			"https://storage.googleapis.com/bkt/p/big%20run/r%C3%A9sum%C3%A9%20%231%3F.json?userProject=me"},
		{"http://h/b", "a/./../b", "http://h/b/a/%2E/%2E%2E/b"},
		{"http://h/my%20bucket?delimiter=/", "k%", "http://h/my%20bucket/k%25"},
	}
	for _, tt := range tests {
		got, err := ObjectURL(tt.page, tt.key)
		if err != nil || got != tt.want {
			t.Errorf("ObjectURL(%q, %q) = %q, %v; want %q", tt.page, tt.key, got, err, tt.want)
		}
	}
	for _, bad := range [][2]string{{"http://h/b", ""}, {"ftp://h/b", "k"}, {"::", "k"}} {
		if got, err := ObjectURL(bad[0], bad[1]); err == nil {
			t.Errorf("ObjectURL(%q, %q) = %q, want an error", bad[0], bad[1], got)
		}
	}
}

func TestObjectURLRoundTrip(t *testing.T) {
	t.Parallel()
	for _, key := range []string{"a b/c d.json", "日本/データ.json", "x+y=z&w", "100%/ok", "/leading", "trailing/"} {
		got, err := ObjectURL("http://h/bucket/?prefix=x", key)
		if err != nil {
			t.Fatal(err)
		}
		u, err := url.Parse(got)
		if err != nil {
			t.Fatal(err)
		}
		if u.Path != "/bucket/"+key || u.RawQuery != "" {
			t.Errorf("key %q: URL %q has path %q", key, got, u.Path)
		}
	}
}

func TestParseIgnoresBOM(t *testing.T) {
	t.Parallel()
	data := append([]byte("\uFEFF"), mustRead(t, "gcs_v1_last.xml")...)
	if _, err := Parse(bytes.TrimSpace(data), 10); err != nil {
		t.Fatal(err)
	}
}

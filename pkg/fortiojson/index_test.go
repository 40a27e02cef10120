package fortiojson

import (
	"bytes"
	"crypto/md5" //nolint:gosec // index.tsv's checksum, Fortio's format
	"errors"
	"reflect"
	"strings"
	"testing"
)

// failingWriter fails every write.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestParseIndexSamples(t *testing.T) {
	t.Parallel()
	entries, err := ParseIndex(mustReadFile(t, "index.tsv"), 10)
	if err != nil {
		t.Fatal(err)
	}
	empty := md5.Sum(nil) //nolint:gosec // index.tsv's checksum
	want := []IndexEntry{
		{URL: "http://127.0.0.1:8080/fortio/data/2026-11-24-020847_my_test.json", Size: 4321,
			MD5: []byte{0x9c, 0x36, 0xc3, 0xef, 0x27, 0x45, 0x6d, 0x4b, 0xb7, 0x07, 0xdc, 0x45, 0x95, 0x4e, 0x8e, 0x24}},
		{URL: "http://127.0.0.1:8080/fortio/data/2026-11-24-020000.json", Size: 17, MD5: empty[:]},
	}
	if !reflect.DeepEqual(entries, want) {
		t.Fatalf("entries = %+v", entries)
	}
	entries, err = ParseIndex(mustReadFile(t, "index_crlf.tsv"), 2)
	if err != nil {
		t.Fatal(err)
	}
	want = []IndexEntry{{URL: "https://storage.googleapis.com/b/a%20b.json", Size: -1}, {URL: "https://h/x.json", Size: 0}}
	if !reflect.DeepEqual(entries, want) {
		t.Fatalf("CRLF entries = %+v", entries)
	}
}

func TestParseIndexErrors(t *testing.T) {
	t.Parallel()
	const h = IndexHeader + "\n"
	tests := []struct {
		name, in, want string
		max            int
	}{
		{"no header", "http://h/a.json\t1\n", "line 1:", 10},
		{"other header", "TsvHttpData-2.0\n", "line 1:", 10},
		{"header prefix only", IndexHeader + "x\n", "line 1:", 10},
		{"relative url", h + "/a.json\t1\n", "line 2: URL", 10},
		{"ftp url", h + "\nftp://h/a.json\n", "line 3: URL", 10},
		{"no host", h + "http:///a.json\n", "line 2: URL", 10},
		{"negative size", h + "http://h/a\t-1\n", "line 2: size", 10},
		{"empty size", h + "http://h/a\t\tnDbD7ydFbUu3B9xFlU6OJA==\n", "line 2: size", 10},
		{"bad md5", h + "http://h/a\t1\tnotbase64!\n", "line 2: md5", 10},
		{"short md5", h + "http://h/a\t1\tAAAA\n", "line 2: md5", 10},
		{"extra field", h + "http://h/a\t1\tnDbD7ydFbUu3B9xFlU6OJA==\tx\n", "line 2: 4 fields", 10},
		{"too many", h + "http://h/a\nhttp://h/b\nhttp://h/c\n", "line 4: more than 2", 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := ParseIndex([]byte(tt.in), tt.max)
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Fatalf("ParseIndex error = %v, want %q...", err, tt.want)
			}
		})
	}
}

func TestIsIndex(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want bool
	}{
		{IndexHeader, true},
		{IndexHeader + "\r\nhttp://h/a\n", true},
		{"\uFEFF" + IndexHeader + "\n", true},
		{" " + IndexHeader + "\n", false},
		{IndexHeader + " \n", false},
		{"<ListBucketResult/>", false},
		{"", false},
	}
	for _, tt := range tests {
		if got := IsIndex([]byte(tt.in)); got != tt.want {
			t.Errorf("IsIndex(%q) = %v", tt.in, got)
		}
	}
}

func TestWriteIndex(t *testing.T) {
	t.Parallel()
	sum := md5.Sum([]byte("x")) //nolint:gosec // index.tsv's checksum
	entries := []IndexEntry{
		{URL: "http://h/a.json", Size: 1, MD5: sum[:]},
		{URL: "https://h/b.json", Size: 0},
		{URL: "https://h/c.json", Size: -1},
	}
	var b bytes.Buffer
	if err := WriteIndex(&b, entries); err != nil {
		t.Fatal(err)
	}
	want := IndexHeader + "\nhttp://h/a.json\t1\tndTkYSaMgDT1yFZOFVxnpg==\nhttps://h/b.json\t0\nhttps://h/c.json\n"
	if b.String() != want {
		t.Fatalf("WriteIndex =\n%q\nwant\n%q", b.String(), want)
	}
	got, err := ParseIndex(b.Bytes(), len(entries))
	if err != nil || !reflect.DeepEqual(got, entries) {
		t.Fatalf("round trip = %+v, %v", got, err)
	}
	bad := []IndexEntry{
		{URL: "http://h/a\tb", Size: 1},
		{URL: "http://h/a\n", Size: 1},
		{URL: "", Size: 1},
		{URL: "http://h/a", Size: -2},
		{URL: "http://h/a", Size: 1, MD5: []byte{1}},
		{URL: "http://h/a", Size: -1, MD5: sum[:]},
	}
	for _, e := range bad {
		if err := WriteIndex(&bytes.Buffer{}, []IndexEntry{e}); err == nil {
			t.Errorf("WriteIndex(%+v) succeeded", e)
		}
	}
	if err := WriteIndex(failingWriter{}, entries); err == nil {
		t.Error("WriteIndex to a failing writer succeeded")
	}
}

package objlisting

import (
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParseListing checks that Parse never panics, that what it accepts
// respects maxObjects and that every listed key gives an object URL whose
// path holds the key.
func FuzzParseListing(f *testing.F) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.xml"))
	if err != nil {
		f.Fatal(err)
	}
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`<ListBucketResult><Contents><Key>a/../b c</Key></Contents><IsTruncated>1</IsTruncated></ListBucketResult>`))
	f.Add([]byte(`<ListBucketResult><KeyCount>0</KeyCount><IsTruncated>true</IsTruncated></ListBucketResult>`))
	f.Fuzz(func(t *testing.T, data []byte) {
		const maxObjects = 50
		l, err := Parse(data, maxObjects)
		if err != nil {
			return
		}
		if !IsListing(data) || len(l.Objects) > maxObjects {
			t.Fatalf("Parse accepted %d objects of a non-listing or too many", len(l.Objects))
		}
		const page = "http://h/bucket?prefix=p&sig=1"
		next, err := l.NextURL(page)
		if err == nil && (next == "") == l.IsTruncated {
			t.Fatalf("NextURL = %q for IsTruncated %v", next, l.IsTruncated)
		}
		for _, o := range l.Objects {
			if len(o.MD5) != 0 && len(o.MD5) != 16 {
				t.Fatalf("MD5 of %d bytes", len(o.MD5))
			}
			got, err := ObjectURL(page, o.Key)
			if err != nil {
				t.Fatalf("ObjectURL(%q): %v", o.Key, err)
			}
			u, err := url.Parse(got)
			if err != nil || u.Path != "/bucket/"+o.Key || !strings.HasSuffix(got, "?sig=1") {
				t.Fatalf("ObjectURL(%q) = %q (%v), path %q", o.Key, got, err, u.Path)
			}
		}
	})
}

package resultsync

import (
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"strings"

	"github.com/barrage-dev/barrage/pkg/fortiojson"
	"github.com/barrage-dev/barrage/pkg/objlisting"
	"github.com/barrage-dev/barrage/pkg/version"
)

// fetcher reads URLs through the SSRF-safe client.
type fetcher struct {
	client *http.Client
}

// get returns the body at u, of at most limit bytes.
func (f fetcher) get(ctx context.Context, u string, limit int64) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, http.NoBody)
	if err != nil {
		return nil, fmt.Errorf("bad URL: %w", err)
	}
	req.Header.Set("User-Agent", "barrage-sync/"+version.String())
	resp, err := f.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("fetch: %w", unwrapURLError(err))
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("fetch: HTTP %s", resp.Status)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, fmt.Errorf("read body: %w", err)
	}
	if int64(len(body)) > limit {
		return nil, fmt.Errorf("the body is larger than %d bytes", limit)
	}
	return body, nil
}

// unwrapURLError drops net/http's "Get "<url>":" prefix, which repeats a
// URL that may carry a signature.
func unwrapURLError(err error) error {
	if ue, ok := err.(*url.Error); ok { //nolint:errorlint // only the outermost wrapper is dropped
		return ue.Err
	}
	return err
}

// listed is one object a listing names.
type listed struct {
	url  string
	size int64
	md5  []byte
}

// listing is what a walk of a source's listing found.
type listing struct {
	kind    Kind
	pages   int
	objects []listed
}

// list reads src's index.tsv, or every page of its bucket listing, up to
// its page and object limits. It returns what it found with an error when
// it could not read everything.
func (f fetcher) list(ctx context.Context, src Source, maxBytes int64) (listing, error) {
	var out listing
	body, err := f.get(ctx, src.URL, maxBytes)
	if err != nil {
		return out, fmt.Errorf("read %s: %w", displayURL(src.URL), err)
	}
	out.pages = 1
	switch {
	case fortiojson.IsIndex(body):
		out.kind = KindTSV
		// The byte limit bounds the index; max_objects only stops the sync
		// after its first entries, as for a bucket.
		entries, err := fortiojson.ParseIndex(body, math.MaxInt)
		if err != nil {
			return out, fmt.Errorf("index.tsv: %w", err)
		}
		more := len(entries) > src.MaxObjects
		for _, e := range entries[:min(len(entries), src.MaxObjects)] {
			out.objects = append(out.objects, listed{url: e.URL, size: e.Size, md5: e.MD5})
		}
		if more {
			return out, stoppedAtMaxObjects(src)
		}
		return out, nil
	case objlisting.IsListing(body):
		return f.bucket(ctx, src, body, maxBytes, out)
	}
	return out, fmt.Errorf("%s serves neither an index.tsv (first line %s) nor a bucket listing (ListBucketResult XML)",
		displayURL(src.URL), fortiojson.IndexHeader)
}

// bucket walks a bucket listing whose first page is body.
func (f fetcher) bucket(ctx context.Context, src Source, body []byte, maxBytes int64, out listing) (listing, error) {
	page := src.URL
	out.kind = KindS3V1
	for {
		// The byte limit bounds a page; max_objects may stop the sync
		// inside one.
		l, err := objlisting.Parse(body, math.MaxInt)
		if err != nil {
			return out, fmt.Errorf("listing page %d: %w", out.pages, err)
		}
		if l.V2 {
			out.kind = KindS3V2
		}
		room := src.MaxObjects - len(out.objects)
		more := len(l.Objects) > room
		for _, o := range l.Objects[:min(len(l.Objects), room)] {
			u, err := objlisting.ObjectURL(page, o.Key)
			if err != nil {
				return out, fmt.Errorf("object %q: %w", o.Key, err)
			}
			out.objects = append(out.objects, listed{url: u, size: o.Size, md5: o.MD5})
		}
		if more {
			return out, stoppedAtMaxObjects(src)
		}
		next, err := l.NextURL(page)
		switch {
		case err != nil:
			return out, fmt.Errorf("listing page %d: %w", out.pages, err)
		case next == "":
			return out, nil
		case len(out.objects) >= src.MaxObjects:
			return out, stoppedAtMaxObjects(src)
		case out.pages >= src.MaxPages:
			return out, fmt.Errorf("stopped at max_pages (%d); later pages were not read", src.MaxPages)
		}
		page = next
		if body, err = f.get(ctx, page, maxBytes); err != nil {
			return out, fmt.Errorf("listing page %d: %w", out.pages+1, err)
		}
		out.pages++
	}
}

// stoppedAtMaxObjects says a listing had more objects than src looks at.
func stoppedAtMaxObjects(src Source) error {
	return fmt.Errorf("stopped at max_objects (%d); later objects were not synced", src.MaxObjects)
}

// displayURL is u without its query, which may carry a signature.
func displayURL(u string) string {
	base, _, _ := strings.Cut(u, "?")
	return base
}

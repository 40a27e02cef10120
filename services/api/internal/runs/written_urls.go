package runs

import (
	"context"
	"fmt"
	"io"
	"strconv"

	"github.com/google/uuid"

	"github.com/barrage-dev/barrage/pkg/spec"
	"github.com/barrage-dev/barrage/services/api/internal/apperr"
	"github.com/barrage-dev/barrage/services/api/internal/auth"
	"github.com/barrage-dev/barrage/services/api/internal/policy"
)

// WrittenURLKey places a written URL in its run's list: its shard, the
// snapshot that carried it, and its place in that snapshot.
type WrittenURLKey struct {
	Shard int
	Seq   int64
	Idx   int
}

// WrittenURL is one URL of a successful write a run recorded.
type WrittenURL struct {
	Key WrittenURLKey
	URL string
}

// WrittenURLCounts says what became of a run's successful writes when it
// recorded their URLs (spec record_written_urls).
type WrittenURLCounts struct {
	// Stored is the URLs stored.
	Stored int64
	// Dropped is the successful writes without a stored URL: over the
	// bound of spec.MaxWrittenURLs, too long, or in a snapshot that was
	// lost. It is the 2xx answers to writes in the result's codes (the
	// write entries' with a request mix) less Stored.
	Dropped int64
}

// writtenURLPage is how many written URLs one read takes.
const writtenURLPage = 10_000

// successfulWrites returns the writes of a run that got a 2xx, from its
// result's codes: all of them when the run's method writes, or its write
// entries' with a request mix.
func successfulWrites(sp spec.Spec, res Result) int64 {
	if len(sp.Requests) == 0 {
		if !spec.IsWriteMethod(sp.Method) {
			return 0
		}
		return count2xx(res.RetCodes)
	}
	var n int64
	for _, e := range res.Entries {
		if e.Index >= 0 && e.Index < len(sp.Requests) && spec.IsWriteMethod(sp.Requests[e.Index].Method) {
			n += count2xx(e.RetCodes)
		}
	}
	return n
}

// count2xx adds the counts of the 2xx codes.
func count2xx(codes map[string]int64) int64 {
	var n int64
	for code, c := range codes {
		if v, err := strconv.Atoi(code); err == nil && v >= 200 && v <= 299 {
			n += c
		}
	}
	return n
}

// writtenURLCounts returns the counts of a run that records written URLs
// and has result res; nil for a run that does not.
func writtenURLCounts(ctx context.Context, st MeasureStore, r Run, res Result) (*WrittenURLCounts, error) {
	if !r.Spec.RecordWrittenURLs {
		return nil, nil
	}
	stored, err := st.WrittenURLCount(ctx, r.ID)
	if err != nil {
		return nil, fmt.Errorf("count written urls: %w", err)
	}
	return &WrittenURLCounts{Stored: stored, Dropped: max(successfulWrites(r.Spec, res)-stored, 0)}, nil
}

// WrittenURLs checks that the caller may view run id and that it records
// its written URLs (else NotFound), and returns the function that writes
// them to w, one per line, in order (by shard, then as they were sent),
// read from the store a page at a time. It may be called while the run is
// still going: what is stored so far.
func (m *Measures) WrittenURLs(ctx context.Context, p *auth.Principal, id uuid.UUID) (func(ctx context.Context, w io.Writer) error, error) {
	r, err := m.runs.Get(ctx, p, id)
	if err != nil {
		return nil, err
	}
	if !r.Spec.RecordWrittenURLs {
		return nil, apperr.New(apperr.NotFound, "run %s did not record its written URLs (spec record_written_urls)", id)
	}
	return func(ctx context.Context, w io.Writer) error {
		return eachWrittenURL(ctx, m.store, id, spec.MaxWrittenURLs, func(u WrittenURL) error {
			_, err := io.WriteString(w, u.URL+"\n")
			return err
		})
	}, nil
}

// writtenURLReader is the storage eachWrittenURL reads.
type writtenURLReader interface {
	WrittenURLs(ctx context.Context, runID uuid.UUID, after WrittenURLKey, limit int) ([]WrittenURL, error)
}

// eachWrittenURL calls fn with up to limit written URLs of run id, in
// order, a page at a time; it stops at fn's first error.
func eachWrittenURL(ctx context.Context, st writtenURLReader, id uuid.UUID, limit int, fn func(WrittenURL) error) error {
	var after WrittenURLKey
	for limit > 0 {
		page, err := st.WrittenURLs(ctx, id, after, min(writtenURLPage, limit))
		if err != nil {
			return err
		}
		for _, u := range page {
			if err := fn(u); err != nil {
				return err
			}
		}
		if len(page) < min(writtenURLPage, limit) {
			return nil
		}
		limit -= len(page)
		after = page[len(page)-1].Key
	}
	return nil
}

// withURLsFromRun resolves the urls_from_run of a checked spec of project
// (resolveURLsFromRun) and checks the spec again with its URLs, which must
// pass as any urls do; nothing without urls_from_run.
func (s *Service) withURLsFromRun(ctx context.Context, p *auth.Principal, project uuid.UUID, sp *spec.Spec, in Input,
	thresholds []string, o policy.Overrides,
) error {
	if sp.URLsFromRun == "" {
		return nil
	}
	if err := s.resolveURLsFromRun(ctx, p, project, sp); err != nil {
		return err
	}
	return s.checkInput(sp, in, thresholds, o)
}

// resolveURLsFromRun fills sp.URLs from sp.URLsFromRun: the written URLs
// of an ended run of project (that p, when not nil, may view), on sp.URL's
// scheme and host. An Invalid error on spec.urls_from_run says why not.
func (s *Service) resolveURLsFromRun(ctx context.Context, p *auth.Principal, project uuid.UUID, sp *spec.Spec) error {
	const field = "spec.urls_from_run"
	if sp.URLsFromRun == "" {
		return nil
	}
	id, err := uuid.Parse(sp.URLsFromRun)
	if err != nil { // Validate checked it
		return apperr.Invalidf(field, "must be a run id (a UUID)")
	}
	src, err := s.store.GetRun(ctx, id)
	switch {
	case apperr.Is(err, apperr.NotFound) || (err == nil && (src.ProjectID != project || (p != nil && !p.Can(project, auth.Viewer)))):
		return apperr.Invalidf(field, "run %s is not a run of this project", id)
	case err != nil:
		return fmt.Errorf("read run %s: %w", id, err)
	case !src.Spec.RecordWrittenURLs:
		return apperr.Invalidf(field, "run %s did not record its written URLs (record_written_urls)", id)
	case !src.Status.Terminal():
		return apperr.Invalidf(field, "run %s is %s; its written URLs are complete once it has ended", id, src.Status)
	}
	n, err := s.store.WrittenURLCount(ctx, id)
	switch {
	case err != nil:
		return fmt.Errorf("count written urls of run %s: %w", id, err)
	case n == 0:
		return apperr.Invalidf(field, "run %s has no written URLs: it made no successful write", id)
	case n > spec.MaxURLs:
		return apperr.Invalidf(field, "run %s has %d written URLs; a URL list holds at most %d", id, n, spec.MaxURLs)
	}
	urls := make([]string, 0, n)
	if err := eachWrittenURL(ctx, s.store, id, spec.MaxURLs, func(u WrittenURL) error {
		urls = append(urls, spec.Rebase(sp.URL, u.URL))
		return nil
	}); err != nil {
		return fmt.Errorf("read written urls of run %s: %w", id, err)
	}
	sp.URLs, sp.URLsFromRun = urls, id.String()
	return nil
}

package httpapi

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"

	"github.com/google/uuid"
)

// GetRunWrittenUrls implements GET /runs/{run}/written-urls.
func (s *server) GetRunWrittenUrls(ctx context.Context, req GetRunWrittenUrlsRequestObject) (GetRunWrittenUrlsResponseObject, error) {
	ctx = requestContext(ctx)
	write, err := s.svc.Measures.WrittenURLs(ctx, principal(ctx), req.Run)
	if err != nil {
		return nil, err
	}
	return writtenURLsResponse{ctx: ctx, run: req.Run, write: write}, nil
}

// writtenURLsResponse streams a run's written URLs as text, read from the
// store a page at a time rather than held whole (up to 1,000,000 lines).
type writtenURLsResponse struct {
	ctx   context.Context //nolint:containedctx // the request's, for the store reads done while writing
	run   uuid.UUID
	write func(ctx context.Context, w io.Writer) error
}

// VisitGetRunWrittenUrlsResponse implements GetRunWrittenUrlsResponseObject.
func (r writtenURLsResponse) VisitGetRunWrittenUrlsResponse(w http.ResponseWriter) error {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Content-Disposition", fmt.Sprintf("attachment; filename=barrage-%s-written-urls.txt", r.run))
	w.WriteHeader(http.StatusOK)
	bw := bufio.NewWriterSize(w, 64<<10)
	if err := r.write(r.ctx, bw); err != nil {
		return fmt.Errorf("written urls of run %s: %w", r.run, err)
	}
	return bw.Flush() //nolint:wrapcheck // the client went away
}

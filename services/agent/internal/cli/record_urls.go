package cli

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"

	"github.com/barrage-dev/barrage/services/agent/internal/engine"
)

// urlRecorder is the sink of -record-urls: it keeps the written URLs of
// every snapshot, hands the snapshot on, and writes the URLs to its file
// at the end.
type urlRecorder struct {
	next engine.Sink
	file *os.File
	urls []string
}

// newURLRecorder creates name (so that a path that cannot be written fails
// before the load) and returns the sink in front of next; nil for "".
func newURLRecorder(name string, next engine.Sink) (*urlRecorder, error) {
	if name == "" {
		return nil, nil
	}
	file, err := os.Create(name) //nolint:gosec // the output file the user named
	if err != nil {
		return nil, err
	}
	return &urlRecorder{next: next, file: file}, nil
}

// Publish implements engine.Sink.
func (u *urlRecorder) Publish(ctx context.Context, s *engine.Snapshot) error {
	u.urls = append(u.urls, s.WrittenURLs...)
	return u.next.Publish(ctx, s)
}

// save writes the URLs, one per line, and says how many on out unless
// quiet. Nothing for a nil recorder.
func (u *urlRecorder) save(final *engine.Snapshot, quiet bool, out io.Writer) error {
	if u == nil {
		return nil
	}
	w := bufio.NewWriter(u.file)
	for _, url := range u.urls {
		_, _ = w.WriteString(url)
		_ = w.WriteByte('\n')
	}
	err := w.Flush()
	if cerr := u.file.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", u.file.Name(), err)
	}
	if !quiet {
		msg := fmt.Sprintf("barrage-agent load: %d written URLs in %s", len(u.urls), u.file.Name())
		if final.URLsDropped > 0 {
			msg += fmt.Sprintf(" (%d more writes not recorded: over the limit or too long)", final.URLsDropped)
		}
		_, _ = fmt.Fprintln(out, msg)
	}
	return nil
}

// discard closes the file of a run that failed; nil-safe.
func (u *urlRecorder) discard() {
	if u != nil {
		_ = u.file.Close()
	}
}

//go:build unix

package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"syscall"
)

// claimCredentials takes the first credentials file in dir (*.creds, by
// name) that no other agent holds: it keeps the file open with an
// exclusive flock for the life of the process, so agents of one stack
// sharing a directory of credentials (docker compose --scale) each get
// their own. It returns the file's path and contents.
func claimCredentials(dir string) (string, []byte, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.creds"))
	if err != nil {
		return "", nil, fmt.Errorf("-creds-dir: %w", err)
	}
	if len(paths) == 0 {
		return "", nil, fmt.Errorf("-creds-dir %s: no *.creds files", dir)
	}
	slices.Sort(paths)
	for _, p := range paths {
		f, err := os.Open(p) //nolint:gosec // files of the directory the operator names
		if err != nil {
			return "", nil, fmt.Errorf("-creds-dir: %w", err)
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil { // a file descriptor fits an int
			_ = f.Close()
			if errors.Is(err, syscall.EWOULDBLOCK) {
				continue
			}
			return "", nil, fmt.Errorf("-creds-dir: lock %s: %w", p, err)
		}
		b, err := io.ReadAll(f)
		if err != nil {
			_ = f.Close()
			return "", nil, fmt.Errorf("-creds-dir: read %s: %w", p, err)
		}
		// f stays open, and locked, until the process exits.
		return p, b, nil
	}
	return "", nil, fmt.Errorf("-creds-dir %s: all %d credentials are held by other agents; issue more (nats-auth bootstrap -agents)", dir, len(paths))
}

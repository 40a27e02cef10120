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
// name) that no other agent holds: the file stays open with an exclusive
// flock, so agents of one stack sharing a directory of credentials (docker
// compose --scale) each get their own. The claim lasts while the returned
// lock is open and reachable: the caller keeps it until the process ends.
func claimCredentials(dir string) (heldCredentials, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.creds"))
	if err != nil {
		return heldCredentials{}, fmt.Errorf("-creds-dir: %w", err)
	}
	if len(paths) == 0 {
		return heldCredentials{}, fmt.Errorf("-creds-dir %s: no *.creds files", dir)
	}
	slices.Sort(paths)
	for _, p := range paths {
		f, err := os.Open(p) //nolint:gosec // files of the directory the operator names
		if err != nil {
			return heldCredentials{}, fmt.Errorf("-creds-dir: %w", err)
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil { // a file descriptor fits an int
			_ = f.Close()
			if errors.Is(err, syscall.EWOULDBLOCK) {
				continue
			}
			return heldCredentials{}, fmt.Errorf("-creds-dir: lock %s: %w", p, err)
		}
		b, err := io.ReadAll(f)
		if err != nil {
			_ = f.Close()
			return heldCredentials{}, fmt.Errorf("-creds-dir: read %s: %w", p, err)
		}
		return heldCredentials{path: p, creds: b, lock: f}, nil
	}
	return heldCredentials{}, fmt.Errorf("-creds-dir %s: all %d credentials are held by other agents; issue more (nats-auth bootstrap -agents)", dir, len(paths))
}

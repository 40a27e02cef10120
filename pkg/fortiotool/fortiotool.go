// Package fortiotool locates the fortio binary that interop tests and
// benchmarks drive (v1.68.2, installed by `make tools` into .tools/bin). It
// does not run fortio.
package fortiotool

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
)

// ErrNotFound says how to get the binary.
var ErrNotFound = errors.New("fortio binary not found: run `make tools` (installs fortio v1.68.2 into .tools/bin) or set FORTIO_BIN")

// Find returns the path of fortio: $FORTIO_BIN, else .tools/bin/fortio in the
// working directory or a parent, else fortio on $PATH.
func Find() (string, error) {
	if p := os.Getenv("FORTIO_BIN"); p != "" {
		return p, nil
	}
	dir, err := os.Getwd()
	if err == nil {
		for ; dir != filepath.Dir(dir); dir = filepath.Dir(dir) {
			p := filepath.Join(dir, ".tools", "bin", "fortio")
			if _, err := os.Stat(p); err == nil {
				return p, nil
			}
		}
	}
	if p, err := exec.LookPath("fortio"); err == nil {
		return p, nil
	}
	return "", ErrNotFound
}

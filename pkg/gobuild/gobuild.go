// Package gobuild builds this repository's programs for tests that run them
// as separate processes, with the flags of make build, scripts/ci-images and
// .goreleaser.yaml: static (CGO_ENABLED=0) and -trimpath. One set of flags
// lets make test compile each package once for the binaries its tests run,
// the images it builds and the release it checks, where a build with cgo
// and full paths compiled every package a second time.
package gobuild

import (
	"fmt"
	"os"
	"os/exec"
)

// Build builds the Go package pkg (an import path) into the file out.
func Build(out, pkg string) error {
	cmd := exec.Command("go", "build", "-trimpath", "-o", out, pkg) //nolint:gosec // G204: out and pkg come from the calling test, not from input
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build %s: %w: %s", pkg, err, b)
	}
	return nil
}

// Package version reports the version of the running Barrage binary: the values
// stamped at link time (release builds, .goreleaser.yaml and deploy/docker:
// -ldflags "-X github.com/barrage-dev/barrage/pkg/version.stamp=v1.2.3 -X ...commit=SHA -X ...date=RFC3339"),
// else the module version and VCS revision and time Go recorded in the binary.
package version

import (
	"fmt"
	"runtime"
	"runtime/debug"
)

// Set by the linker for release builds; never written at run time.
var (
	stamp  string //nolint:gochecknoglobals // link-time constant (-ldflags -X)
	commit string //nolint:gochecknoglobals // link-time constant (-ldflags -X)
	date   string //nolint:gochecknoglobals // link-time constant (-ldflags -X)
)

// String returns the version, "devel" when nothing better is known.
func String() string {
	if stamp != "" {
		return stamp
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "devel"
	}
	v := info.Main.Version
	if v == "" || v == "(devel)" {
		v = "devel"
	}
	if rev := setting(info, "vcs.revision"); len(rev) >= 12 {
		return v + "+" + rev[:12]
	}
	return v
}

// Commit returns the VCS revision the binary was built from, "unknown"
// when it was not recorded.
func Commit() string {
	if commit != "" {
		return commit
	}
	if info, ok := debug.ReadBuildInfo(); ok {
		if rev := setting(info, "vcs.revision"); rev != "" {
			return rev
		}
	}
	return "unknown"
}

// Date returns when the binary was built (a release) or when its commit
// was made (a go build from a checkout), "unknown" when neither is known.
func Date() string {
	if date != "" {
		return date
	}
	if info, ok := debug.ReadBuildInfo(); ok {
		if t := setting(info, "vcs.time"); t != "" {
			return t
		}
	}
	return "unknown"
}

// Line is what `NAME version` and `NAME -version` print: the program, its
// version, commit and date, and the Go version and platform.
func Line(program string) string {
	return fmt.Sprintf("%s %s (commit %s, built %s, %s %s/%s)", program, String(), Commit(), Date(),
		runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

// Requested reports whether args (without the program name) ask only for
// the version: "version", "-version" or "--version".
func Requested(args []string) bool {
	if len(args) != 1 {
		return false
	}
	switch args[0] {
	case "version", "-version", "--version":
		return true
	}
	return false
}

// setting returns the build setting key, or "".
func setting(info *debug.BuildInfo, key string) string {
	for _, s := range info.Settings {
		if s.Key == key {
			return s.Value
		}
	}
	return ""
}

// Package version reports the version of the running Barrage binary: the value
// stamped at link time (-ldflags "-X github.com/barrage-dev/barrage/pkg/version.stamp=v1.2.3"),
// else the module version and VCS revision Go recorded in the binary.
package version

import "runtime/debug"

// stamp is set by the linker for release builds; it is never written at run time.
var stamp string //nolint:gochecknoglobals // link-time constant (-ldflags -X)

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
	for _, s := range info.Settings {
		if s.Key == "vcs.revision" && len(s.Value) >= 12 {
			return v + "+" + s.Value[:12]
		}
	}
	return v
}

// Package interop_test drives the real fortio binary (v1.68.2, installed by
// `make tools` into .tools/bin) against an in-process barrage-echo and asserts on
// fortio's own JSON output. Without the binary the tests fail and say how to get it:
// CI must never pass by skipping.
package interop_test

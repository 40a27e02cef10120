//go:build accuracy

// Package accuracy_test checks the agent's numbers against the real barrage-echo
// binary on loopback: latency percentiles, coordinated-omission correction,
// pacing, every protocol's codes and bytes, and that fortio reads our Fortio JSON.
// The tests have tolerances, not speed goals, and need a quiet machine: `make
// accuracy` (part of `make test`) runs them one package at a time without -race.
// They are behind the accuracy build tag so `go test -race ./...` does not run
// them alongside other packages.
package accuracy_test

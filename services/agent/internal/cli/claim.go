package cli

import "io"

// heldCredentials are the credentials file an agent took from a shared
// directory (claimCredentials): its path, its contents, and the open file
// whose flock is the claim. Keep lock reachable, and open, for as long as
// the credentials are used: an unreachable *os.File is closed by its
// finalizer at a garbage collection, and the lock goes with it, so that
// the next agent of the stack would take the same credentials.
type heldCredentials struct {
	path  string
	creds []byte
	lock  io.Closer
}

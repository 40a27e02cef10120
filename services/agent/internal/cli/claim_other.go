//go:build !unix

package cli

import "errors"

// claimCredentials needs flock, which this platform lacks: use -creds.
func claimCredentials(string) (heldCredentials, error) {
	return heldCredentials{}, errors.New("-creds-dir needs a Unix system; give the agent its file with -creds")
}

//go:build !unix

package httpclient

import "net"

// withRawIO returns conn: off Unix the TLS client uses it as it is.
func withRawIO(conn net.Conn) net.Conn { return conn }

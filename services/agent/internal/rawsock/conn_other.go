//go:build !unix

package rawsock

import "net"

// Wrap returns conn: off Unix sockets are read and written as net does.
func Wrap(conn net.Conn) net.Conn { return conn }

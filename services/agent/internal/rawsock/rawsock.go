// Package rawsock reads and writes the agent's TCP and unix sockets with
// raw system calls (syscall.RawSyscall on the non-blocking fd), waiting on
// the runtime's poller only when a socket is not ready. A call announced
// to the scheduler (syscall.Read, syscall.Write, which net's own Read and
// Write make) lets sysmon hand the caller's P to another thread when the
// call outlasts its 20 µs tick. On loopback a write runs the receiver's
// side of the TCP stack in the caller and often does: with one P that is a
// futex wake-up and context switches every few requests, for nothing.
//
// Wrap puts a connection behind these calls; the HTTP/1.1 client
// (package httpclient) wraps every socket it dials, gRPC (grpcclient) and
// HTTP/2 (h2client) the sockets beneath their transports. ReadOnce and
// WriteSome are the calls themselves, for a syscall.RawConn callback of a
// caller's own.
package rawsock

import "syscall"

// Raw is a connection made by Wrap: its raw connection, whose callbacks
// may use ReadOnce and WriteSome on the socket directly.
type Raw interface{ RawConn() syscall.RawConn }

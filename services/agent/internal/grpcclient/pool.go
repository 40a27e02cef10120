package grpcclient

import (
	"fmt"
	"sync"

	"google.golang.org/grpc"
)

// connPool shares one grpc.ClientConn among the clients of consecutive
// connection indexes, streams at a time (Fortio's -s): clients 0..s-1 use
// connection 0, s..2s-1 connection 1, and so on. A connection is closed when
// the last of its clients is.
type connPool struct {
	streams int
	dial    func() (*grpc.ClientConn, error)

	mu    sync.Mutex
	conns map[int]*sharedConn
}

// sharedConn is one HTTP/2 connection and the number of open clients on it.
type sharedConn struct {
	group int
	cc    *grpc.ClientConn
	refs  int
}

func newConnPool(streams int, dial func() (*grpc.ClientConn, error)) *connPool {
	return &connPool{streams: streams, dial: dial, conns: map[int]*sharedConn{}}
}

// acquire returns the connection of client index i, opening it for the
// first client of its group.
func (p *connPool) acquire(i int) (*sharedConn, error) {
	group := i / p.streams
	p.mu.Lock()
	defer p.mu.Unlock()
	sc := p.conns[group]
	if sc == nil {
		cc, err := p.dial()
		if err != nil {
			return nil, err
		}
		sc = &sharedConn{group: group, cc: cc}
		p.conns[group] = sc
	}
	sc.refs++
	return sc, nil
}

// release drops one client of sc and closes the connection with its last
// client, failing the calls still in progress on it.
func (p *connPool) release(sc *sharedConn) error {
	p.mu.Lock()
	sc.refs--
	last := sc.refs == 0
	if last {
		delete(p.conns, sc.group)
	}
	p.mu.Unlock()
	if !last {
		return nil
	}
	if err := sc.cc.Close(); err != nil {
		return fmt.Errorf("close grpc connection: %w", err)
	}
	return nil
}

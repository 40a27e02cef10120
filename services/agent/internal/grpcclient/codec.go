package grpcclient

import (
	"fmt"

	"google.golang.org/grpc/mem"
)

// rawMessage is a request already in protobuf binary form: rawCodec sends
// its bytes as they are, so a call does not marshal anything.
type rawMessage []byte

// rawReply receives the size of a response, which is not decoded.
type rawReply struct{ n int }

// rawCodec is the codec of method mode's calls. It is named "proto" so that
// the content type stays application/grpc+proto, which every server accepts.
type rawCodec struct{}

// Marshal implements encoding.CodecV2: the request's bytes, shared by all
// calls (a SliceBuffer is never written to nor recycled).
func (rawCodec) Marshal(v any) (mem.BufferSlice, error) {
	m, ok := v.(*rawMessage)
	if !ok {
		return nil, fmt.Errorf("raw codec: cannot send %T", v)
	}
	return mem.BufferSlice{mem.SliceBuffer(*m)}, nil
}

// Unmarshal implements encoding.CodecV2: it records the response's size.
func (rawCodec) Unmarshal(data mem.BufferSlice, v any) error {
	r, ok := v.(*rawReply)
	if !ok {
		return fmt.Errorf("raw codec: cannot receive into %T", v)
	}
	r.n = data.Len()
	return nil
}

// Name implements encoding.CodecV2.
func (rawCodec) Name() string { return "proto" }

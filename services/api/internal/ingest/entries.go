package ingest

import (
	"fmt"
	"math"

	"github.com/barrage-dev/barrage/pkg/hist"
	"github.com/barrage-dev/barrage/pkg/spec"
	barragev1 "github.com/barrage-dev/barrage/proto/barrage/v1"
	"github.com/barrage-dev/barrage/services/api/internal/runs"
)

// entry is one request-mix entry's part of a snapshot or of a merge.
type entry struct {
	count, errors, bytesSent, bytesReceived int64
	codes                                   map[string]int64
	service, response                       *hist.Histogram
}

func newEntry() *entry {
	return &entry{codes: map[string]int64{}, service: hist.New(), response: hist.New()}
}

// entriesFromProto checks and decodes a snapshot's entries, by index.
func entriesFromProto(list []*barragev1.EntryResult) (map[int]*entry, error) {
	if len(list) == 0 {
		return nil, nil
	}
	if len(list) > spec.MaxRequests {
		return nil, fmt.Errorf("%d entries: at most %d", len(list), spec.MaxRequests)
	}
	out := make(map[int]*entry, len(list))
	for _, m := range list {
		i := int(m.GetIndex())
		if m.GetIndex() >= spec.MaxRequests || out[i] != nil {
			return nil, fmt.Errorf("entry index %d out of range or repeated", m.GetIndex())
		}
		e := newEntry()
		for _, c := range []struct {
			v   uint64
			dst *int64
		}{{m.GetCount(), &e.count}, {m.GetErrors(), &e.errors}, {m.GetBytesSent(), &e.bytesSent}, {m.GetBytesReceived(), &e.bytesReceived}} {
			if c.v > math.MaxInt64 {
				return nil, fmt.Errorf("entry %d: counter %d out of range", i, c.v)
			}
			*c.dst = int64(c.v)
		}
		for code, n := range m.GetRetCodes() {
			if n > math.MaxInt64 {
				return nil, fmt.Errorf("entry %d: ret code %q count out of range", i, code)
			}
			e.codes[code] = int64(n)
		}
		var err error
		if e.service, err = decodeHist(m.GetServiceHdr()); err != nil {
			return nil, fmt.Errorf("entry %d service_hdr: %w", i, err)
		}
		if e.response, err = decodeHist(m.GetResponseHdr()); err != nil {
			return nil, fmt.Errorf("entry %d response_hdr: %w", i, err)
		}
		out[i] = e
	}
	return out, nil
}

// add merges o into e.
func (e *entry) add(o *entry) error {
	e.count += o.count
	e.errors += o.errors
	e.bytesSent += o.bytesSent
	e.bytesReceived += o.bytesReceived
	addCodes(e.codes, o.codes)
	if err := e.service.Merge(o.service); err != nil {
		return err
	}
	return e.response.Merge(o.response)
}

// mergeEntries adds a snapshot's entries into dst, creating what is missing.
func mergeEntries(dst, add map[int]*entry) (map[int]*entry, error) {
	for i, e := range add {
		if dst == nil {
			dst = map[int]*entry{}
		}
		if dst[i] == nil {
			dst[i] = newEntry()
		}
		if err := dst[i].add(e); err != nil {
			return nil, fmt.Errorf("entry %d: %w", i, err)
		}
	}
	return dst, nil
}

// entryResults encodes merged entries in index order.
func entryResults(m map[int]*entry) ([]runs.EntryResult, error) {
	if len(m) == 0 {
		return nil, nil
	}
	out := make([]runs.EntryResult, 0, len(m))
	for i := range spec.MaxRequests {
		e := m[i]
		if e == nil {
			continue
		}
		service, err := e.service.Encode()
		if err != nil {
			return nil, err
		}
		response, err := e.response.Encode()
		if err != nil {
			return nil, err
		}
		out = append(out, runs.EntryResult{
			Index: i, Count: e.count, Errors: e.errors, RetCodes: e.codes, BytesSent: e.bytesSent,
			BytesReceived: e.bytesReceived, Service: service, Response: response,
		})
	}
	return out, nil
}

package httpecho

import (
	"sync"

	fault "github.com/barrage-dev/barrage/pkg/echofault"
)

// maxCachedQueries bounds the parsed-query cache; load tests reuse a handful of URLs.
const maxCachedQueries = 1024

// paramCache maps raw query strings to their parsed parameters, so a load test
// hitting the same URL does not parse its query on every request. It is emptied
// when full, which keeps it bounded against clients that vary the query.
type paramCache struct {
	mu      sync.RWMutex
	entries map[string]*fault.Params
}

func (c *paramCache) get(raw string) *fault.Params {
	c.mu.RLock()
	p := c.entries[raw]
	c.mu.RUnlock()
	return p
}

// getBytes is get for a raw query held in a byte slice; the map lookup with a
// converted key does not allocate.
func (c *paramCache) getBytes(raw []byte) *fault.Params {
	c.mu.RLock()
	p := c.entries[string(raw)]
	c.mu.RUnlock()
	return p
}

func (c *paramCache) put(raw string, p *fault.Params) {
	c.mu.Lock()
	if c.entries == nil || len(c.entries) >= maxCachedQueries {
		c.entries = make(map[string]*fault.Params, 64)
	}
	c.entries[raw] = p
	c.mu.Unlock()
}

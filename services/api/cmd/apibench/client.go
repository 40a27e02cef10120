package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"sync/atomic"
	"time"
)

// runBody is the body of every POST /runs: an inline spec in the default
// project with one label.
const runBody = `{"project":"default","spec":{"url":"http://127.0.0.1:8088/","qps":100,"duration":"10s"},"labels":{"bench":"api"}}`

// client talks to the API over one http.Transport: one pool of keep-alive
// connections shared by every request, counting the connections it opens.
type client struct {
	base  string // http://127.0.0.1:PORT/api/v1
	auth  string
	tr    *http.Transport
	hc    *http.Client
	dials atomic.Int64
}

// newClient returns a client keeping up to pool idle connections.
func newClient(base, token string, pool int) *client {
	c := &client{base: base + "/api/v1", auth: "Bearer " + token}
	d := &net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}
	c.tr = &http.Transport{
		Proxy: nil, // loopback: never through HTTP_PROXY
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			c.dials.Add(1)
			return d.DialContext(ctx, network, addr)
		},
		MaxIdleConns:        pool + 1,
		MaxIdleConnsPerHost: pool + 1, // the default, 2, would close and reopen connections under 8 workers
		IdleConnTimeout:     90 * time.Second,
		DisableCompression:  true,
	}
	c.hc = &http.Client{Transport: c.tr, Timeout: 30 * time.Second}
	return c
}

// close drops the idle connections.
func (c *client) close() { c.tr.CloseIdleConnections() }

// do sends one request and reads the whole response. lat runs from the
// send to the last byte of the body.
func (c *client) do(ctx context.Context, method, pathQuery string, body []byte) (status int, data []byte, lat time.Duration, err error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+pathQuery, rd)
	if err != nil {
		return 0, nil, 0, fmt.Errorf("%s %s: %w", method, pathQuery, err)
	}
	req.Header.Set("Authorization", c.auth)
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	start := time.Now()
	resp, err := c.hc.Do(req)
	if err != nil {
		return 0, nil, 0, fmt.Errorf("%s %s: %w", method, pathQuery, err)
	}
	data, err = io.ReadAll(resp.Body)
	lat = time.Since(start)
	_ = resp.Body.Close()
	if err != nil {
		return 0, nil, 0, fmt.Errorf("%s %s: read the body: %w", method, pathQuery, err)
	}
	return resp.StatusCode, data, lat, nil
}

// listPage is the part of a page of runs the bench reads. Unlike its other
// answers it is not decoded into services/api/client's RunPage: fifty whole
// runs per page would add their decoding to every list worker's loop.
type listPage struct {
	Items []struct {
		ID string `json:"id"`
	} `json:"items"`
	NextCursor string `json:"next_cursor"`
}

// list fetches one page of GET /runs with query q.
func (c *client) list(ctx context.Context, q url.Values) (listPage, time.Duration, error) {
	status, data, lat, err := c.do(ctx, http.MethodGet, "/runs?"+q.Encode(), nil)
	if err != nil {
		return listPage{}, 0, err
	}
	if status != http.StatusOK {
		return listPage{}, 0, fmt.Errorf("GET /runs?%s: status %d: %s", q.Encode(), status, snippet(data))
	}
	var p listPage
	if err := json.Unmarshal(data, &p); err != nil {
		return listPage{}, 0, fmt.Errorf("GET /runs?%s: decode: %w", q.Encode(), err)
	}
	return p, lat, nil
}

// createRun sends one POST /runs with runBody.
func (c *client) createRun(ctx context.Context) (status int, data []byte, lat time.Duration, err error) {
	return c.do(ctx, http.MethodPost, "/runs", []byte(runBody))
}

// snippet returns the start of a response body for an error message.
func snippet(b []byte) string {
	const n = 300
	if len(b) > n {
		return string(b[:n]) + "..."
	}
	return string(b)
}

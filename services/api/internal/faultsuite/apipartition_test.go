//go:build faults

package faultsuite

import (
	"net"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestAPISilentlyPartitionedFromNATSThenPostgres: the API and the echo
// each on a test host of its own; 1 s into the suite's run every packet between it and
// nats-server is dropped for 30 s (iptables DROP in its namespace: no
// reset, its connections stay open), then every packet between it and
// Postgres for 30 s. Each time /readyz answers 503 within 5 s and 200
// again within 60 s of the heal (docs/reliability.md §7); the agents run
// on, their snapshots wait in JetStream, ingest resumes, and the run
// completes whole within its deadline, 30 s and the two partitions: not
// degraded, every shard's count its agent's, the seconds summing to the
// result, the echo's count matching it.
func TestAPISilentlyPartitionedFromNATSThenPostgres(t *testing.T) {
	const cut = 30 * time.Second
	h, echo := newTestHost(t), newTestHost(t)
	// The agents stay in the root namespace, which reaches the echo's host
	// over its link; nats-server and Postgres listen on the API host's
	// root side, where the API reaches them.
	s := startStackWith(t, stackConfig{replicas: 1, agents: 2, listenHost: h.rootIP, apiHost: h, echoOn: echo})
	s.allowTargets(t, echo.ip)
	before, _ := s.echoCount()
	submitted := time.Now()
	r := s.submit(t, qps, 2, length)
	id := r.Id.String()
	s.waitRunning(t, id, 2)
	time.Sleep(time.Second)
	for _, dep := range []struct{ name, addr string }{
		{"NATS", strings.TrimPrefix(s.natsURL, "nats://")},
		{"Postgres", net.JoinHostPort(s.pg.host, strconv.Itoa(s.pg.port))},
	} {
		cutAt := time.Now()
		heal := h.drop(t, dep.addr)
		waitFor(t, 5*time.Second, "the API not ready while partitioned from "+dep.name, func() error {
			if s.ready(s.apiURL) == nil {
				return errStillReady
			}
			return nil
		})
		t.Logf("%s: /readyz 503 %s after the partition", dep.name, time.Since(cutAt).Round(10*time.Millisecond))
		time.Sleep(time.Until(cutAt.Add(cut)))
		if h.dropped(t) == 0 {
			t.Errorf("the partition from %s dropped no packet", dep.name)
		}
		heal()
		healedAt := time.Now()
		waitFor(t, 60*time.Second, "the API ready again after the partition from "+dep.name, func() error { return s.ready(s.apiURL) })
		t.Logf("%s: /readyz 200 %s after the heal", dep.name, time.Since(healedAt).Round(10*time.Millisecond))
	}
	r = s.waitTerminal(t, id, time.Until(submitted.Add(bound+2*cut)))
	t.Logf("run terminal %s after submission", time.Since(submitted).Round(100*time.Millisecond))
	s.checkWhole(t, r, before)
}

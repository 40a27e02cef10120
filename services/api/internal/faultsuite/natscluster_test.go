//go:build faults || soak

package faultsuite

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// natsNode is one server of a three-node JetStream cluster; its process
// restarts with the same name, ports and store.
type natsNode struct {
	p       *proc
	monitor string // base URL of its monitoring port
}

// newNATSCluster starts three nats-servers as one JetStream cluster, each
// with its own store, client, route and monitoring ports, and waits until
// every node is healthy (JetStream meta leader known). With alone, only
// the first node starts, a cluster without a quorum (startRest starts the
// others). It returns the nodes and the comma-separated client URLs the
// API and agents dial.
func newNATSCluster(t *testing.T, alone bool) ([]*natsNode, string) {
	t.Helper()
	const n = 3
	var client, cluster, monitor [n]int
	var routes, urls []string
	for i := range n {
		client[i], cluster[i], monitor[i] = freePort(t), freePort(t), freePort(t)
		routes = append(routes, fmt.Sprintf("nats://127.0.0.1:%d", cluster[i]))
		urls = append(urls, fmt.Sprintf("nats://127.0.0.1:%d", client[i]))
	}
	nodes := make([]*natsNode, n)
	for i := range n {
		name := fmt.Sprintf("nats-%d", i)
		p := newProc(t, name, natsServerBin(t), []string{
			"-a", "127.0.0.1", "-p", strconv.Itoa(client[i]), "-m", strconv.Itoa(monitor[i]),
			"-js", "-sd", t.TempDir(), "--server_name", name,
			"--cluster_name", "barrage", "--cluster", fmt.Sprintf("nats://127.0.0.1:%d", cluster[i]),
			"--routes", strings.Join(routes, ","),
		}, nil)
		nodes[i] = &natsNode{p: p, monitor: fmt.Sprintf("http://127.0.0.1:%d", monitor[i])}
	}
	nodes[0].p.start(t)
	if !alone {
		startRest(t, nodes)
	}
	return nodes, strings.Join(urls, ",")
}

// startRest starts every node but the first and waits until all are
// healthy.
func startRest(t *testing.T, nodes []*natsNode) {
	t.Helper()
	for _, nd := range nodes[1:] {
		nd.p.start(t)
	}
	for _, nd := range nodes {
		nd.waitHealthy(t)
	}
}

// healthy is nil when the node answers /healthz 200: it is connected to
// the cluster, knows the meta leader, and its streams and consumers are
// current.
func (nd *natsNode) healthy() error {
	resp, err := http.Get(nd.monitor + "/healthz")
	if err != nil {
		return err
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("/healthz %d", resp.StatusCode)
	}
	return nil
}

func (nd *natsNode) waitHealthy(t *testing.T) {
	t.Helper()
	waitFor(t, 60*time.Second, nd.p.name+" healthy", nd.healthy)
}

// restart stops the node with sig (SIGTERM: a graceful stop; SIGKILL: a
// crash), starts it again on its store and waits until it has caught up.
func (nd *natsNode) restart(t *testing.T, sig syscall.Signal, down time.Duration) {
	t.Helper()
	nd.p.signal(t, sig, 30*time.Second)
	time.Sleep(down)
	nd.p.start(t)
	nd.waitHealthy(t)
}

//go:build faults || soak

package faultsuite

import (
	"fmt"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// testNet is the private range the suite's test hosts take their links
// from, one /24 each: 10.231.N.0/24, the root side .1, the host .2.
const testNet = "10.231."

// testHost is a network namespace of the test's own, a host of the suite
// (issue #26, docs/reliability.md): a veth pair links it to the root
// namespace, where the rest of the stack runs. Processes started with
// host.proc run inside it; rules added with host.iptables filter its
// traffic only, so a test can drop packets on one link and nowhere else.
type testHost struct {
	name   string // of the namespace
	rootIP string // the root side of the veth: where the host reaches the stack
	ip     string // the host's side
	ipBin  string
}

// hostSlots guards the /24s this test binary took.
var hostSlots struct {
	sync.Mutex
	taken map[int]bool
}

// newTestHost creates a namespace with lo up and a veth pair to the root
// namespace, removed in t.Cleanup whatever the test's outcome. It skips the
// test when it does not run as root or the machine has no `ip netns`.
func newTestHost(t *testing.T) *testHost {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("test hosts need root: network namespaces, veth pairs and iptables (CI runs as root)")
	}
	ipBin := sbin("ip")
	if ipBin == "" {
		t.Skip("no ip command (iproute2): cannot make test hosts")
	}
	if b, err := exec.Command(ipBin, "netns", "list").CombinedOutput(); err != nil {
		t.Skipf("ip netns is not available: %v: %s", err, b)
	}
	if sbin("iptables") == "" {
		t.Fatal("no iptables: install it (.ci/run does) to drop packets between test hosts")
	}
	n := freeSlot(t)
	h := &testHost{
		name:   fmt.Sprintf("barrage-ft-%d-%d", os.Getpid(), n),
		rootIP: testNet + strconv.Itoa(n) + ".1",
		ip:     testNet + strconv.Itoa(n) + ".2",
		ipBin:  ipBin,
	}
	rootEnd, hostEnd := fmt.Sprintf("bft%dr", n), fmt.Sprintf("bft%dh", n)
	t.Cleanup(func() {
		_ = exec.Command(ipBin, "netns", "del", h.name).Run() // takes the veth pair with it
		_ = exec.Command(ipBin, "link", "del", rootEnd).Run()
		hostSlots.Lock()
		delete(hostSlots.taken, n)
		hostSlots.Unlock()
	})
	for _, args := range [][]string{
		{"netns", "add", h.name},
		{"link", "add", rootEnd, "type", "veth", "peer", "name", hostEnd},
		{"link", "set", hostEnd, "netns", h.name},
		{"addr", "add", h.rootIP + "/24", "dev", rootEnd},
		{"link", "set", rootEnd, "up"},
		{"-n", h.name, "addr", "add", h.ip + "/24", "dev", hostEnd},
		{"-n", h.name, "link", "set", hostEnd, "up"},
		{"-n", h.name, "link", "set", "lo", "up"},
	} {
		if b, err := exec.Command(ipBin, args...).CombinedOutput(); err != nil {
			t.Fatalf("ip %s: %v: %s", strings.Join(args, " "), err, b)
		}
	}
	return h
}

// freeSlot takes a /24 of testNet that no interface of this machine uses
// (another test binary's hosts, a leftover) and this binary has not taken.
func freeSlot(t *testing.T) int {
	t.Helper()
	used := map[int]bool{}
	addrs, _ := net.InterfaceAddrs()
	for _, a := range addrs {
		if p, err := netip.ParsePrefix(a.String()); err == nil && strings.HasPrefix(p.Addr().String(), testNet) {
			o, _ := strconv.Atoi(strings.Split(p.Addr().String(), ".")[2])
			used[o] = true
		}
	}
	hostSlots.Lock()
	defer hostSlots.Unlock()
	if hostSlots.taken == nil {
		hostSlots.taken = map[int]bool{}
	}
	start := os.Getpid() % 200
	for i := range 250 {
		n := 1 + (start+i)%250
		if !used[n] && !hostSlots.taken[n] {
			hostSlots.taken[n] = true
			return n
		}
	}
	t.Fatalf("no free /24 in %s0.0/16 for a test host", testNet)
	return 0
}

// sbin finds an administration command on PATH or in the sbin directories,
// which a test's PATH may leave out; "" when there is none.
func sbin(name string) string {
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	for _, d := range []string{"/usr/sbin", "/sbin"} {
		if _, err := os.Stat(d + "/" + name); err == nil {
			return d + "/" + name
		}
	}
	return ""
}

// proc is a process of the suite that runs inside the host (`ip netns exec`
// replaces itself with the binary, so the process's pid is the binary's).
func (h *testHost) proc(t *testing.T, name, bin string, args, env []string) *proc {
	t.Helper()
	return newProc(t, name, h.ipBin, append([]string{"netns", "exec", h.name, bin}, args...), env)
}

// iptables runs iptables inside the host with args.
func (h *testHost) iptables(t *testing.T, args ...string) {
	t.Helper()
	all := append([]string{"netns", "exec", h.name, sbin("iptables"), "-w"}, args...)
	if b, err := exec.Command(h.ipBin, all...).CombinedOutput(); err != nil {
		t.Fatalf("iptables %s in %s: %v: %s", strings.Join(args, " "), h.name, err, b)
	}
}

// linkRules are the iptables rule specs matching every packet between the
// host and addr (host:port) in both directions, each with the extra match.
func linkRules(addr string, match []string) [][]string {
	host, port, _ := net.SplitHostPort(addr)
	out := append([]string{"OUTPUT", "-p", "tcp", "-d", host, "--dport", port}, match...)
	in := append([]string{"INPUT", "-p", "tcp", "-s", host, "--sport", port}, match...)
	return [][]string{append(out, "-j", "DROP"), append(in, "-j", "DROP")}
}

// drop drops, silently (no reset, no ICMP), the packets between the host
// and addr (host:port) that match adds to the match, every one when it is
// empty; the returned func removes the rules again (deleting the namespace
// at cleanup removes them too).
func (h *testHost) drop(t *testing.T, addr string, match ...string) (heal func()) {
	t.Helper()
	rules := linkRules(addr, match)
	for _, r := range rules {
		h.iptables(t, append([]string{"-A"}, r...)...)
	}
	var once sync.Once
	heal = func() {
		once.Do(func() {
			for _, r := range rules {
				h.iptables(t, append([]string{"-D"}, r...)...)
			}
		})
	}
	return heal
}

// dropped is how many packets the host's DROP rules matched so far.
func (h *testHost) dropped(t *testing.T) int64 {
	t.Helper()
	b, err := exec.Command(h.ipBin, "netns", "exec", h.name, sbin("iptables"), "-w", "-L", "-n", "-v", "-x").CombinedOutput()
	if err != nil {
		t.Fatalf("iptables -L in %s: %v: %s", h.name, err, b)
	}
	var n int64
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) > 2 && f[2] == "DROP" {
			v, _ := strconv.ParseInt(f[0], 10, 64)
			n += v
		}
	}
	return n
}

// route sends the host's packets for ip (an address of the root namespace
// on another host's link) through its own link.
func (h *testHost) route(t *testing.T, ip string) {
	t.Helper()
	if b, err := exec.Command(h.ipBin, "-n", h.name, "route", "add", ip+"/32", "via", h.rootIP).CombinedOutput(); err != nil {
		t.Fatalf("ip route add %s in %s: %v: %s", ip, h.name, err, b)
	}
}

// link joins the host to other by a veth pair of their own, a LAN between
// the two that bypasses the root namespace (whose FORWARD chain may drop
// what it would route between two hosts' links): the host reaches other.ip
// through it, and other answers on it. The link's /24 is one of testNet's
// slots, its addresses .1 on the host's side and .2 on other's; deleting
// either namespace at cleanup removes the pair.
func (h *testHost) link(t *testing.T, other *testHost) {
	t.Helper()
	n := freeSlot(t)
	t.Cleanup(func() {
		hostSlots.Lock()
		delete(hostSlots.taken, n)
		hostSlots.Unlock()
	})
	here, there := testNet+strconv.Itoa(n)+".1", testNet+strconv.Itoa(n)+".2"
	// Made in the host's namespace, so the names clash with no interface of
	// the root namespace or of another host.
	end, peer := fmt.Sprintf("bft%dl", n), fmt.Sprintf("bft%dp", n)
	for _, args := range [][]string{
		{"-n", h.name, "link", "add", end, "type", "veth", "peer", "name", peer, "netns", other.name},
		{"-n", h.name, "addr", "add", here + "/24", "dev", end},
		{"-n", h.name, "link", "set", end, "up"},
		{"-n", other.name, "addr", "add", there + "/24", "dev", peer},
		{"-n", other.name, "link", "set", peer, "up"},
		{"-n", h.name, "route", "add", other.ip + "/32", "via", there},
	} {
		if b, err := exec.Command(h.ipBin, args...).CombinedOutput(); err != nil {
			t.Fatalf("ip %s: %v: %s", strings.Join(args, " "), err, b)
		}
	}
}

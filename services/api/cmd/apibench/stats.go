package main

import (
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// stats are the percentiles of a set of latencies (nearest rank).
type stats struct {
	n                  int
	p50, p90, p99, max time.Duration
}

// summarize returns the percentiles of d.
func summarize(d []time.Duration) stats {
	if len(d) == 0 {
		return stats{}
	}
	s := slices.Clone(d)
	slices.Sort(s)
	rank := func(p float64) time.Duration {
		i := int(math.Ceil(p*float64(len(s)))) - 1
		return s[min(max(i, 0), len(s)-1)]
	}
	return stats{n: len(s), p50: rank(0.50), p90: rank(0.90), p99: rank(0.99), max: s[len(s)-1]}
}

// ms formats d in milliseconds.
func ms(d time.Duration) string {
	return strconv.FormatFloat(float64(d)/float64(time.Millisecond), 'f', 2, 64)
}

// probe reads CPU time: the API subprocess's (pid 0: in-process, unknown),
// this process's, and the machine's.
type probe struct {
	pid    int
	clkTck int64
}

// newProbe returns a probe of the API process pid (0 when in-process).
func newProbe(pid int) *probe {
	p := &probe{pid: pid, clkTck: 100}
	if out, err := exec.Command("getconf", "CLK_TCK").Output(); err == nil {
		if v, err := strconv.ParseInt(strings.TrimSpace(string(out)), 10, 64); err == nil && v > 0 {
			p.clkTck = v
		}
	}
	return p
}

// usage is one reading of the probe.
type usage struct {
	at     time.Time
	server time.Duration // -1 when unknown
	self   time.Duration
	busy   int64 // machine-wide user+nice+system+irq+softirq ticks
	steal  int64
	all    int64 // every tick of /proc/stat's cpu line but guest
}

// phaseUsage is the CPU a phase used.
type phaseUsage struct {
	name     string
	requests int
	wall     time.Duration
	server   time.Duration // -1 when unknown (in-process)
	self     time.Duration // apibench, which includes the API in-process
	rest     time.Duration // busy time of every other process: Postgres and whatever else runs
	busyPct  float64       // of all CPUs
	stealPct float64       // of all CPUs
}

// sample reads the probe now.
func (p *probe) sample() usage {
	u := usage{at: time.Now(), server: -1}
	if p.pid > 0 {
		if t, err := procTicks(fmt.Sprintf("/proc/%d/stat", p.pid)); err == nil {
			u.server = p.ticks(t)
		}
	}
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
		u.self = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	u.busy, u.steal, u.all = machineTicks()
	return u
}

// since returns the CPU used from before to now by a phase of n requests.
func (p *probe) since(before usage, name string, n int) phaseUsage {
	after := p.sample()
	pu := phaseUsage{name: name, requests: n, wall: after.at.Sub(before.at), server: -1, self: after.self - before.self}
	if before.server >= 0 && after.server >= 0 {
		pu.server = after.server - before.server
	}
	busy := p.ticks(after.busy - before.busy)
	pu.rest = max(busy-pu.self-max(pu.server, 0), 0)
	if all := after.all - before.all; all > 0 {
		pu.busyPct = 100 * float64(after.busy-before.busy) / float64(all)
		pu.stealPct = 100 * float64(after.steal-before.steal) / float64(all)
	}
	return pu
}

// ticks converts clock ticks to a duration.
func (p *probe) ticks(t int64) time.Duration {
	return time.Duration(t) * time.Second / time.Duration(p.clkTck)
}

// procTicks returns utime+stime of /proc/PID/stat, in clock ticks.
func procTicks(path string) (int64, error) {
	b, err := os.ReadFile(path) //nolint:gosec // the baseline file of the bench's own flag
	if err != nil {
		return 0, fmt.Errorf("read %s: %w", path, err)
	}
	s := string(b)
	// Fields after the parenthesised command name start at field 3 (state).
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 13 {
		return 0, fmt.Errorf("%s: too few fields", path)
	}
	ut, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("%s: bad utime or stime", path)
	}
	return ut + st, nil
}

// machineTicks returns busy, steal and all ticks from the cpu line of /proc/stat.
func machineTicks() (busy, steal, all int64) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, 0, 0
	}
	line, _, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line)
	if len(f) < 9 || f[0] != "cpu" {
		return 0, 0, 0
	}
	v := make([]int64, 8) // user nice system idle iowait irq softirq steal
	for i := range v {
		v[i], _ = strconv.ParseInt(f[i+1], 10, 64)
	}
	for _, x := range v {
		all += x
	}
	return v[0] + v[1] + v[2] + v[5] + v[6], v[7], all
}

// progress prints a line about what the bench is doing.
func progress(w io.Writer, format string, args ...any) {
	fmt.Fprintf(w, "apibench: "+format+"\n", args...)
}

//go:build soak

package faultsuite

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// series is one figure of one process sampled over the soak run.
type series struct {
	proc, what string // "barrage-api", "RSS MB"
	values     []float64
}

// flatness is a series read against "flat": the mean of the last fifth
// against the mean of the second (the first fifth is warm-up). Beside it,
// the trend of the last half: a figure that climbs for a while and then
// levels off can miss the growth bar while its trend is about 0.
type flatness struct {
	start, end, min, max float64
	growthPct            float64
	known                bool // enough samples for fifths
	trend                trend
}

// trend is the least-squares slope of a stretch of samples, in % of the
// stretch's mean per hour, with the slope's standard error in the same
// unit (about two errors either side of the slope hold the true one).
type trend struct {
	pctPerHour, errPctPerHour float64
	known                     bool // at least 4 samples and a mean other than 0
}

// trendOf fits a line to v, samples taken every period apart.
func trendOf(v []float64, every time.Duration) trend {
	n := float64(len(v))
	if len(v) < 4 || every <= 0 {
		return trend{}
	}
	m := mean(v)
	if m == 0 {
		return trend{}
	}
	mx := (n - 1) / 2
	var sxx, sxy float64
	for i, y := range v {
		sxx += (float64(i) - mx) * (float64(i) - mx)
		sxy += (float64(i) - mx) * (y - m)
	}
	slope := sxy / sxx // per sample
	var rss float64
	for i, y := range v {
		r := y - (m + slope*(float64(i)-mx))
		rss += r * r
	}
	se := math.Sqrt(rss / (n - 2) / sxx)
	perHour := float64(time.Hour) / float64(every) / m * 100
	return trend{pctPerHour: slope * perHour, errPctPerHour: se * perHour, known: true}
}

// maxGrowthPct is the flat bar: growth of at most 5 %.
const maxGrowthPct = 5.0

// flatness reads the series, sampled every period apart.
func (s *series) flatness(every time.Duration) flatness {
	v := s.values
	if len(v) == 0 {
		return flatness{}
	}
	f := flatness{start: v[0], end: v[len(v)-1], min: slices.Min(v), max: slices.Max(v),
		trend: trendOf(v[len(v)/2:], every)}
	fifth := len(v) / 5
	if fifth < 1 {
		return f
	}
	second, last := mean(v[fifth:2*fifth]), mean(v[len(v)-fifth:])
	if second > 0 {
		f.growthPct, f.known = (last-second)/second*100, true
	}
	return f
}

// flat is the verdict: unknown without enough samples.
func (f flatness) verdict() string {
	switch {
	case !f.known:
		return "n/a (too few samples)"
	case f.growthPct <= maxGrowthPct:
		return "PASS"
	default:
		return "FAIL"
	}
}

func mean(v []float64) float64 {
	var sum float64
	for _, x := range v {
		sum += x
	}
	return sum / float64(len(v))
}

// sampler reads the RSS and goroutine count of the API and the agents
// every period until stopped; a reading that fails is skipped (and
// counted).
type sampler struct {
	s       *stack
	period  time.Duration
	mu      sync.Mutex
	series  []*series
	load    []float64 // 1-minute load average at each sample
	missed  int
	samples int
	// cpu holds each process's utime+stime at the first and the last
	// sample, and when they were read.
	cpuFirst, cpuLast []time.Duration
	firstAt, lastAt   time.Time
}

// apiMemory are the Go runtime figures read from the API's /metrics
// besides its goroutines, in MiB: they tell whether its RSS follows its
// heap, its GC goal or its stacks.
var apiMemory = []struct{ metric, what string }{
	{"go_memstats_heap_inuse_bytes", "Go heap in use MB"},
	{"go_memstats_next_gc_bytes", "Go GC goal MB"},
	{"go_memstats_stack_inuse_bytes", "Go stacks MB"},
	{"go_memstats_heap_released_bytes", "Go heap released MB"},
	{"go_memstats_heap_idle_bytes", "Go heap idle MB"},
	{"go_memstats_heap_sys_bytes", "Go heap from the OS MB"},
}

// apiResident are the parts of the API's VmRSS read from /proc/PID/status:
// anonymous memory (the Go heap, stacks, runtime) and file-backed pages
// (the binary's text and data as they are paged in).
var apiResident = []string{"RssAnon", "RssFile"}

func newSampler(s *stack, period time.Duration) *sampler {
	sm := &sampler{s: s, period: period}
	for i, name := range sm.procNames() {
		sm.series = append(sm.series, &series{proc: name, what: "RSS MB"}, &series{proc: name, what: "goroutines"})
		if i == 0 {
			for _, m := range apiMemory {
				sm.series = append(sm.series, &series{proc: name, what: m.what})
			}
			for _, f := range apiResident {
				sm.series = append(sm.series, &series{proc: name, what: f + " MB"})
			}
		}
	}
	return sm
}

func (sm *sampler) procNames() []string {
	names := []string{sm.s.apis[0].name}
	for _, a := range sm.s.agents {
		names = append(names, a.name)
	}
	return names
}

// run samples at once and then every period until ctx ends.
func (sm *sampler) run(ctx context.Context) {
	t := time.NewTicker(sm.period)
	defer t.Stop()
	for {
		sm.sample()
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

func (sm *sampler) sample() {
	readings := make([]float64, 0, len(sm.series))
	ok := true
	procs := append([]*proc{sm.s.apis[0]}, sm.s.agents...)
	for i, p := range procs {
		status, err := memStatus(p.pid())
		rss := status["VmRSS"]
		if i == 0 {
			var api []float64
			if err == nil {
				api, err = apiFigures(sm.s.apiURL)
			}
			ok = ok && err == nil
			readings = append(append(readings, rss), api...)
			for _, f := range apiResident {
				readings = append(readings, status[f])
			}
			continue
		}
		var gor float64
		if err == nil {
			gor, err = agentGoroutines(sm.s.agentDebug[i-1])
		}
		ok = ok && err == nil
		readings = append(readings, rss, gor)
	}
	sm.mu.Lock()
	defer sm.mu.Unlock()
	if !ok {
		sm.missed++
		return
	}
	sm.samples++
	cpu := make([]time.Duration, len(procs))
	for i, p := range procs {
		cpu[i], _ = cpuTime(p.pid())
	}
	if sm.cpuFirst == nil {
		sm.cpuFirst, sm.firstAt = cpu, time.Now()
	}
	sm.cpuLast, sm.lastAt = cpu, time.Now()
	for i, v := range readings {
		sm.series[i].values = append(sm.series[i].values, v)
	}
	if l, err := loadAvg(); err == nil {
		sm.load = append(sm.load, l[0])
	}
}

// cpuPercent is each process's CPU between the first and the last
// sample, in % of one core, in the order of procNames.
func (sm *sampler) cpuPercent() []float64 {
	out := make([]float64, len(sm.cpuFirst))
	wall := sm.lastAt.Sub(sm.firstAt)
	for i := range out {
		if wall > 0 {
			out[i] = float64(sm.cpuLast[i]-sm.cpuFirst[i]) / float64(wall) * 100
		}
	}
	return out
}

// clockTick is USER_HZ, the unit of /proc/PID/stat's times (100 on Linux).
const clockTick = 10 * time.Millisecond

// cpuTime reads utime+stime of /proc/PID/stat.
func cpuTime(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:]) // fields from 3 (state) on
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("parse /proc/%d/stat", pid)
	}
	return time.Duration(utime+stime) * clockTick, nil
}

// memStatus reads the kB figures of /proc/PID/status (VmRSS, RssAnon,
// RssFile, ...), in MiB.
func memStatus(pid int) (map[string]float64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return nil, err
	}
	out := map[string]float64{}
	for _, line := range strings.Split(string(b), "\n") {
		name, rest, ok := strings.Cut(line, ":")
		f := strings.Fields(rest) // "123456 kB"
		if !ok || len(f) != 2 || f[1] != "kB" {
			continue
		}
		if kb, err := strconv.ParseFloat(f[0], 64); err == nil {
			out[name] = kb / 1024
		}
	}
	if _, ok := out["VmRSS"]; !ok {
		return nil, fmt.Errorf("no VmRSS for pid %d", pid)
	}
	return out, nil
}

// apiFigures reads go_goroutines and the apiMemory figures (in MiB) of
// the API's /metrics, in that order.
func apiFigures(base string) ([]float64, error) {
	body, err := httpText(base + "/metrics")
	if err != nil {
		return nil, err
	}
	values := map[string]float64{}
	sc := bufio.NewScanner(strings.NewReader(body))
	for sc.Scan() {
		name, value, ok := strings.Cut(sc.Text(), " ")
		if !ok || strings.HasPrefix(name, "#") {
			continue
		}
		if v, err := strconv.ParseFloat(strings.TrimSpace(value), 64); err == nil {
			values[name] = v
		}
	}
	out := make([]float64, 0, 1+len(apiMemory))
	for i, name := range append([]string{"go_goroutines"}, memoryMetrics()...) {
		v, ok := values[name]
		if !ok {
			return nil, fmt.Errorf("no %s in %s/metrics", name, base)
		}
		if i > 0 {
			v /= 1 << 20
		}
		out = append(out, v)
	}
	return out, nil
}

func memoryMetrics() []string {
	names := make([]string, len(apiMemory))
	for i, m := range apiMemory {
		names[i] = m.metric
	}
	return names
}

// goroutineTotal is the first line of pprof's goroutine?debug=1.
var goroutineTotal = regexp.MustCompile(`^goroutine profile: total (\d+)`)

// agentGoroutines reads an agent's goroutine count from its pprof
// listener (barrage-agent -debug-addr).
func agentGoroutines(base string) (float64, error) {
	body, err := httpText(base + "/debug/pprof/goroutine?debug=1")
	if err != nil {
		return 0, err
	}
	m := goroutineTotal.FindStringSubmatch(body)
	if m == nil {
		return 0, fmt.Errorf("no goroutine total from %s", base)
	}
	return strconv.ParseFloat(m[1], 64)
}

func httpText(url string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, http.NoBody)
	if err != nil {
		return "", err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("GET %s: %d", url, resp.StatusCode)
	}
	return string(b), err
}

// loadAvg reads the 1, 5 and 15 minute load averages.
func loadAvg() ([3]float64, error) {
	var l [3]float64
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return l, err
	}
	f := strings.Fields(string(b))
	for i := range l {
		if l[i], err = strconv.ParseFloat(f[i], 64); err != nil {
			return l, err
		}
	}
	return l, nil
}

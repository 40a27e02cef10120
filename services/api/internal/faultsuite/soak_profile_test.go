//go:build soak

package faultsuite

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"time"
)

// profiler takes pprof profiles of the soak's processes into SOAK_PROFILE_DIR
// (none when it is unset): the API's CPU for 30 s in the middle of the long
// run, and every process's heap and goroutines at each sixth of it and near its end.
type profiler struct {
	s   *stack
	dir string
}

// cpuMidway takes the API's CPU profile once half of length has passed.
func (p profiler) cpuMidway(ctx context.Context, length time.Duration) {
	if p.dir == "" {
		return
	}
	select {
	case <-ctx.Done():
		return
	case <-time.After(length / 2):
	}
	p.fetch(p.s.apiDebug+"/debug/pprof/profile?seconds=30", "api-cpu.pprof")
}

// heapsAlong takes heaps(tag) at each sixth of the run from startAt ("t1200s"
// for a 2 h run) and 5 s before its end ("end"), all under the same load, so
// that a growth can be followed in pprof -diff_base from one to the next.
func (p profiler) heapsAlong(ctx context.Context, startAt time.Time, length time.Duration) {
	type mark struct {
		tag   string
		after time.Duration
	}
	var marks []mark
	for i := 1; i < 6; i++ {
		after := length * time.Duration(i) / 6
		marks = append(marks, mark{fmt.Sprintf("t%ds", int(after.Seconds())), after})
	}
	marks = append(marks, mark{"end", length - 5*time.Second})
	for _, m := range marks {
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Until(startAt.Add(m.after))):
			p.heaps(m.tag)
		}
	}
}

// heaps takes every process's heap and goroutine profiles, named by tag.
func (p profiler) heaps(tag string) {
	if p.dir == "" {
		return
	}
	p.fetch(p.s.apiDebug+"/debug/pprof/heap", "api-heap-"+tag+".pprof")
	p.fetch(p.s.apiDebug+"/debug/pprof/goroutine", "api-goroutine-"+tag+".pprof")
	for i, base := range p.s.agentDebug {
		p.fetch(base+"/debug/pprof/heap", fmt.Sprintf("agent-%d-heap-%s.pprof", i, tag))
	}
}

// fetch saves one profile; a failure is only printed.
func (p profiler) fetch(url, name string) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, http.NoBody)
	if err != nil {
		return
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		fmt.Fprintf(os.Stderr, "soak: profile %s: %v\n", name, err)
		return
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err == nil {
		err = os.WriteFile(filepath.Join(p.dir, name), b, 0o644)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "soak: profile %s: %v\n", name, err)
	}
}

package main

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// clkTck is the kernel's USER_HZ, the unit of /proc CPU times (100 on
// every Linux this runs on).
const clkTck = 100.0

// sample is one reading of the counters a phase compares.
type sample struct {
	at        time.Time
	apiTicks  int64 // utime+stime of the API process, all threads
	busyTicks int64 // machine-wide busy time, every CPU
	rows      int64 // tuples inserted, updated and deleted in the bench database
	commits   int64 // transactions committed in the bench database
}

// sample reads the API's CPU, the machine's and the bench database's
// activity. Postgres publishes its statistics at most once a second, so
// the row counts lag by up to a second.
func (e *env) sample(ctx context.Context) (sample, error) {
	s := sample{at: time.Now()}
	var err error
	if s.apiTicks, err = procTicks(e.srv.PID); err != nil {
		return s, err
	}
	if s.busyTicks, err = busyTicks(); err != nil {
		return s, err
	}
	err = e.db.QueryRow(ctx, `SELECT tup_inserted + tup_updated + tup_deleted, xact_commit
		FROM pg_stat_database WHERE datname = current_database()`).Scan(&s.rows, &s.commits)
	if err != nil {
		return s, fmt.Errorf("read pg_stat_database: %w", err)
	}
	return s, nil
}

// procTicks returns utime+stime of pid from /proc/PID/stat.
func procTicks(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, fmt.Errorf("read the API's CPU time: %w", err)
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	if len(f) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: too few fields", pid)
	}
	u, err1 := strconv.ParseInt(f[11], 10, 64)
	k, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("/proc/%d/stat: bad CPU times", pid)
	}
	return u + k, nil
}

// busyTicks returns user+nice+system+irq+softirq+steal of /proc/stat.
func busyTicks() (int64, error) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, fmt.Errorf("read /proc/stat: %w", err)
	}
	line, _, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line)
	if len(f) < 9 || f[0] != "cpu" {
		return 0, fmt.Errorf("/proc/stat: unexpected first line %q", line)
	}
	var sum int64
	for _, i := range []int{1, 2, 3, 6, 7, 8} {
		v, err := strconv.ParseInt(f[i], 10, 64)
		if err != nil {
			return 0, fmt.Errorf("/proc/stat: %w", err)
		}
		sum += v
	}
	return sum, nil
}

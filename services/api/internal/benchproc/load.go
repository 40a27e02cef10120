package benchproc

import (
	"os"
	"strings"
)

// LoadAvg returns the machine's 1, 5 and 15 minute load averages, for a
// report's header: a bench on a machine others load says so.
func LoadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}

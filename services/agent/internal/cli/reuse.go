package cli

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/barrage-dev/barrage/pkg/spec"
)

// parseReuse parses -connection-reuse "min:max" or "n" (n:n); "" is nil.
// The spec checks the range.
func parseReuse(v string) (*spec.ConnectionReuse, error) {
	if v == "" {
		return nil, nil
	}
	lo, hi, pair := strings.Cut(v, ":")
	if !pair {
		hi = lo
	}
	minN, err1 := strconv.ParseInt(strings.TrimSpace(lo), 10, 64)
	maxN, err2 := strconv.ParseInt(strings.TrimSpace(hi), 10, 64)
	if err1 != nil || err2 != nil {
		return nil, fmt.Errorf("-connection-reuse %q: want min:max, e.g. 10:30", v)
	}
	return &spec.ConnectionReuse{Min: minN, Max: maxN}, nil
}

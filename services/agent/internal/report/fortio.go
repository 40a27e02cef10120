package report

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/barrage-dev/barrage/pkg/fortiojson"
	"github.com/barrage-dev/barrage/pkg/hist"
)

// WriteFortio writes r as Fortio result JSON, which `fortio report` lists and
// graphs. The histograms come from the HDR data in r (primary latency as
// DurationHistogram). Barrage does not keep the latencies of failed requests
// apart, so ErrorsDurationHistogram carries only their count.
func WriteFortio(w io.Writer, r *Result) error {
	f, err := toFortio(r)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(f)
}

// SaveFortio writes r as Fortio result JSON to <ID>.json in dir (Fortio's
// -a), never over an existing file, and returns the file's path.
func SaveFortio(dir string, r *Result) (string, error) {
	f, err := toFortio(r)
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, f.ID+".json")
	out, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644) //nolint:gosec // a result, not a secret (redacted)
	if err != nil {
		return "", fmt.Errorf("save result: %w", err)
	}
	enc := json.NewEncoder(out)
	enc.SetIndent("", "  ")
	if err := enc.Encode(f); err != nil {
		_ = out.Close()
		return "", fmt.Errorf("save result %s: %w", path, err)
	}
	if err := out.Close(); err != nil {
		return "", fmt.Errorf("save result %s: %w", path, err)
	}
	return path, nil
}

func toFortio(r *Result) (*fortiojson.Result, error) {
	h, err := hist.Decode([]byte(r.PrimaryLatency().HDR))
	if err != nil {
		return nil, fmt.Errorf("decode %s histogram: %w", r.Primary, err)
	}
	s := r.Spec
	return fortiojson.New(fortiojson.Fields{
		Spec: s, Target: s.URL, RunType: r.RunType, Labels: s.Labels, Start: r.Start, Duration: r.End.Sub(r.Start),
		RequestedQPS: r.RequestedQPS, ActualQPS: r.ActualQPS, Connections: r.Connections, Version: r.Version,
		Latency: h, Percentiles: s.Percentiles, Errors: r.Errors, RetCodes: r.RetCodes,
		BytesSent: r.BytesSent, BytesReceived: r.BytesReceived,
	}), nil
}

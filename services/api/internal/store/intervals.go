package store

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/barrage-dev/barrage/services/api/internal/runs"
)

// intervalRow is a row of run_intervals: one second of a run, merged
// across its shards.
type intervalRow struct {
	RunID         uuid.UUID `gorm:"column:run_id;primaryKey"`
	Second        int       `gorm:"column:second;primaryKey"`
	Count         int64     `gorm:"column:count"`
	Errors        int64     `gorm:"column:errors"`
	HDR           []byte    `gorm:"column:hdr"`
	ServiceHDR    []byte    `gorm:"column:service_hdr"`
	LagHDR        []byte    `gorm:"column:lag_hdr"`
	RetCodes      []byte    `gorm:"column:ret_codes"`
	BytesSent     int64     `gorm:"column:bytes_sent"`
	BytesReceived int64     `gorm:"column:bytes_received"`
	P50US         float64   `gorm:"column:p50_us"`
	P90US         float64   `gorm:"column:p90_us"`
	P99US         float64   `gorm:"column:p99_us"`
	MaxUS         float64   `gorm:"column:max_us"`
	ServiceP50US  *float64  `gorm:"column:service_p50_us"`
	ServiceP90US  *float64  `gorm:"column:service_p90_us"`
	ServiceP99US  *float64  `gorm:"column:service_p99_us"`
	ServiceMaxUS  *float64  `gorm:"column:service_max_us"`
	LagP50US      *float64  `gorm:"column:lag_p50_us"`
	LagP90US      *float64  `gorm:"column:lag_p90_us"`
	LagP99US      *float64  `gorm:"column:lag_p99_us"`
	LagMaxUS      *float64  `gorm:"column:lag_max_us"`
	Snapshots     int       `gorm:"column:snapshots"`
	Limited       bool      `gorm:"column:generator_limited"`
	ItersStarted  int64     `gorm:"column:iterations_started"`
	ItersDone     int64     `gorm:"column:iterations_completed"`
	ItersFailed   int64     `gorm:"column:iterations_failed"`
	UpdatedAt     time.Time `gorm:"column:updated_at"`
}

// TableName returns the table of intervalRow.
func (intervalRow) TableName() string { return "run_intervals" }

// intervalFromRow maps a row to an interval.
func intervalFromRow(r *intervalRow) (runs.Interval, error) {
	codes, err := parseCodes(r.RetCodes)
	if err != nil {
		return runs.Interval{}, fmt.Errorf("interval %d of run %s: %w", r.Second, r.RunID, err)
	}
	return runs.Interval{
		RunID: r.RunID, Second: r.Second, Count: r.Count, Errors: r.Errors, RetCodes: codes,
		BytesSent: r.BytesSent, BytesReceived: r.BytesReceived,
		Response: r.HDR, Service: r.ServiceHDR, Lag: r.LagHDR,
		P50US: r.P50US, P90US: r.P90US, P99US: r.P99US, MaxUS: r.MaxUS,
		Snapshots: r.Snapshots, GeneratorLimited: r.Limited, UpdatedAt: r.UpdatedAt.UTC(),
		Iterations: runs.Iterations{Started: r.ItersStarted, Completed: r.ItersDone, Failed: r.ItersFailed},
		ServiceQ:   storedQuantiles(r.ServiceP50US, r.ServiceP90US, r.ServiceP99US, r.ServiceMaxUS),
		LagQ:       storedQuantiles(r.LagP50US, r.LagP90US, r.LagP99US, r.LagMaxUS),
	}, nil
}

// storedQuantiles returns the four stored figures of one latency, or nil
// when the second was stored without them (before migration 00030).
func storedQuantiles(p50, p90, p99, maxUS *float64) *runs.Quantiles {
	if p50 == nil || p90 == nil || p99 == nil || maxUS == nil {
		return nil
	}
	return &runs.Quantiles{P50US: *p50, P90US: *p90, P99US: *p99, MaxUS: *maxUS}
}

// quantileColumns sets the columns of q, prefix "service" or "lag", in
// set; a nil q stores NULLs.
func quantileColumns(set map[string]any, prefix string, q *runs.Quantiles) {
	var v [4]any
	if q != nil {
		v = [4]any{q.P50US, q.P90US, q.P99US, q.MaxUS}
	}
	for i, name := range [4]string{"p50_us", "p90_us", "p99_us", "max_us"} {
		set[prefix+"_"+name] = v[i]
	}
}

// lockInterval returns a second of a run as stored, locked: it creates
// the second's row when missing, then locks it. Shards reporting the same
// second wait for each other on the row lock.
func lockInterval(tx *gorm.DB, runID uuid.UUID, second int) (runs.Interval, error) {
	if err := tx.Exec(`INSERT INTO run_intervals (run_id, second, hdr) VALUES (?, ?, '') ON CONFLICT DO NOTHING`,
		runID, second).Error; err != nil {
		return runs.Interval{}, fmt.Errorf("create interval %d: %w", second, err)
	}
	var row intervalRow
	if err := tx.Clauses(clause.Locking{Strength: "UPDATE"}).
		Where("run_id = ? AND second = ?", runID, second).Take(&row).Error; err != nil {
		return runs.Interval{}, fmt.Errorf("lock interval %d: %w", second, err)
	}
	return intervalFromRow(&row)
}

// writeInterval stores next as a second of a run that lockInterval locked.
func writeInterval(tx *gorm.DB, runID uuid.UUID, second int, next runs.Interval) error {
	hdr := next.Response
	if hdr == nil {
		hdr = []byte{} // the column is NOT NULL; empty means no values
	}
	set := map[string]any{
		"count": next.Count, "errors": next.Errors, "hdr": hdr, "service_hdr": next.Service, "lag_hdr": next.Lag,
		"ret_codes": codesJSON(next.RetCodes), "bytes_sent": next.BytesSent, "bytes_received": next.BytesReceived,
		"p50_us": next.P50US, "p90_us": next.P90US, "p99_us": next.P99US, "max_us": next.MaxUS,
		"snapshots": next.Snapshots, "generator_limited": next.GeneratorLimited, "updated_at": gorm.Expr("now()"),
		"iterations_started": next.Iterations.Started, "iterations_completed": next.Iterations.Completed,
		"iterations_failed": next.Iterations.Failed,
	}
	quantileColumns(set, "service", next.ServiceQ)
	quantileColumns(set, "lag", next.LagQ)
	if err := tx.Model(&intervalRow{}).Where("run_id = ? AND second = ?", runID, second).Updates(set).Error; err != nil {
		return fmt.Errorf("update interval %d: %w", second, err)
	}
	return nil
}

// allIntervals returns every stored second of a run, in order.
func allIntervals(tx *gorm.DB, runID uuid.UUID) ([]runs.Interval, error) {
	var rows []intervalRow
	if err := tx.Where("run_id = ?", runID).Order("second").Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("read seconds of run %s: %w", runID, err)
	}
	return intervalsFromRows(rows)
}

// intervalsFromRows maps rows to intervals.
func intervalsFromRows(rows []intervalRow) ([]runs.Interval, error) {
	out := make([]runs.Interval, len(rows))
	for i := range rows {
		iv, err := intervalFromRow(&rows[i])
		if err != nil {
			return nil, err
		}
		out[i] = iv
	}
	return out, nil
}

// RunIntervals returns up to limit seconds of a run from second from on,
// in order. A run without intervals (or no such run) gives none.
func (s *Store) RunIntervals(ctx context.Context, runID uuid.UUID, from, limit int) ([]runs.Interval, error) {
	var rows []intervalRow
	if err := s.conn(ctx).Where("run_id = ? AND second >= ?", runID, from).
		Order("second").Limit(limit).Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("read intervals of run %s: %w", runID, err)
	}
	return intervalsFromRows(rows)
}

// summaryColumns are the columns of run_intervals with the histograms
// only where the percentiles are not stored (seconds from before
// migration 00030): an hour of 20 shards' seconds holds 21 MB of them.
const summaryColumns = `run_id, second, count, errors, ret_codes, bytes_sent, bytes_received, p50_us, p90_us, p99_us, max_us,
	service_p50_us, service_p90_us, service_p99_us, service_max_us, lag_p50_us, lag_p90_us, lag_p99_us, lag_max_us,
	snapshots, generator_limited, iterations_started, iterations_completed, iterations_failed, updated_at,
	CASE WHEN service_max_us IS NULL OR lag_max_us IS NULL THEN hdr END AS hdr,
	CASE WHEN service_max_us IS NULL OR lag_max_us IS NULL THEN service_hdr END AS service_hdr,
	CASE WHEN service_max_us IS NULL OR lag_max_us IS NULL THEN lag_hdr END AS lag_hdr`

// RunIntervalSummaries returns up to limit seconds of a run from second
// from on, in order, as RunIntervals does but without the histograms of
// the seconds whose percentiles are stored.
func (s *Store) RunIntervalSummaries(ctx context.Context, runID uuid.UUID, from, limit int) ([]runs.Interval, error) {
	var rows []intervalRow
	if err := s.conn(ctx).Model(&intervalRow{}).Select(summaryColumns).Where("run_id = ? AND second >= ?", runID, from).
		Order("second").Limit(limit).Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("read intervals of run %s: %w", runID, err)
	}
	return intervalsFromRows(rows)
}

// RunIntervalMarks returns up to limit seconds of a run from second from
// on, in order, with their snapshot counts and request counts only.
func (s *Store) RunIntervalMarks(ctx context.Context, runID uuid.UUID, from, limit int) ([]runs.IntervalMark, error) {
	var rows []struct {
		Second, Snapshots int
		Count             int64
	}
	if err := s.conn(ctx).Table("run_intervals").Select("second, snapshots, count").
		Where("run_id = ? AND second >= ?", runID, from).
		Order("second").Limit(limit).Scan(&rows).Error; err != nil {
		return nil, fmt.Errorf("read interval marks of run %s: %w", runID, err)
	}
	out := make([]runs.IntervalMark, len(rows))
	for i, r := range rows {
		out[i] = runs.IntervalMark{Second: r.Second, Snapshots: r.Snapshots, Count: r.Count}
	}
	return out, nil
}

// codesJSON encodes return-code counts for a jsonb column; nil is '{}'.
func codesJSON(codes map[string]int64) []byte {
	if codes == nil {
		return []byte("{}")
	}
	b, err := json.Marshal(codes)
	if err != nil { // a map of strings to integers always marshals
		panic(fmt.Sprintf("store: marshal return codes: %v", err))
	}
	return b
}

// parseCodes decodes a jsonb column of return-code counts; it never
// returns nil.
func parseCodes(b []byte) (map[string]int64, error) {
	codes := map[string]int64{}
	if len(b) == 0 {
		return codes, nil
	}
	if err := json.Unmarshal(b, &codes); err != nil {
		return nil, fmt.Errorf("decode return codes: %w", err)
	}
	return codes, nil
}

// limitedSeconds counts the seconds of a run in which an agent was the
// bottleneck.
func limitedSeconds(tx *gorm.DB, runID uuid.UUID) (int, error) {
	var n int64
	if err := tx.Model(&intervalRow{}).Where("run_id = ? AND generator_limited", runID).Count(&n).Error; err != nil {
		return 0, fmt.Errorf("count generator-limited seconds of run %s: %w", runID, err)
	}
	return int(n), nil
}

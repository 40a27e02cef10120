package store

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/barrage-dev/barrage/services/api/internal/testdefs"
)

// trendRow is the part of a runs row a trend reads.
type trendRow struct {
	ID        uuid.UUID  `gorm:"column:id"`
	Name      string     `gorm:"column:name"`
	Status    string     `gorm:"column:status"`
	Verdict   *string    `gorm:"column:verdict"`
	CreatedAt time.Time  `gorm:"column:created_at"`
	StartedAt *time.Time `gorm:"column:started_at"`
	StartAt   *time.Time `gorm:"column:start_at"`
	Count     int64      `gorm:"column:count"`
	Errors    int64      `gorm:"column:errors"`
	QPSActual *float64   `gorm:"column:qps_actual"`
	P50US     *float64   `gorm:"column:p50_us"`
	P90US     *float64   `gorm:"column:p90_us"`
	P99US     *float64   `gorm:"column:p99_us"`
	Degraded  bool       `gorm:"column:degraded"`
}

// trendQuery takes the newest runs of one test from runs_test_idx
// (test_id, created_at DESC, id DESC), stopping after limit rows, and turns
// them oldest first.
const trendQuery = `SELECT * FROM (
	SELECT id, name, status, verdict, created_at, started_at, start_at,
	       count, errors, qps_actual, p50_us, p90_us, p99_us, degraded
	FROM runs WHERE test_id = ? ORDER BY created_at DESC, id DESC LIMIT ?
) newest ORDER BY created_at, id`

// TestTrend returns the limit most recent runs of a test, oldest first.
func (s *Store) TestTrend(ctx context.Context, testID uuid.UUID, limit int) ([]testdefs.TrendPoint, error) {
	var rows []trendRow
	if err := s.conn(ctx).Raw(trendQuery, testID, limit).Scan(&rows).Error; err != nil {
		return nil, fmt.Errorf("trend of test %s: %w", testID, err)
	}
	out := make([]testdefs.TrendPoint, len(rows))
	for i := range rows {
		out[i] = trendFromRow(&rows[i])
	}
	return out, nil
}

// trendFromRow maps a row to a point; a run has figures under the same
// rule as summaryFromRow.
func trendFromRow(r *trendRow) testdefs.TrendPoint {
	p := testdefs.TrendPoint{
		RunID: r.ID, Name: r.Name, Status: r.Status, Verdict: fromNullString(r.Verdict),
		CreatedAt: r.CreatedAt.UTC(), Count: r.Count, Errors: r.Errors,
		HasSummary: r.Count != 0 || r.QPSActual != nil, Degraded: r.Degraded,
	}
	switch {
	case r.StartAt != nil:
		p.StartedAt = r.StartAt.UTC()
	case r.StartedAt != nil:
		p.StartedAt = r.StartedAt.UTC()
	}
	val := func(f *float64) float64 {
		if f == nil {
			return 0
		}
		return *f
	}
	p.QPS, p.P50US, p.P90US, p.P99US = val(r.QPSActual), val(r.P50US), val(r.P90US), val(r.P99US)
	return p
}

package testdefs

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/barrage-dev/barrage/services/api/internal/apperr"
	"github.com/barrage-dev/barrage/services/api/internal/auth"
)

// Bounds of a trend.
const (
	// DefaultTrendLimit is how many runs a trend covers when not asked.
	DefaultTrendLimit = 100
	// MaxTrendLimit is the most runs a trend covers.
	MaxTrendLimit = 500
)

// TrendPoint is one run of a test as a trend shows it.
type TrendPoint struct {
	RunID   uuid.UUID
	Name    string
	Status  string
	Verdict string
	// CreatedAt orders the trend.
	CreatedAt time.Time
	// StartedAt is when the shards began sending, or when the run started
	// when it was never dispatched; zero before either.
	StartedAt time.Time
	// HasSummary says whether the run has figures; without them the
	// latencies, QPS and Count are zero and mean nothing.
	HasSummary          bool
	P50US, P90US, P99US float64
	QPS                 float64
	Count, Errors       int64
	// Degraded says a shard was lost: the figures lack its part.
	Degraded bool
}

// ErrorRate is Errors/Count, 0 when nothing was counted.
func (p TrendPoint) ErrorRate() float64 {
	if p.Count == 0 {
		return 0
	}
	return float64(p.Errors) / float64(p.Count)
}

// TrendStore is the storage a trend needs.
type TrendStore interface {
	// TestTrend returns the limit most recent runs of a test, oldest first.
	TestTrend(ctx context.Context, testID uuid.UUID, limit int) ([]TrendPoint, error)
}

// Trend returns the figures of the limit (0 for the default) most recent
// runs of a test the caller can view, oldest first, and where their
// latency changed level.
func (s *Service) Trend(ctx context.Context, p *auth.Principal, id uuid.UUID, limit int) (Trend, error) {
	if limit == 0 {
		limit = DefaultTrendLimit
	}
	if limit < 1 || limit > MaxTrendLimit {
		return Trend{}, apperr.Invalidf("limit", "must be from 1 to %d", MaxTrendLimit)
	}
	t, err := s.Load(ctx, p, id, auth.Viewer)
	if err != nil {
		return Trend{}, err
	}
	points, err := s.store.TestTrend(ctx, id, limit)
	if err != nil {
		return Trend{}, fmt.Errorf("trend of test %s: %w", id, err)
	}
	changes, err := changePoints(points)
	if err != nil {
		return Trend{}, fmt.Errorf("trend of test %s: %w", id, err)
	}
	return Trend{Points: points, Changes: changes, Limits: trendLimits(t.Spec, t.Thresholds)}, nil
}

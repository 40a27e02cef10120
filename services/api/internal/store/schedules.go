package store

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"

	"github.com/barrage-dev/barrage/services/api/internal/runs"
	"github.com/barrage-dev/barrage/services/api/internal/schedule"
	"github.com/barrage-dev/barrage/services/api/internal/testdefs"
)

// ClaimDueTests returns up to limit tests whose next_run_at is at or
// before now, oldest due first, each one's next_run_at moved to next(test)
// (NULL for zero) in the same transaction. The update applies only while
// next_run_at still holds the value read, and rows another claimer has
// locked are skipped, so one fire time is claimed once.
func (s *Store) ClaimDueTests(ctx context.Context, now time.Time, limit int, next func(testdefs.Test) time.Time) ([]schedule.Due, error) {
	var due []schedule.Due
	err := s.inTx(ctx, func(tx *gorm.DB) error {
		due = nil
		var rows []testRow
		err := tx.Raw(`SELECT * FROM tests WHERE next_run_at <= ? ORDER BY next_run_at LIMIT ? FOR UPDATE SKIP LOCKED`,
			now, limit).Scan(&rows).Error
		if err != nil {
			return fmt.Errorf("select due tests: %w", err)
		}
		for i := range rows {
			t, err := s.testFromRow(rows[i])
			if err != nil {
				return err
			}
			at := *rows[i].NextRunAt
			res := tx.Exec(`UPDATE tests SET next_run_at = ? WHERE id = ? AND next_run_at = ?`, nullTime(next(t)), t.ID, at)
			if res.Error != nil {
				return fmt.Errorf("advance test %s: %w", t.ID, res.Error)
			}
			if res.RowsAffected == 1 {
				due = append(due, schedule.Due{Test: t, At: at.UTC()})
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("claim due tests: %w", err)
	}
	return due, nil
}

// ScheduledRunActive reports whether a run of the test with source
// schedule is queued, dispatching, running or stopping.
func (s *Store) ScheduledRunActive(ctx context.Context, testID uuid.UUID) (bool, error) {
	var active bool
	err := s.conn(ctx).Raw(`SELECT EXISTS (SELECT 1 FROM runs WHERE test_id = ? AND source = ? AND status IN ?)`,
		testID, string(runs.SourceSchedule), []string{string(runs.Queued), string(runs.Dispatching), string(runs.Running), string(runs.Stopping)}).
		Scan(&active).Error
	if err != nil {
		return false, fmt.Errorf("active scheduled run of test %s: %w", testID, err)
	}
	return active, nil
}

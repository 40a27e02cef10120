package store

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/google/uuid"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/barrage-dev/barrage/services/api/internal/runs"
)

// timelineRow is a row of run_timelines.
type timelineRow struct {
	RunID   uuid.UUID `gorm:"column:run_id;primaryKey"`
	Seen    int64     `gorm:"column:seen"`
	Size    int       `gorm:"column:size"`
	Samples []byte    `gorm:"column:samples"`
}

// TableName returns the table of timelineRow.
func (timelineRow) TableName() string { return "run_timelines" }

// maxTimelineBytes bounds a stored timeline once decompressed.
const maxTimelineBytes = 64 << 20

// writeTimeline stores the timeline of run id.
func writeTimeline(tx *gorm.DB, id uuid.UUID, tl *runs.Timeline) error {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if err := json.NewEncoder(zw).Encode(tl.Samples); err != nil {
		return fmt.Errorf("encode timeline: %w", err)
	}
	if err := zw.Close(); err != nil {
		return fmt.Errorf("compress timeline: %w", err)
	}
	row := timelineRow{RunID: id, Seen: tl.Seen, Size: len(tl.Samples), Samples: buf.Bytes()}
	if err := tx.Clauses(clause.OnConflict{UpdateAll: true}).Create(&row).Error; err != nil {
		return fmt.Errorf("store timeline: %w", err)
	}
	return nil
}

// RunTimeline returns the timeline of a run; NotFound when it has none.
func (s *Store) RunTimeline(ctx context.Context, runID uuid.UUID) (runs.Timeline, error) {
	var row timelineRow
	if err := s.conn(ctx).Where("run_id = ?", runID).Take(&row).Error; err != nil {
		return runs.Timeline{}, classify(err, "get run timeline", "timeline of run", runID)
	}
	zr, err := gzip.NewReader(bytes.NewReader(row.Samples))
	if err != nil {
		return runs.Timeline{}, fmt.Errorf("timeline of run %s: %w", runID, err)
	}
	tl := runs.Timeline{Seen: row.Seen, Samples: make([]runs.TimelineSample, 0, row.Size)}
	if err := json.NewDecoder(io.LimitReader(zr, maxTimelineBytes)).Decode(&tl.Samples); err != nil {
		return runs.Timeline{}, fmt.Errorf("timeline of run %s: %w", runID, err)
	}
	return tl, nil
}

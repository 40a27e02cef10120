package store

import (
	"context"
	"fmt"

	"github.com/google/uuid"
	"gorm.io/gorm"

	"github.com/barrage-dev/barrage/pkg/spec"
	"github.com/barrage-dev/barrage/services/api/internal/runs"
)

// addWrittenURLs stores the written URLs of a new snapshot in
// run_written_urls, keyed by the snapshot's key and their place in it, and
// counts them on its shard, which the caller has locked: at most
// spec.MaxWrittenURLs per shard whatever an agent sends.
func addWrittenURLs(tx *gorm.DB, rec runs.SnapshotRecord) error {
	if len(rec.WrittenURLs) == 0 {
		return nil
	}
	var have int64
	if err := tx.Raw(`SELECT written_urls FROM run_shards WHERE run_id = ? AND shard = ?`, rec.RunID, rec.Shard).
		Scan(&have).Error; err != nil {
		return fmt.Errorf("count written urls: %w", err)
	}
	room := spec.MaxWrittenURLs - have
	if room <= 0 {
		return nil
	}
	urls := rec.WrittenURLs[:min(int64(len(rec.WrittenURLs)), room)]
	res := tx.Exec(`INSERT INTO run_written_urls (run_id, shard, seq, idx, url)
SELECT ?, ?, ?, t.i - 1, t.url FROM unnest(?::text[]) WITH ORDINALITY AS t (url, i)
ON CONFLICT DO NOTHING`, rec.RunID, rec.Shard, rec.Seq, textArray(urls))
	if res.Error != nil {
		return fmt.Errorf("store written urls: %w", res.Error)
	}
	if res.RowsAffected == 0 {
		return nil
	}
	return updateShard(tx, rec, map[string]any{"written_urls": gorm.Expr("written_urls + ?", res.RowsAffected)})
}

// WrittenURLCount returns the written URLs stored for a run.
func (s *Store) WrittenURLCount(ctx context.Context, runID uuid.UUID) (int64, error) {
	var n int64
	if err := s.conn(ctx).Raw(`SELECT COALESCE(sum(written_urls), 0) FROM run_shards WHERE run_id = ?`, runID).
		Scan(&n).Error; err != nil {
		return 0, fmt.Errorf("count written urls of run %s: %w", runID, err)
	}
	return n, nil
}

// writtenURLRow is a row of run_written_urls.
type writtenURLRow struct {
	Shard int    `gorm:"column:shard"`
	Seq   int64  `gorm:"column:seq"`
	Idx   int    `gorm:"column:idx"`
	URL   string `gorm:"column:url"`
}

// WrittenURLs returns up to limit written URLs of a run after the one at
// after, in order: by shard, then snapshot, then place in it. The zero
// WrittenURLKey starts from the first.
func (s *Store) WrittenURLs(ctx context.Context, runID uuid.UUID, after runs.WrittenURLKey, limit int) ([]runs.WrittenURL, error) {
	var rows []writtenURLRow
	if err := s.conn(ctx).Raw(`SELECT shard, seq, idx, url FROM run_written_urls
WHERE run_id = ? AND (shard, seq, idx) > (?, ?, ?) ORDER BY shard, seq, idx LIMIT ?`,
		runID, after.Shard, after.Seq, after.Idx, limit).Scan(&rows).Error; err != nil {
		return nil, fmt.Errorf("read written urls of run %s: %w", runID, err)
	}
	out := make([]runs.WrittenURL, len(rows))
	for i, r := range rows {
		out[i] = runs.WrittenURL{Key: runs.WrittenURLKey{Shard: r.Shard, Seq: r.Seq, Idx: r.Idx}, URL: r.URL}
	}
	return out, nil
}

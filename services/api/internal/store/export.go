package store

import (
	"context"
	"fmt"

	"github.com/google/uuid"

	"github.com/barrage-dev/barrage/services/api/internal/export"
	"github.com/barrage-dev/barrage/services/api/internal/runs"
)

// exportRow is a run with its export's MD5 and size.
type exportRow struct {
	Run        runRow `gorm:"embedded"`
	FortioMD5  []byte `gorm:"column:fortio_md5"`
	FortioSize *int64 `gorm:"column:fortio_size"`
}

// ExportRuns returns up to q.Limit completed runs with a result in public
// projects or in q's visible ones (every project when q.All), newest end
// first, with their export's MD5 and size.
func (s *Store) ExportRuns(ctx context.Context, q export.Query) ([]export.Entry, error) {
	db := s.conn(ctx).Table("runs AS r").
		Select("r.*, res.fortio_md5, res.fortio_size").
		Joins("JOIN run_results res ON res.run_id = r.id").
		Joins("JOIN projects p ON p.id = r.project_id").
		Where("r.status = ?", string(runs.Completed))
	if !q.All {
		db = db.Where("p.public_results OR r.project_id = ANY(?::uuid[])", uuidArray(q.Visible))
	}
	if q.Project != uuid.Nil {
		db = db.Where("r.project_id = ?", q.Project)
	}
	var rows []exportRow
	if err := db.Order("r.ended_at DESC NULLS LAST, r.id DESC").Limit(q.Limit).Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("list exports: %w", err)
	}
	out := make([]export.Entry, len(rows))
	for i := range rows {
		row := &rows[i]
		run, err := runFromRow(row.Run)
		if err != nil {
			return nil, err
		}
		out[i] = export.Entry{Run: run, MD5: row.FortioMD5}
		if row.FortioSize != nil {
			out[i].Size = *row.FortioSize
		}
	}
	return out, nil
}

// RunBySeq returns the run numbered seq and whether its project publishes
// its results; NotFound when there is none.
func (s *Store) RunBySeq(ctx context.Context, seq int64) (runs.Run, bool, error) {
	var row struct {
		Run           runRow `gorm:"embedded"`
		PublicResults bool   `gorm:"column:public_results"`
	}
	err := s.conn(ctx).Table("runs AS r").Select("r.*, p.public_results").
		Joins("JOIN projects p ON p.id = r.project_id").Where("r.seq = ?", seq).Take(&row).Error
	if err != nil {
		return runs.Run{}, false, classify(err, "get run by number", "run number", seq)
	}
	run, err := runFromRow(row.Run)
	return run, row.PublicResults, err
}

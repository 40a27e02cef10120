package store

import (
	"context"
	"fmt"

	"github.com/google/uuid"

	"github.com/barrage-dev/barrage/services/api/internal/runs"
)

// AbortCandidates returns up to limit running runs with an abort
// threshold or abort_if_rate_not_held, oldest first.
func (s *Store) AbortCandidates(ctx context.Context, limit int) ([]runs.Run, error) {
	var rows []runRow
	err := s.conn(ctx).Where(`status = ? AND (EXISTS (SELECT 1 FROM unnest(thresholds) AS t (expr) WHERE t.expr LIKE '%abort%')
		OR spec->>'abort_if_rate_not_held' = 'true')`,
		string(runs.Running)).Order("created_at, id").Limit(limit).Find(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("find runs with abort thresholds: %w", err)
	}
	out := make([]runs.Run, len(rows))
	for i := range rows {
		r, err := runFromRow(rows[i])
		if err != nil {
			return nil, err
		}
		out[i] = r
	}
	return out, nil
}

// RunTotals sums a run's stored seconds: requests, errors and codes.
func (s *Store) RunTotals(ctx context.Context, id uuid.UUID) (runs.Totals, error) {
	db := s.conn(ctx)
	tot := runs.Totals{Codes: map[string]int64{}}
	err := db.Raw("SELECT coalesce(sum(count), 0), coalesce(sum(errors), 0) FROM run_intervals WHERE run_id = ?", id).
		Row().Scan(&tot.Count, &tot.Errors)
	if err != nil {
		return runs.Totals{}, fmt.Errorf("sum intervals of run %s: %w", id, err)
	}
	var codes []struct {
		Code  string `gorm:"column:code"`
		Count int64  `gorm:"column:n"`
	}
	err = db.Raw(`SELECT c.key AS code, sum(c.value::bigint) AS n FROM run_intervals i, jsonb_each_text(i.ret_codes) AS c
		WHERE i.run_id = ? GROUP BY c.key`, id).Scan(&codes).Error
	if err != nil {
		return runs.Totals{}, fmt.Errorf("sum codes of run %s: %w", id, err)
	}
	for _, c := range codes {
		tot.Codes[c.Code] = c.Count
	}
	return tot, nil
}

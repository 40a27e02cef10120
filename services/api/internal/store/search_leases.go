package store

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/barrage-dev/barrage/pkg/spec"
	"github.com/barrage-dev/barrage/services/api/internal/apperr"
	"github.com/barrage-dev/barrage/services/api/internal/searches"
)

// The leases of capacity searches (docs/capacity-search.md): every API
// replica claims the running searches whose lease ended and drives them
// while it renews their lease. Times are the database's, so replicas with
// skewed clocks agree on when a lease ended.

// claimSearchesSQL gives driver the running searches whose lease ended,
// skipping rows another replica is claiming at the same moment.
const claimSearchesSQL = `
UPDATE searches SET driver = ?, lease_until = now() + make_interval(secs => ?), updated_at = now()
WHERE id IN (
    SELECT id FROM searches
    WHERE status = 'running' AND lease_until < now()
    ORDER BY lease_until LIMIT ?
    FOR UPDATE SKIP LOCKED)
RETURNING id`

// ClaimSearches gives driver the lease of up to limit running searches
// whose lease ended, and returns their ids.
func (s *Store) ClaimSearches(ctx context.Context, driver uuid.UUID, lease time.Duration, limit int) ([]uuid.UUID, error) {
	var rows []struct {
		ID uuid.UUID `gorm:"column:id"`
	}
	if err := s.conn(ctx).Raw(claimSearchesSQL, driver, lease.Seconds(), limit).Scan(&rows).Error; err != nil {
		return nil, fmt.Errorf("claim searches: %w", err)
	}
	ids := make([]uuid.UUID, len(rows))
	for i := range rows {
		ids[i] = rows[i].ID
	}
	return ids, nil
}

// RenewSearch extends driver's lease of a running search by lease from
// now; false when the search is no longer running or another driver holds
// it.
func (s *Store) RenewSearch(ctx context.Context, id, driver uuid.UUID, lease time.Duration) (bool, error) {
	res := s.conn(ctx).Exec(`UPDATE searches SET lease_until = now() + make_interval(secs => ?), updated_at = now()
		WHERE id = ? AND driver = ? AND status = 'running'`, lease.Seconds(), id, driver)
	if res.Error != nil {
		return false, fmt.Errorf("renew the lease of search %s: %w", id, res.Error)
	}
	return res.RowsAffected == 1, nil
}

// ReleaseSearch ends driver's lease of a running search now, so that a
// replica resumes it at its next claim.
func (s *Store) ReleaseSearch(ctx context.Context, id, driver uuid.UUID) error {
	err := s.conn(ctx).Exec(`UPDATE searches SET lease_until = now() WHERE id = ? AND driver = ? AND status = 'running'`, id, driver).Error
	if err != nil {
		return fmt.Errorf("release the lease of search %s: %w", id, err)
	}
	return nil
}

// SearchSpec returns the real base spec of a search, its sealed copy
// opened; NotFound for a search from before migration 00019, which has
// none, and the sealer's error (naming the key) when it cannot be opened.
func (s *Store) SearchSpec(ctx context.Context, id uuid.UUID) (spec.Spec, error) {
	var row searchRow
	if err := s.conn(ctx).Select("id", "sealed_spec").Where("id = ?", id).Take(&row).Error; err != nil {
		return spec.Spec{}, classify(err, "read search spec", "search", id)
	}
	if row.SealedSpec == nil {
		return spec.Spec{}, apperr.New(apperr.NotFound, "search %s has no sealed base spec", id)
	}
	plain, err := s.seal.Open(row.SealedSpec)
	if err != nil {
		return spec.Spec{}, fmt.Errorf("open the sealed spec of search %s: %w", id, err)
	}
	var sp spec.Spec
	if err := json.Unmarshal(plain, &sp); err != nil {
		return spec.Spec{}, fmt.Errorf("decode the sealed spec of search %s: %w", id, err)
	}
	return sp, nil
}

var _ searches.Store = (*Store)(nil)

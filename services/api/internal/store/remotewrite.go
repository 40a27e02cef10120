package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"

	"github.com/barrage-dev/barrage/services/api/internal/auth"
	"github.com/barrage-dev/barrage/services/api/internal/remotewrite"
	"github.com/barrage-dev/barrage/services/api/internal/runs"
)

// remoteWriteRow is a row of remote_writes.
type remoteWriteRow struct {
	ProjectID     uuid.UUID  `gorm:"column:project_id;primaryKey"`
	URL           string     `gorm:"column:url"`
	HeaderNames   textArray  `gorm:"column:header_names"`
	Auth          string     `gorm:"column:auth"`
	Username      string     `gorm:"column:username"`
	SealedSecrets []byte     `gorm:"column:sealed_secrets"`
	Enabled       bool       `gorm:"column:enabled"`
	UpdatedBy     *uuid.UUID `gorm:"column:updated_by"`
	UpdatedAt     time.Time  `gorm:"column:updated_at"`
}

// TableName returns the table of remoteWriteRow.
func (remoteWriteRow) TableName() string { return "remote_writes" }

// RemoteWrite returns project id's remote-write endpoint with its secrets
// opened; apperr.NotFound when it has none.
func (s *Store) RemoteWrite(ctx context.Context, id uuid.UUID) (remotewrite.Config, error) {
	var row remoteWriteRow
	err := s.conn(ctx).Where("project_id = ?", id).Take(&row).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return remotewrite.Config{}, notFound("remote write", "for this project")
	}
	if err != nil {
		return remotewrite.Config{}, fmt.Errorf("read remote write: %w", err)
	}
	return s.remoteWriteFromRow(&row)
}

// RemoteWrites returns every enabled remote-write endpoint, secrets opened.
// One whose secrets cannot be opened (a key no longer held) is left out
// and named in the error, the others still returned.
func (s *Store) RemoteWrites(ctx context.Context) ([]remotewrite.Config, error) {
	var rows []remoteWriteRow
	if err := s.conn(ctx).Where("enabled").Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("read remote writes: %w", err)
	}
	out := make([]remotewrite.Config, 0, len(rows))
	var errs []error
	for i := range rows {
		c, err := s.remoteWriteFromRow(&rows[i])
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, c)
	}
	return out, errors.Join(errs...)
}

// PutRemoteWrite stores project c.ProjectID's remote-write endpoint,
// sealing its secrets, and returns it as stored.
func (s *Store) PutRemoteWrite(ctx context.Context, c remotewrite.Config, actor auth.Actor) (remotewrite.Config, error) {
	secrets, err := json.Marshal(c.Secrets()) //nolint:gosec // the secrets are marshaled to be sealed just below, never stored in clear

	if err != nil {
		return remotewrite.Config{}, fmt.Errorf("encode remote write secrets: %w", err)
	}
	names := textArray(slices.Sorted(maps.Keys(c.Headers)))
	if names == nil {
		names = textArray{}
	}
	row := remoteWriteRow{
		ProjectID: c.ProjectID, URL: c.URL, HeaderNames: names, Auth: c.Auth,
		Username: c.Username, SealedSecrets: s.seal.Seal(secrets), Enabled: c.Enabled, UpdatedBy: nullUUID(actor.UserID),
		UpdatedAt: time.Now().UTC(),
	}
	err = s.inTx(ctx, func(tx *gorm.DB) error {
		if err := tx.Save(&row).Error; err != nil {
			return err
		}
		return audit(tx, actor, auditEntry{
			Action: "project.remote_write", Kind: "project", ID: c.ProjectID.String(), Project: c.ProjectID,
			Details: map[string]any{"url": s.redactor.URL(c.URL), "auth": c.Auth, "header_names": names, "enabled": c.Enabled},
		})
	})
	if err != nil {
		return remotewrite.Config{}, fmt.Errorf("store remote write: %w", err)
	}
	c.UpdatedAt = row.UpdatedAt
	return c, nil
}

// DeleteRemoteWrite removes project id's remote-write endpoint;
// apperr.NotFound when it has none.
func (s *Store) DeleteRemoteWrite(ctx context.Context, id uuid.UUID, actor auth.Actor) error {
	return s.inTx(ctx, func(tx *gorm.DB) error {
		res := tx.Where("project_id = ?", id).Delete(&remoteWriteRow{})
		if res.Error != nil {
			return fmt.Errorf("delete remote write: %w", res.Error)
		}
		if res.RowsAffected == 0 {
			return notFound("remote write", "for this project")
		}
		return audit(tx, actor, auditEntry{Action: "project.remote_write_deleted", Kind: "project", ID: id.String(), Project: id})
	})
}

func (s *Store) remoteWriteFromRow(r *remoteWriteRow) (remotewrite.Config, error) {
	plain, err := s.seal.Open(r.SealedSecrets)
	if err != nil {
		return remotewrite.Config{}, fmt.Errorf("open the remote write secrets of project %s: %w", r.ProjectID, err)
	}
	var sec remotewrite.Secrets
	if err := json.Unmarshal(plain, &sec); err != nil {
		return remotewrite.Config{}, fmt.Errorf("decode the remote write secrets of project %s: %w", r.ProjectID, err)
	}
	return remotewrite.Config{
		ProjectID: r.ProjectID, URL: r.URL, Headers: sec.Headers, Auth: r.Auth, Username: r.Username,
		Password: sec.Password, BearerToken: sec.BearerToken, Enabled: r.Enabled, UpdatedAt: r.UpdatedAt.UTC(),
	}, nil
}

// RunsToExport returns the runs of projects that are running or stopping,
// and those that ended at or after endedSince, at most limit of them,
// newest first: what the remote-write exporter sends.
func (s *Store) RunsToExport(ctx context.Context, projects []uuid.UUID, endedSince time.Time, limit int) ([]runs.Run, error) {
	if len(projects) == 0 {
		return nil, nil
	}
	var rows []runRow
	err := s.conn(ctx).Where("project_id IN ? AND (status IN ('running', 'stopping') OR ended_at >= ?)", projects, endedSince).
		Order("created_at DESC").Limit(limit).Find(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("runs to export: %w", err)
	}
	out := make([]runs.Run, len(rows))
	for i := range rows {
		if out[i], err = runFromRow(rows[i]); err != nil {
			return nil, fmt.Errorf("runs to export: %w", err)
		}
	}
	return out, nil
}

// RunIntervalsChanged returns the seconds of a run stored or updated after
// after, in order.
func (s *Store) RunIntervalsChanged(ctx context.Context, runID uuid.UUID, after time.Time) ([]runs.Interval, error) {
	var rows []intervalRow
	if err := s.conn(ctx).Where("run_id = ? AND updated_at > ?", runID, after).Order("second").Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("read changed intervals of run %s: %w", runID, err)
	}
	return intervalsFromRows(rows)
}

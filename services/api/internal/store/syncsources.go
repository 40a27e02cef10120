package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/barrage-dev/barrage/services/api/internal/apperr"
	"github.com/barrage-dev/barrage/services/api/internal/auth"
	"github.com/barrage-dev/barrage/services/api/internal/paging"
	"github.com/barrage-dev/barrage/services/api/internal/resultsync"
	"github.com/barrage-dev/barrage/services/api/internal/runs"
)

// sourceRow is a row of sync_sources.
type sourceRow struct {
	ID              uuid.UUID  `gorm:"column:id;primaryKey"`
	ProjectID       uuid.UUID  `gorm:"column:project_id"`
	Name            string     `gorm:"column:name"`
	URL             string     `gorm:"column:url"`
	Kind            string     `gorm:"column:kind"`
	IntervalMinutes int        `gorm:"column:interval_minutes"`
	MaxPages        int        `gorm:"column:max_pages"`
	MaxObjects      int        `gorm:"column:max_objects"`
	NextRunAt       *time.Time `gorm:"column:next_run_at"`
	CreatedBy       *uuid.UUID `gorm:"column:created_by"`
	CreatedAt       time.Time  `gorm:"column:created_at"`
	UpdatedAt       time.Time  `gorm:"column:updated_at"`
}

// TableName returns the table of sourceRow.
func (sourceRow) TableName() string { return "sync_sources" }

// syncRunRow is a row of sync_runs.
type syncRunRow struct {
	ID        uuid.UUID  `gorm:"column:id;primaryKey"`
	SourceID  uuid.UUID  `gorm:"column:source_id"`
	Trigger   string     `gorm:"column:trigger"`
	Status    string     `gorm:"column:status"`
	Kind      string     `gorm:"column:kind"`
	StartedAt time.Time  `gorm:"column:started_at"`
	EndedAt   *time.Time `gorm:"column:ended_at"`
	Pages     int        `gorm:"column:pages"`
	Imported  int        `gorm:"column:imported"`
	Unchanged int        `gorm:"column:unchanged"`
	Skipped   int        `gorm:"column:skipped"`
	Failed    int        `gorm:"column:failed"`
	Error     string     `gorm:"column:error"`
}

// TableName returns the table of syncRunRow.
func (syncRunRow) TableName() string { return "sync_runs" }

// syncObjectRow is a row of sync_run_objects.
type syncObjectRow struct {
	SyncRunID uuid.UUID  `gorm:"column:sync_run_id;primaryKey"`
	Idx       int        `gorm:"column:idx;primaryKey"`
	URL       string     `gorm:"column:url"`
	Size      *int64     `gorm:"column:size"`
	MD5       []byte     `gorm:"column:md5"`
	Outcome   string     `gorm:"column:outcome"`
	Reason    string     `gorm:"column:reason"`
	RunID     *uuid.UUID `gorm:"column:run_id"`
}

// TableName returns the table of syncObjectRow.
func (syncObjectRow) TableName() string { return "sync_run_objects" }

// syncedRow is a row of synced_objects.
type syncedRow struct {
	SourceID  uuid.UUID `gorm:"column:source_id;primaryKey"`
	URL       string    `gorm:"column:url;primaryKey"`
	MD5       []byte    `gorm:"column:md5;primaryKey"`
	Size      int64     `gorm:"column:size"`
	RunID     uuid.UUID `gorm:"column:run_id"`
	CreatedAt time.Time `gorm:"column:created_at"`
}

// TableName returns the table of syncedRow.
func (syncedRow) TableName() string { return "synced_objects" }

func sourceToRow(s resultsync.Source) sourceRow {
	return sourceRow{
		ID: s.ID, ProjectID: s.ProjectID, Name: s.Name, URL: s.URL, Kind: string(s.Kind),
		IntervalMinutes: s.IntervalMinutes, MaxPages: s.MaxPages, MaxObjects: s.MaxObjects,
		NextRunAt: nullTime(s.NextRunAt), CreatedBy: nullUUID(s.CreatedBy), CreatedAt: orNow(s.CreatedAt), UpdatedAt: orNow(s.UpdatedAt),
	}
}

func sourceFromRow(r sourceRow) resultsync.Source {
	return resultsync.Source{
		ID: r.ID, ProjectID: r.ProjectID, Name: r.Name, URL: r.URL, Kind: resultsync.Kind(r.Kind),
		IntervalMinutes: r.IntervalMinutes, MaxPages: r.MaxPages, MaxObjects: r.MaxObjects,
		NextRunAt: fromNullTime(r.NextRunAt), CreatedBy: fromNullUUID(r.CreatedBy),
		CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC(),
	}
}

func syncRunFromRow(r syncRunRow, project uuid.UUID) resultsync.Run {
	return resultsync.Run{
		ID: r.ID, SourceID: r.SourceID, ProjectID: project, Trigger: r.Trigger, Status: resultsync.Status(r.Status),
		Kind: resultsync.Kind(r.Kind), StartedAt: r.StartedAt.UTC(), EndedAt: fromNullTime(r.EndedAt), Pages: r.Pages,
		Imported: r.Imported, Unchanged: r.Unchanged, Skipped: r.Skipped, Failed: r.Failed, Error: r.Error,
	}
}

// CreateSource inserts a sync source with an audit entry; Conflict when the
// project has a source with that URL.
func (s *Store) CreateSource(ctx context.Context, src resultsync.Source, actor auth.Actor) (resultsync.Source, error) {
	row := sourceToRow(src)
	err := s.inTx(ctx, func(tx *gorm.DB) error {
		if err := tx.Create(&row).Error; err != nil {
			if isUnique(err) {
				return apperr.New(apperr.Conflict, "the project already syncs from this URL")
			}
			return fmt.Errorf("insert: %w", err)
		}
		return audit(tx, actor, auditEntry{
			Action: "sync_source.create", Kind: "sync_source", ID: row.ID.String(), Project: row.ProjectID,
			Details: map[string]any{"name": row.Name, "interval_minutes": row.IntervalMinutes},
		})
	})
	if err != nil {
		return resultsync.Source{}, fmt.Errorf("create sync source: %w", err)
	}
	return sourceFromRow(row), nil
}

// GetSource returns a sync source; NotFound when there is none.
func (s *Store) GetSource(ctx context.Context, id uuid.UUID) (resultsync.Source, error) {
	var row sourceRow
	if err := s.conn(ctx).Where("id = ?", id).Take(&row).Error; err != nil {
		return resultsync.Source{}, classify(err, "get sync source", "sync source", id)
	}
	return sourceFromRow(row), nil
}

// ListSources returns up to page.Limit+1 sources of the projects, newest
// first, each with its latest sync.
func (s *Store) ListSources(ctx context.Context, ids []uuid.UUID, all bool, page paging.Request) ([]resultsync.Source, error) {
	var rows []sourceRow
	db := s.conn(ctx)
	if err := keyset(inProjects(db.Model(&sourceRow{}), ids, all), page).Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("list sync sources: %w", err)
	}
	out := make([]resultsync.Source, len(rows))
	srcIDs := make([]uuid.UUID, len(rows))
	for i := range rows {
		out[i], srcIDs[i] = sourceFromRow(rows[i]), rows[i].ID
	}
	var last []syncRunRow
	err := db.Raw(`SELECT DISTINCT ON (source_id) * FROM sync_runs WHERE source_id = ANY(?::uuid[])
		ORDER BY source_id, started_at DESC`, uuidArray(srcIDs)).Scan(&last).Error
	if err != nil {
		return nil, fmt.Errorf("latest syncs: %w", err)
	}
	byID := map[uuid.UUID]syncRunRow{}
	for i := range last {
		byID[last[i].SourceID] = last[i]
	}
	for i := range out {
		if r, ok := byID[out[i].ID]; ok {
			run := syncRunFromRow(r, out[i].ProjectID)
			out[i].LastRun = &run
		}
	}
	return out, nil
}

// UpdateSource stores a source's settings with an audit entry.
func (s *Store) UpdateSource(ctx context.Context, src resultsync.Source, actor auth.Actor) (resultsync.Source, error) {
	row := sourceToRow(src)
	err := s.inTx(ctx, func(tx *gorm.DB) error {
		res := tx.Model(&sourceRow{}).Where("id = ?", src.ID).Updates(map[string]any{
			"name": row.Name, "url": row.URL, "kind": row.Kind, "interval_minutes": row.IntervalMinutes,
			"max_pages": row.MaxPages, "max_objects": row.MaxObjects, "next_run_at": row.NextRunAt, "updated_at": row.UpdatedAt,
		})
		if res.Error != nil {
			if isUnique(res.Error) {
				return apperr.New(apperr.Conflict, "the project already syncs from this URL")
			}
			return fmt.Errorf("update: %w", res.Error)
		}
		if res.RowsAffected == 0 {
			return notFound("sync source", src.ID)
		}
		return audit(tx, actor, auditEntry{
			Action: "sync_source.update", Kind: "sync_source", ID: row.ID.String(), Project: row.ProjectID,
			Details: map[string]any{"name": row.Name, "interval_minutes": row.IntervalMinutes},
		})
	})
	if err != nil {
		return resultsync.Source{}, fmt.Errorf("update sync source: %w", err)
	}
	return s.GetSource(ctx, src.ID)
}

// DeleteSource removes a source and its sync history with an audit entry.
func (s *Store) DeleteSource(ctx context.Context, src resultsync.Source, actor auth.Actor) error {
	return s.inTx(ctx, func(tx *gorm.DB) error {
		if err := tx.Where("id = ?", src.ID).Delete(&sourceRow{}).Error; err != nil {
			return fmt.Errorf("delete sync source: %w", err)
		}
		return audit(tx, actor, auditEntry{
			Action: "sync_source.delete", Kind: "sync_source", ID: src.ID.String(), Project: src.ProjectID,
			Details: map[string]any{"name": src.Name},
		})
	})
}

// StartSync records a running sync of source; Conflict while another runs.
// A running sync that started before staleBefore is ended as failed first.
func (s *Store) StartSync(ctx context.Context, source uuid.UUID, trigger string, staleBefore time.Time) (resultsync.Run, error) {
	row := syncRunRow{ID: uuid.New(), SourceID: source, Trigger: trigger, Status: string(resultsync.Running), Kind: string(resultsync.KindAuto), StartedAt: time.Now().UTC()}
	var src sourceRow
	err := s.inTx(ctx, func(tx *gorm.DB) error {
		if err := tx.Where("id = ?", source).Take(&src).Error; err != nil {
			return classify(err, "get sync source", "sync source", source)
		}
		err := tx.Model(&syncRunRow{}).Where("source_id = ? AND status = ? AND started_at < ?", source, string(resultsync.Running), staleBefore).
			Updates(map[string]any{"status": string(resultsync.Failed), "ended_at": time.Now().UTC(), "error": "the server running the sync went away"}).Error
		if err != nil {
			return fmt.Errorf("end stale sync: %w", err)
		}
		if err := tx.Create(&row).Error; err != nil {
			if isUnique(err) {
				return apperr.New(apperr.Conflict, "a sync of this source is running; wait for it to end")
			}
			return fmt.Errorf("insert sync: %w", err)
		}
		return nil
	})
	if err != nil {
		return resultsync.Run{}, fmt.Errorf("start sync: %w", err)
	}
	return syncRunFromRow(row, src.ProjectID), nil
}

// AddSyncObject records one object's outcome and counts it on its sync.
func (s *Store) AddSyncObject(ctx context.Context, run uuid.UUID, idx int, o resultsync.Object) error {
	row := syncObjectRow{SyncRunID: run, Idx: idx, URL: o.URL, MD5: o.MD5, Outcome: string(o.Outcome), Reason: o.Reason, RunID: nullUUID(o.RunID)}
	if o.Size >= 0 {
		row.Size = &o.Size
	}
	column := map[resultsync.Outcome]string{
		resultsync.Imported: "imported", resultsync.Unchanged: "unchanged", resultsync.Skipped: "skipped",
	}[o.Outcome]
	if column == "" {
		column = "failed"
	}
	return s.inTx(ctx, func(tx *gorm.DB) error {
		if err := tx.Create(&row).Error; err != nil {
			return fmt.Errorf("record sync object: %w", err)
		}
		err := tx.Model(&syncRunRow{}).Where("id = ?", run).Update(column, gorm.Expr(column+" + 1")).Error
		if err != nil {
			return fmt.Errorf("count sync object: %w", err)
		}
		return nil
	})
}

// EndSync records how a sync ended.
func (s *Store) EndSync(ctx context.Context, r resultsync.Run) error {
	err := s.conn(ctx).Model(&syncRunRow{}).Where("id = ?", r.ID).Updates(map[string]any{
		"status": string(r.Status), "kind": string(r.Kind), "pages": r.Pages, "error": r.Error, "ended_at": orNow(r.EndedAt),
	}).Error
	if err != nil {
		return fmt.Errorf("end sync %s: %w", r.ID, err)
	}
	if r.Kind != "" && r.Kind != resultsync.KindAuto {
		if err := s.conn(ctx).Model(&sourceRow{}).Where("id = ?", r.SourceID).Update("kind", string(r.Kind)).Error; err != nil {
			return fmt.Errorf("record kind of source %s: %w", r.SourceID, err)
		}
	}
	return nil
}

// ListSyncs returns a source's latest syncs, newest first, without objects.
func (s *Store) ListSyncs(ctx context.Context, source uuid.UUID, limit int) ([]resultsync.Run, error) {
	src, err := s.GetSource(ctx, source)
	if err != nil {
		return nil, err
	}
	var rows []syncRunRow
	if err := s.conn(ctx).Where("source_id = ?", source).Order("started_at DESC, id DESC").Limit(limit).Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("list syncs: %w", err)
	}
	out := make([]resultsync.Run, len(rows))
	for i := range rows {
		out[i] = syncRunFromRow(rows[i], src.ProjectID)
	}
	return out, nil
}

// GetSync returns a sync with its objects in listing order.
func (s *Store) GetSync(ctx context.Context, id uuid.UUID) (resultsync.Run, error) {
	var row syncRunRow
	db := s.conn(ctx)
	if err := db.Where("id = ?", id).Take(&row).Error; err != nil {
		return resultsync.Run{}, classify(err, "get sync", "sync", id)
	}
	src, err := s.GetSource(ctx, row.SourceID)
	if err != nil {
		return resultsync.Run{}, err
	}
	var objs []syncObjectRow
	if err := db.Where("sync_run_id = ?", id).Order("idx").Find(&objs).Error; err != nil {
		return resultsync.Run{}, fmt.Errorf("list sync objects: %w", err)
	}
	out := syncRunFromRow(row, src.ProjectID)
	out.Objects = make([]resultsync.Object, len(objs))
	for i, o := range objs {
		size := int64(-1)
		if o.Size != nil {
			size = *o.Size
		}
		out.Objects[i] = resultsync.Object{
			URL: o.URL, Size: size, MD5: o.MD5, Outcome: resultsync.Outcome(o.Outcome), Reason: o.Reason, RunID: fromNullUUID(o.RunID),
		}
	}
	return out, nil
}

// SyncedRun returns the run an object version was imported as.
func (s *Store) SyncedRun(ctx context.Context, k resultsync.SyncedKey) (uuid.UUID, bool, error) {
	var row syncedRow
	err := s.conn(ctx).Where("source_id = ? AND url = ? AND md5 = ?", k.SourceID, k.URL, k.MD5).Take(&row).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return uuid.Nil, false, nil
	}
	if err != nil {
		return uuid.Nil, false, fmt.Errorf("find synced object: %w", err)
	}
	return row.RunID, true, nil
}

// ImportSynced stores an imported run and records k for it in one
// transaction; when k is recorded already it returns that run.
func (s *Store) ImportSynced(ctx context.Context, n runs.NewImport, k resultsync.SyncedKey) (uuid.UUID, bool, error) {
	var (
		id      uuid.UUID
		created bool
	)
	err := s.inTx(ctx, func(tx *gorm.DB) error {
		var prev syncedRow
		err := tx.Where("source_id = ? AND url = ? AND md5 = ?", k.SourceID, k.URL, k.MD5).Take(&prev).Error
		if err == nil {
			id = prev.RunID
			return nil
		}
		if !errors.Is(err, gorm.ErrRecordNotFound) {
			return fmt.Errorf("find synced object: %w", err)
		}
		run, err := insertImport(tx, n)
		if err != nil {
			return err
		}
		row := syncedRow{SourceID: k.SourceID, URL: k.URL, MD5: k.MD5, Size: k.Size, RunID: run.ID, CreatedAt: time.Now().UTC()}
		if err := tx.Clauses(clause.OnConflict{DoNothing: true}).Create(&row).Error; err != nil {
			return fmt.Errorf("record synced object: %w", err)
		}
		id, created = run.ID, true
		return nil
	})
	if err != nil {
		return uuid.Nil, false, fmt.Errorf("import synced object: %w", err)
	}
	return id, created, nil
}

// ClaimDue returns up to limit sources whose next sync is due, moving each
// one's next_run_at an interval on in the same statement, so that of
// several servers only one claims it.
func (s *Store) ClaimDue(ctx context.Context, now time.Time, limit int) ([]resultsync.Source, error) {
	var rows []sourceRow
	err := s.conn(ctx).Raw(`UPDATE sync_sources SET next_run_at = ?::timestamptz + make_interval(mins => interval_minutes)
		WHERE id IN (SELECT id FROM sync_sources WHERE next_run_at <= ?::timestamptz AND interval_minutes > 0
			ORDER BY next_run_at LIMIT ? FOR UPDATE SKIP LOCKED)
		RETURNING *`, now, now, limit).Scan(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("claim due sync sources: %w", err)
	}
	out := make([]resultsync.Source, len(rows))
	for i := range rows {
		out[i] = sourceFromRow(rows[i])
	}
	return out, nil
}

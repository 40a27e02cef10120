package store

import (
	"context"
	"crypto/md5" //nolint:gosec // Fortio's index.tsv names files by MD5; not a security use
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/barrage-dev/barrage/pkg/fortiojson"
	"github.com/barrage-dev/barrage/services/api/internal/runs"
)

// importRow is a row of run_imports.
type importRow struct {
	RunID   uuid.UUID `gorm:"column:run_id;primaryKey"`
	Format  string    `gorm:"column:format"`
	Origin  string    `gorm:"column:origin"`
	Latency []byte    `gorm:"column:latency"`
}

// TableName returns the table of importRow.
func (importRow) TableName() string { return "run_imports" }

// importedOf returns what run id's document said, or nil for a run that
// was not imported.
func importedOf(db *gorm.DB, id uuid.UUID) (*runs.Imported, error) {
	var row importRow
	err := db.Where("run_id = ?", id).Take(&row).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read import of run %s: %w", id, err)
	}
	var l fortiojson.Latency
	if err := json.Unmarshal(row.Latency, &l); err != nil {
		return nil, fmt.Errorf("decode import of run %s: %w", id, err)
	}
	return &runs.Imported{Format: row.Format, Origin: row.Origin, Latency: l}, nil
}

// CreateImportedRun stores a completed run imported from a document: the
// run with its summary, its result (the redacted document as its Fortio
// export), what the document said and an audit entry, in one transaction.
func (s *Store) CreateImportedRun(ctx context.Context, n runs.NewImport) (runs.Run, error) {
	var run runs.Run
	err := s.inTx(ctx, func(tx *gorm.DB) error {
		var err error
		run, err = insertImport(tx, n)
		return err
	})
	if err != nil {
		return runs.Run{}, fmt.Errorf("import run: %w", err)
	}
	return run, nil
}

// insertImport writes n in tx and returns the stored run.
func insertImport(tx *gorm.DB, n runs.NewImport) (runs.Run, error) {
	row, err := runToRow(n.Run)
	if err != nil {
		return runs.Run{}, err
	}
	setSummary(&row, n.Summary)
	if err := tx.Clauses(clause.Returning{}).Create(&row).Error; err != nil {
		return runs.Run{}, fmt.Errorf("insert run: %w", err)
	}
	r, imp := n.Result, n.Result.Imported
	if imp == nil {
		return runs.Run{}, errors.New("an imported run needs what its document said")
	}
	sum := md5.Sum(r.Fortio) //nolint:gosec // see import
	size := int64(len(r.Fortio))
	res := resultRow{
		RunID: row.ID, RetCodes: codesJSON(r.RetCodes), Count: r.Count, Errors: r.Errors, BytesSent: r.BytesSent,
		BytesReceived: r.BytesReceived, DurationUS: r.Duration.Microseconds(), CreatedAt: time.Now().UTC(),
		FortioJSON: r.Fortio, FortioMD5: sum[:], FortioSize: &size,
	}
	if err := tx.Create(&res).Error; err != nil {
		return runs.Run{}, fmt.Errorf("insert result: %w", err)
	}
	lat, err := json.Marshal(imp.Latency)
	if err != nil {
		return runs.Run{}, fmt.Errorf("encode latency: %w", err)
	}
	if err := tx.Create(&importRow{RunID: row.ID, Format: imp.Format, Origin: imp.Origin, Latency: lat}).Error; err != nil {
		return runs.Run{}, fmt.Errorf("insert import: %w", err)
	}
	err = audit(tx, n.Actor, auditEntry{
		Action: "run.import", Kind: "run", ID: row.ID.String(), Project: row.ProjectID,
		Details: map[string]any{"name": row.Name, "source": row.Source, "origin": imp.Origin},
	})
	if err != nil {
		return runs.Run{}, err
	}
	return runFromRow(row)
}

// setSummary fills row's summary columns from sm.
func setSummary(row *runRow, sm runs.Summary) {
	row.Count, row.Errors, row.QPSActual = sm.Count, sm.Errors, &sm.QPS
	row.MinUS, row.AvgUS, row.P50US = &sm.MinUS, &sm.AvgUS, &sm.P50US
	row.P90US, row.P99US, row.MaxUS = &sm.P90US, &sm.P99US, &sm.MaxUS
}

// SaveFortio stores a run's Fortio export when it has none yet and returns
// the bytes stored, which are the earlier ones when another request got
// there first: /fortio/data serves the same bytes every time.
func (s *Store) SaveFortio(ctx context.Context, runID uuid.UUID, body []byte) ([]byte, []byte, error) {
	sum := md5.Sum(body) //nolint:gosec // see import
	size := int64(len(body))
	var row resultRow
	err := s.inTx(ctx, func(tx *gorm.DB) error {
		err := tx.Model(&resultRow{}).Where("run_id = ? AND fortio_json IS NULL", runID).
			Updates(map[string]any{"fortio_json": body, "fortio_md5": sum[:], "fortio_size": size}).Error
		if err != nil {
			return fmt.Errorf("update: %w", err)
		}
		return tx.Select("fortio_json", "fortio_md5").Where("run_id = ?", runID).Take(&row).Error
	})
	if err != nil {
		return nil, nil, classify(err, "save fortio export", "result of run", runID)
	}
	return row.FortioJSON, row.FortioMD5, nil
}

package store

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/barrage-dev/barrage/pkg/threshold"
	"github.com/barrage-dev/barrage/services/api/internal/apperr"
	"github.com/barrage-dev/barrage/services/api/internal/auth"
	"github.com/barrage-dev/barrage/services/api/internal/runs"
)

// resultRow is a row of run_results: the merged final histograms and
// totals of a run, and its Fortio export once made. sizes and header_sizes
// are not written here.
type resultRow struct {
	RunID         uuid.UUID `gorm:"column:run_id;primaryKey"`
	Response      []byte    `gorm:"column:response"`
	Service       []byte    `gorm:"column:service"`
	Lag           []byte    `gorm:"column:lag"`
	Server        []byte    `gorm:"column:server"`
	RetCodes      []byte    `gorm:"column:ret_codes"`
	Count         int64     `gorm:"column:count"`
	Errors        int64     `gorm:"column:errors"`
	BytesSent     int64     `gorm:"column:bytes_sent"`
	BytesReceived int64     `gorm:"column:bytes_received"`
	DurationUS    int64     `gorm:"column:duration_us"`
	Shards        int       `gorm:"column:shards"`
	LostShards    int       `gorm:"column:lost_shards"`
	CreatedAt     time.Time `gorm:"column:created_at"`
	FortioJSON    []byte    `gorm:"column:fortio_json"`
	FortioMD5     []byte    `gorm:"column:fortio_md5"`
	FortioSize    *int64    `gorm:"column:fortio_size"`
	Entries       []byte    `gorm:"column:entries"`
	Phases        []byte    `gorm:"column:phases"`
	Limited       int       `gorm:"column:generator_limited_seconds"`
	Scenario      []byte    `gorm:"column:scenario"`
}

// entryRow is one element of run_results.entries.
type entryRow struct {
	Index         int              `json:"index"`
	Count         int64            `json:"count"`
	Errors        int64            `json:"errors"`
	RetCodes      map[string]int64 `json:"ret_codes"`
	BytesSent     int64            `json:"bytes_sent"`
	BytesReceived int64            `json:"bytes_received"`
	Service       string           `json:"service"`
	Response      string           `json:"response"`
}

// entriesJSON encodes a result's entries for run_results.entries; nil
// (SQL NULL) without any.
func entriesJSON(list []runs.EntryResult) ([]byte, error) {
	if len(list) == 0 {
		return nil, nil
	}
	rows := make([]entryRow, len(list))
	for i, e := range list {
		rows[i] = entryRow{Index: e.Index, Count: e.Count, Errors: e.Errors, RetCodes: e.RetCodes, BytesSent: e.BytesSent,
			BytesReceived: e.BytesReceived, Service: string(e.Service), Response: string(e.Response)}
	}
	return json.Marshal(rows)
}

// parseEntries decodes run_results.entries.
func parseEntries(b []byte) ([]runs.EntryResult, error) {
	if len(b) == 0 {
		return nil, nil
	}
	var rows []entryRow
	if err := json.Unmarshal(b, &rows); err != nil {
		return nil, fmt.Errorf("entries: %w", err)
	}
	out := make([]runs.EntryResult, len(rows))
	for i, r := range rows {
		out[i] = runs.EntryResult{Index: r.Index, Count: r.Count, Errors: r.Errors, RetCodes: r.RetCodes, BytesSent: r.BytesSent,
			BytesReceived: r.BytesReceived, Service: []byte(r.Service), Response: []byte(r.Response)}
	}
	return out, nil
}

// TableName returns the table of resultRow.
func (resultRow) TableName() string { return "run_results" }

// FinishRun ends a run whose every shard is done or lost, in one
// transaction: it locks the run, hands it and its shards to decide, and
// writes what decide returns (status, summary columns, result row, audit
// entry, verdict and threshold outcomes). decide is given the run's
// baseline (the newest earlier passing run of its test, or the last N of
// them pooled). It returns the run and finished=true when it ended it; when the
// run has already ended, or a shard is still pending, it changes nothing
// and returns finished=false, so calling it again is harmless. Conflict
// when decide picks a status the run cannot move to; NotFound when there
// is no such run.
func (s *Store) FinishRun(ctx context.Context, id uuid.UUID, decide func(runs.Settlement) (runs.Finish, error)) (runs.Run, bool, error) {
	var (
		row      runRow
		finished bool
	)
	err := s.inTx(ctx, func(tx *gorm.DB) error {
		if err := tx.Clauses(clause.Locking{Strength: "UPDATE"}).Where("id = ?", id).Take(&row).Error; err != nil {
			return classify(err, "lock run", "run", id)
		}
		if runs.Status(row.Status).Terminal() {
			return nil
		}
		var shards []shardRow
		if err := tx.Where("run_id = ?", id).Order("shard").Find(&shards).Error; err != nil {
			return fmt.Errorf("read shards: %w", err)
		}
		states := shardStates(shards)
		if len(states) == 0 {
			return nil
		}
		for _, st := range states {
			if !st.Status.Settled() {
				return nil
			}
		}
		run, err := runFromRow(row)
		if err != nil {
			return err
		}
		bases, err := baselines(tx, &row)
		if err != nil {
			return err
		}
		settle := runs.Settlement{Run: run, Shards: states}
		if settle.LimitedSeconds, err = limitedSeconds(tx, id); err != nil {
			return err
		}
		if len(bases) > 0 && threshold.NeedsSeconds(run.Thresholds) {
			for i := range bases {
				if bases[i].Seconds, err = allIntervals(tx, bases[i].Run.ID); err != nil {
					return err
				}
			}
			if settle.Seconds, err = allIntervals(tx, id); err != nil {
				return err
			}
		} else if settle.SentBeforeLost() {
			if settle.Seconds, err = allIntervals(tx, id); err != nil {
				return err
			}
		}
		if len(bases) > 0 {
			settle.Baseline, settle.Pooled = &bases[0], bases[1:]
		}
		f, err := decide(settle)
		if err != nil {
			return err
		}
		if err := writeFinish(tx, &row, f); err != nil {
			return err
		}
		finished = true
		return nil
	})
	if err != nil {
		return runs.Run{}, false, fmt.Errorf("finish run %s: %w", id, err)
	}
	run, err := runFromRow(row)
	if err != nil {
		return runs.Run{}, false, fmt.Errorf("finish run %s: %w", id, err)
	}
	return run, finished, nil
}

// writeFinish applies f to the locked run in row (which it updates) and
// stores the result.
func writeFinish(tx *gorm.DB, row *runRow, f runs.Finish) error {
	from := runs.Status(row.Status)
	if !runs.CanMove(from, f.Status) || !f.Status.Terminal() {
		return apperr.New(apperr.Conflict, "run is %s; it cannot become %s", from, f.Status)
	}
	set := map[string]any{
		"status": string(f.Status), "ended_at": orNow(f.At).UTC(), "degraded": f.Degraded, "updated_at": gorm.Expr("now()"),
	}
	if f.Error != "" {
		set["error"] = f.Error
	}
	if row.StartedAt == nil && !f.StartedAt.IsZero() {
		set["started_at"] = f.StartedAt.UTC()
	}
	if sm := f.Summary; sm != nil {
		set["count"], set["errors"], set["qps_actual"] = sm.Count, sm.Errors, sm.QPS
		set["min_us"], set["avg_us"], set["p50_us"] = sm.MinUS, sm.AvgUS, sm.P50US
		set["p90_us"], set["p99_us"], set["max_us"] = sm.P90US, sm.P99US, sm.MaxUS
	}
	set["verdict_note"] = f.VerdictNote
	if err := setVerdict(set, f); err != nil {
		return err
	}
	if err := tx.Model(row).Clauses(clause.Returning{}).Where("id = ?", row.ID).Updates(set).Error; err != nil {
		return fmt.Errorf("update run: %w", err)
	}
	if r := f.Result; r != nil {
		entries, err := entriesJSON(r.Entries)
		if err != nil {
			return fmt.Errorf("store result entries: %w", err)
		}
		phases, err := phasesJSON(r.Phases)
		if err != nil {
			return fmt.Errorf("store result phases: %w", err)
		}
		scen, err := scenarioJSON(r.Scenario)
		if err != nil {
			return fmt.Errorf("store result scenario: %w", err)
		}
		res := resultRow{
			Entries: entries, Phases: phases, Scenario: scen,
			RunID: row.ID, Response: r.Response, Service: r.Service, Lag: r.Lag, Server: r.Server, RetCodes: codesJSON(r.RetCodes),
			Count: r.Count, Errors: r.Errors, BytesSent: r.BytesSent, BytesReceived: r.BytesReceived,
			DurationUS: r.Duration.Microseconds(), Shards: r.Shards, LostShards: r.LostShards, CreatedAt: time.Now().UTC(),
			Limited: r.GeneratorLimitedSeconds,
		}
		if err := tx.Clauses(clause.OnConflict{UpdateAll: true}).Create(&res).Error; err != nil {
			return fmt.Errorf("store result: %w", err)
		}
	}
	if f.Timeline != nil {
		if err := writeTimeline(tx, row.ID, f.Timeline); err != nil {
			return err
		}
	}
	return audit(tx, auth.Actor{}, auditEntry{
		Action: "run.move", Kind: "run", ID: row.ID.String(), Project: row.ProjectID,
		Details: map[string]any{"to": f.Status, "error": f.Error, "degraded": f.Degraded, "verdict": f.Verdict},
	})
}

// RunResult returns a run's merged result, with what an imported run's
// document said; NotFound until it has one.
func (s *Store) RunResult(ctx context.Context, runID uuid.UUID) (runs.Result, error) {
	var row resultRow
	db := s.conn(ctx)
	if err := db.Where("run_id = ?", runID).Take(&row).Error; err != nil {
		return runs.Result{}, classify(err, "get run result", "result of run", runID)
	}
	res, err := resultFromRow(row)
	if err != nil {
		return runs.Result{}, err
	}
	if res.Imported, err = importedOf(db, runID); err != nil {
		return runs.Result{}, err
	}
	return res, nil
}

// resultFromRow maps a run_results row to a result.
func resultFromRow(row resultRow) (runs.Result, error) {
	codes, err := parseCodes(row.RetCodes)
	if err != nil {
		return runs.Result{}, fmt.Errorf("result of run %s: %w", row.RunID, err)
	}
	entries, err := parseEntries(row.Entries)
	if err != nil {
		return runs.Result{}, fmt.Errorf("result of run %s: %w", row.RunID, err)
	}
	phases, err := parsePhases(row.Phases)
	if err != nil {
		return runs.Result{}, fmt.Errorf("result of run %s: %w", row.RunID, err)
	}
	scen, err := parseScenario(row.Scenario)
	if err != nil {
		return runs.Result{}, fmt.Errorf("result of run %s: %w", row.RunID, err)
	}
	return runs.Result{
		Entries: entries, Phases: phases, Scenario: scen,
		RunID: row.RunID, Response: row.Response, Service: row.Service, Lag: row.Lag, Server: row.Server, RetCodes: codes,
		Count: row.Count, Errors: row.Errors, BytesSent: row.BytesSent, BytesReceived: row.BytesReceived,
		Duration: time.Duration(row.DurationUS) * time.Microsecond, Shards: row.Shards, LostShards: row.LostShards,
		GeneratorLimitedSeconds: row.Limited, CreatedAt: row.CreatedAt.UTC(), Fortio: row.FortioJSON, FortioMD5: row.FortioMD5,
	}, nil
}

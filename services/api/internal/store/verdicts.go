package store

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/google/uuid"
	"gorm.io/gorm"

	"github.com/barrage-dev/barrage/pkg/threshold"
	"github.com/barrage-dev/barrage/services/api/internal/runs"
)

// outcomeJSON is one element of runs.threshold_results (migration 00003).
type outcomeJSON struct {
	Expression string  `json:"expression"`
	Metric     string  `json:"metric"`
	Unit       string  `json:"unit"`
	Observed   float64 `json:"observed"`
	Limit      float64 `json:"limit"`
	Pass       bool    `json:"pass"`
	Error      string  `json:"error,omitempty"`
	// Inconclusive, Note and Estimate are a confidence form's (migration
	// 00022).
	Inconclusive bool          `json:"inconclusive,omitempty"`
	Note         string        `json:"note,omitempty"`
	Estimate     *estimateJSON `json:"estimate,omitempty"`
}

// estimateJSON is a confidence form's threshold.Estimate.
type estimateJSON struct {
	Confidence float64 `json:"confidence"`
	Ratio      float64 `json:"ratio"`
	RatioLow   float64 `json:"ratio_low"`
	RatioHigh  float64 `json:"ratio_high"`
	MarginLow  float64 `json:"margin_low"`
	MarginHigh float64 `json:"margin_high"`
	Longer     float64 `json:"longer"`
	Seconds    int     `json:"seconds"`
	Spread     float64 `json:"spread,omitempty"`
	SpreadRuns int     `json:"spread_runs,omitempty"`
}

func estimateToJSON(e *threshold.Estimate) *estimateJSON {
	if e == nil {
		return nil
	}
	j := estimateJSON(*e)
	return &j
}

func estimateFromJSON(j *estimateJSON) *threshold.Estimate {
	if j == nil {
		return nil
	}
	e := threshold.Estimate(*j)
	return &e
}

// outcomesJSON encodes threshold outcomes for the jsonb column; nil stays
// NULL (not judged).
func outcomesJSON(list []threshold.Outcome) ([]byte, error) {
	if list == nil {
		return nil, nil
	}
	rows := make([]outcomeJSON, len(list))
	for i, o := range list {
		rows[i] = outcomeJSON{
			Expression: o.Expression, Metric: o.Metric, Unit: string(o.Unit), Observed: o.Observed, Limit: o.Limit,
			Pass: o.Pass, Error: o.Error, Inconclusive: o.Inconclusive, Note: o.Note, Estimate: estimateToJSON(o.Estimate),
		}
	}
	b, err := json.Marshal(rows)
	if err != nil { // NaN or Inf: the evaluation never produces them from finite inputs
		return nil, fmt.Errorf("encode threshold results: %w", err)
	}
	return b, nil
}

// parseOutcomes decodes the jsonb column; NULL is nil.
func parseOutcomes(b []byte) ([]threshold.Outcome, error) {
	if len(b) == 0 {
		return nil, nil
	}
	var rows []outcomeJSON
	if err := json.Unmarshal(b, &rows); err != nil {
		return nil, fmt.Errorf("decode threshold results: %w", err)
	}
	out := make([]threshold.Outcome, len(rows))
	for i, r := range rows {
		out[i] = threshold.Outcome{
			Expression: r.Expression, Metric: r.Metric, Unit: threshold.Unit(r.Unit), Observed: r.Observed,
			Limit: r.Limit, Pass: r.Pass, Error: r.Error, Inconclusive: r.Inconclusive, Note: r.Note, Estimate: estimateFromJSON(r.Estimate),
		}
	}
	return out, nil
}

// baselinePoolJSON is runs.baseline_pool (migration 00025).
type baselinePoolJSON struct {
	Runs []uuid.UUID `json:"runs"`
	Note string      `json:"note,omitempty"`
}

func baselinePoolToJSON(p *runs.BaselinePool) ([]byte, error) {
	j := baselinePoolJSON{Runs: p.Runs, Note: p.Note}
	if j.Runs == nil {
		j.Runs = []uuid.UUID{}
	}
	b, err := json.Marshal(j)
	if err != nil {
		return nil, fmt.Errorf("encode baseline pool: %w", err)
	}
	return b, nil
}

// parseBaselinePool decodes runs.baseline_pool; NULL is nil.
func parseBaselinePool(b []byte) (*runs.BaselinePool, error) {
	if len(b) == 0 {
		return nil, nil
	}
	var j baselinePoolJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return nil, fmt.Errorf("decode baseline pool: %w", err)
	}
	return &runs.BaselinePool{Runs: j.Runs, Note: j.Note}, nil
}

// baselines returns the run's baseline runs, newest first: the requested
// one (a completed run of its project), or else the newest passing run of
// its test created before it, or the last baseline_last of them; each with
// its result. None when the run has no thresholds, or neither a test nor a
// request, or there is no such run.
func baselines(tx *gorm.DB, run *runRow) ([]runs.Baseline, error) {
	if len(run.Thresholds) == 0 || (run.TestID == nil && run.BaselineRequest == nil) {
		return nil, nil
	}
	var rows []runRow
	var err error
	if run.BaselineRequest != nil {
		err = tx.Where("id = ? AND project_id = ? AND status = ?", *run.BaselineRequest, run.ProjectID, string(runs.Completed)).Find(&rows).Error
	} else {
		err = tx.Where("project_id = ? AND test_id = ? AND status = ? AND verdict = ? AND created_at < ? AND id <> ?",
			run.ProjectID, *run.TestID, string(runs.Completed), runs.VerdictPass, run.CreatedAt, run.ID).
			Order("created_at DESC, id DESC").Limit(max(1, fromNullInt(run.BaselineLast))).Find(&rows).Error
	}
	if err != nil {
		return nil, fmt.Errorf("find baseline: %w", err)
	}
	out := make([]runs.Baseline, 0, len(rows))
	for i := range rows {
		row := &rows[i]
		var res resultRow
		err = tx.Where("run_id = ?", row.ID).Take(&res).Error
		if errors.Is(err, gorm.ErrRecordNotFound) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("read baseline result: %w", err)
		}
		var b runs.Baseline
		if b.Run, err = runFromRow(*row); err != nil {
			return nil, err
		}
		if b.Result, err = resultFromRow(res); err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, nil
}

// setVerdict adds the verdict columns of f to set.
func setVerdict(set map[string]any, f runs.Finish) error {
	if f.Verdict != "" {
		set["verdict"] = f.Verdict
	}
	if f.Thresholds != nil {
		b, err := outcomesJSON(f.Thresholds)
		if err != nil {
			return err
		}
		set["threshold_results"] = b
	}
	if f.BaselineRunID != uuid.Nil {
		set["baseline_run_id"] = f.BaselineRunID
	}
	if f.BaselinePool != nil {
		b, err := baselinePoolToJSON(f.BaselinePool)
		if err != nil {
			return err
		}
		set["baseline_pool"] = b
	}
	return nil
}

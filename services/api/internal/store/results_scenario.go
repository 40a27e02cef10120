package store

import (
	"encoding/json"
	"fmt"

	"github.com/barrage-dev/barrage/services/api/internal/runs"
)

// scenarioRow is run_results.scenario (migration 00028): runs.ScenarioResult
// with its histograms as their base64 text, as entries keep theirs.
type scenarioRow struct {
	Started   int64     `json:"started"`
	Completed int64     `json:"completed"`
	Failed    int64     `json:"failed"`
	Iteration string    `json:"iteration"`
	Steps     []stepRow `json:"steps"`
}

type stepRow struct {
	Index             int              `json:"index"`
	Count             int64            `json:"count"`
	Errors            int64            `json:"errors"`
	Skipped           int64            `json:"skipped"`
	RetCodes          map[string]int64 `json:"ret_codes"`
	FailedChecks      map[string]int64 `json:"failed_checks,omitempty"`
	FailedExtractions map[string]int64 `json:"failed_extractions,omitempty"`
	TransportErrors   map[string]int64 `json:"transport_errors,omitempty"`
	Response          string           `json:"response"`
	Service           string           `json:"service"`
	Lag               string           `json:"lag"`
}

// scenarioJSON encodes a scenario result; nil (SQL NULL) for other runs.
func scenarioJSON(sc *runs.ScenarioResult) ([]byte, error) {
	if sc == nil {
		return nil, nil
	}
	row := scenarioRow{Started: sc.Started, Completed: sc.Completed, Failed: sc.Failed, Iteration: string(sc.Iteration)}
	for i := range sc.Steps {
		s := &sc.Steps[i]
		row.Steps = append(row.Steps, stepRow{
			Index: s.Index, Count: s.Count, Errors: s.Errors, Skipped: s.Skipped, RetCodes: s.RetCodes,
			FailedChecks: s.FailedChecks, FailedExtractions: s.FailedExtractions, TransportErrors: s.TransportErrors,
			Response: string(s.Response), Service: string(s.Service), Lag: string(s.Lag),
		})
	}
	return json.Marshal(row)
}

// parseScenario decodes run_results.scenario.
func parseScenario(b []byte) (*runs.ScenarioResult, error) {
	if len(b) == 0 {
		return nil, nil
	}
	var row scenarioRow
	if err := json.Unmarshal(b, &row); err != nil {
		return nil, fmt.Errorf("scenario: %w", err)
	}
	out := &runs.ScenarioResult{Started: row.Started, Completed: row.Completed, Failed: row.Failed, Iteration: []byte(row.Iteration)}
	for _, s := range row.Steps {
		out.Steps = append(out.Steps, runs.StepResult{
			Index: s.Index, Count: s.Count, Errors: s.Errors, Skipped: s.Skipped, RetCodes: s.RetCodes,
			FailedChecks: s.FailedChecks, FailedExtractions: s.FailedExtractions, TransportErrors: s.TransportErrors,
			Response: []byte(s.Response), Service: []byte(s.Service), Lag: []byte(s.Lag),
		})
	}
	return out, nil
}

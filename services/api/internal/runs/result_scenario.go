package runs

// ScenarioResult is the merged result of a scenario run (docs/scenarios.md):
// its iterations and a row per step, summed over its shards' final
// snapshots. The run's own totals add up every step's requests.
type ScenarioResult struct {
	// Started iterations are Completed (every step ran and passed) or
	// Failed.
	Started   int64 `json:"started"`
	Completed int64 `json:"completed"`
	Failed    int64 `json:"failed"`
	// Iteration is the HdrHistogram encoding (pkg/hist) of the iterations'
	// durations, from their intended start to their last step's end.
	Iteration []byte `json:"iteration"`
	// Steps are the steps' results, in the scenario's order.
	Steps []StepResult `json:"steps"`
}

// StepResult is the merged result of one scenario step.
type StepResult struct {
	// Index is the step's position in the spec's scenario.
	Index int `json:"index"`
	// Count is its requests; Errors those with a transport error, a failed
	// check or a failed extraction; Skipped the iterations that ended
	// before it.
	Count   int64 `json:"count"`
	Errors  int64 `json:"errors"`
	Skipped int64 `json:"skipped"`
	// RetCodes counts by HTTP status ("-1": no response).
	RetCodes map[string]int64 `json:"ret_codes"`
	// FailedChecks counts failed checks by name, FailedExtractions failed
	// extractions by variable, TransportErrors requests without a
	// response by kind.
	FailedChecks      map[string]int64 `json:"failed_checks,omitempty"`
	FailedExtractions map[string]int64 `json:"failed_extractions,omitempty"`
	TransportErrors   map[string]int64 `json:"transport_errors,omitempty"`
	// Response, Service and Lag are HdrHistogram encodings (pkg/hist).
	Response []byte `json:"response"`
	Service  []byte `json:"service"`
	Lag      []byte `json:"lag"`
}

// FortioHDR returns the encoded histogram Fortio's formats (its result
// JSON and its -csv) show as a run's calls: a scenario run's iteration
// durations, since its calls are its iterations (docs/scenarios.md), and
// any other run's headline latency.
func (r Result) FortioHDR(run Run) []byte {
	if r.Scenario != nil {
		return r.Scenario.Iteration
	}
	return r.HeadlineHDR(run)
}

package store

import (
	"encoding/json"
	"fmt"

	"github.com/barrage-dev/barrage/pkg/resultformat"
)

// phasesJSON encodes a result's request phase histograms for
// run_results.phases: an object from phase name to encoding, only the
// phases that happened; nil (SQL NULL) without any.
func phasesJSON(phases [resultformat.PhaseCount][]byte) ([]byte, error) {
	names := resultformat.PhaseNames()
	obj := make(map[string]string, len(phases))
	for i, enc := range phases {
		if len(enc) > 0 {
			obj[names[i]] = string(enc)
		}
	}
	if len(obj) == 0 {
		return nil, nil
	}
	return json.Marshal(obj)
}

// parsePhases decodes run_results.phases; a phase it does not know is
// skipped (a later version's).
func parsePhases(b []byte) ([resultformat.PhaseCount][]byte, error) {
	var out [resultformat.PhaseCount][]byte
	if len(b) == 0 {
		return out, nil
	}
	var obj map[string]string
	if err := json.Unmarshal(b, &obj); err != nil {
		return out, fmt.Errorf("phases: %w", err)
	}
	for i, name := range resultformat.PhaseNames() {
		if enc, ok := obj[name]; ok && enc != "" {
			out[i] = []byte(enc)
		}
	}
	return out, nil
}

package cli

import (
	"encoding/json"
	"fmt"
	"path/filepath"

	"github.com/barrage-dev/barrage/pkg/scenario"
)

// inlineDataFile reads the data file a spec's scenario names
// (scenario.data.file, relative to specName, the --spec or tests file)
// into its content, as the API takes it (docs/scenarios.md, "Data files").
func inlineDataFile(sp map[string]any, specName string) error {
	sc, _ := sp["scenario"].(map[string]any)
	raw, ok := sc["data"].(map[string]any)
	if !ok || raw["file"] == nil {
		return nil
	}
	j, err := json.Marshal(raw)
	if err != nil {
		return fmt.Errorf("scenario.data: %w", err)
	}
	var d scenario.Data
	if err := json.Unmarshal(j, &d); err != nil {
		return fmt.Errorf("scenario.data: %w", err)
	}
	read, err := scenario.ReadDataFile(&d, filepath.Dir(specName))
	if err != nil {
		return fmt.Errorf("scenario.%w", err)
	}
	if j, err = json.Marshal(read); err != nil {
		return fmt.Errorf("scenario.data: %w", err)
	}
	var out map[string]any
	if err := json.Unmarshal(j, &out); err != nil {
		return fmt.Errorf("scenario.data: %w", err)
	}
	sc["data"] = out
	return nil
}

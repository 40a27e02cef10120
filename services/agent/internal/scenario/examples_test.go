package scenario_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/barrage-dev/barrage/services/agent/internal/echoproc"
	"github.com/barrage-dev/barrage/services/agent/internal/scenario"
)

// docsDir is the repository's docs, from this package's directory.
const docsDir = "../../../../docs"

// TestDocExamplesRun runs each worked example of docs/scenarios.md, kept
// in docs/examples and shown in the page as it is in its file, against the
// real echo (its addresses in place of the examples' 127.0.0.1:8088 and
// :8079): every iteration completes, every step passes every time.
func TestDocExamplesRun(t *testing.T) {
	t.Parallel()
	page, err := os.ReadFile(filepath.Join(docsDir, "scenarios.md"))
	if err != nil {
		t.Fatal(err)
	}
	a := echoproc.Start(t)
	for _, name := range []string{"login.yaml", "items.yaml", "grpc-token.yaml"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			doc, err := os.ReadFile(filepath.Join(docsDir, "examples", name))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(page), "```yaml\n"+string(doc)+"```") {
				t.Fatalf("docs/scenarios.md does not show docs/examples/%s as it is", name)
			}
			text := strings.NewReplacer("127.0.0.1:8088", a.HTTP, "127.0.0.1:8079", a.GRPC).Replace(string(doc))
			plan := mustPlan(t, text, "")
			const n = 6
			res, err := scenario.Run(runCtx(t), scenario.Options{Plan: plan, IterationsPerSecond: 20, MaxIterations: n, Concurrency: 3})
			if err != nil {
				t.Fatal(err)
			}
			if res.Completed != n {
				t.Errorf("%d of %d iterations completed", res.Completed, n)
			}
			for _, st := range res.Steps {
				if st.Count != n || st.Errors != 0 {
					t.Errorf("step %q: count %d errors %d codes %v failed checks %v extractions %v transport %v", st.Name, st.Count, st.Errors,
						st.RetCodes, st.FailedChecks, st.FailedExtractions, st.TransportErrors)
				}
			}
		})
	}
}

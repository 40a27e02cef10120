package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestLinksNoServer keeps the CLI a client: it reaches the API through
// services/api/client, so it must link no HTTP framework, database driver,
// migration tool, broker or server package of barrage-api.
func TestLinksNoServer(t *testing.T) {
	t.Parallel()
	out, err := exec.CommandContext(t.Context(), "go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	forbidden := []string{
		"github.com/gin-gonic/",
		"github.com/jackc/pgx",
		"gorm.io/",
		"github.com/pressly/goose",
		"github.com/nats-io/",
		"google.golang.org/grpc",
		"github.com/barrage-dev/barrage/services/api/internal/httpapi",
		"github.com/barrage-dev/barrage/services/api/internal/store",
		"github.com/barrage-dev/barrage/services/api/internal/app",
	}
	deps := strings.Fields(string(out))
	if len(deps) < 10 {
		t.Fatalf("go list -deps named %d packages, want the CLI's whole graph: %q", len(deps), out)
	}
	for _, dep := range deps {
		for _, f := range forbidden {
			if strings.HasPrefix(dep, f) {
				t.Errorf("the barrage CLI links %s", dep)
			}
		}
	}
}

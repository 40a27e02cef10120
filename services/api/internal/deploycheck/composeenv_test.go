package deploycheck

import (
	"io"
	"slices"
	"testing"

	"github.com/barrage-dev/barrage/services/api/internal/app"
)

// composeEnviron is the environment compose gives a service, as KEY=value.
func composeEnviron(t *testing.T, service string) []string {
	t.Helper()
	var env []string
	for k, v := range mustCompose(t).Services[service].Environment {
		if v != nil {
			env = append(env, k+"="+*v)
		}
	}
	slices.Sort(env)
	return env
}

// TestComposeEnvironmentParses: barrage-api accepts every value compose
// gives it from .env.example (empty means the binary's default).
func TestComposeEnvironmentParses(t *testing.T) {
	t.Parallel()
	env := composeEnviron(t, "api")
	cfg, err := app.ParseConfig(nil, env, io.Discard)
	if err != nil {
		t.Fatalf("barrage-api rejects the compose environment %v: %v", env, err)
	}
	if cfg.NATSURL == "" || cfg.Listen != ":8080" || cfg.AllInOne {
		t.Errorf("config %+v: want external NATS, :8080, not all-in-one", cfg)
	}
}

package app

import (
	"log/slog"

	"github.com/barrage-dev/barrage/services/api/internal/projects"
	"github.com/barrage-dev/barrage/services/api/internal/runs"
	"github.com/barrage-dev/barrage/services/api/internal/schedule"
	"github.com/barrage-dev/barrage/services/api/internal/sealer"
	"github.com/barrage-dev/barrage/services/api/internal/store"
	"github.com/barrage-dev/barrage/services/api/internal/testdefs"
)

// newScheduler returns the scheduler of test schedules over st, with run
// services of its own (they hold no state).
func newScheduler(cfg Config, log *slog.Logger, st *store.Store, seal *sealer.Sealer, targets runs.TargetPolicy) *schedule.Scheduler {
	limits := cfg.Limits()
	projectSvc := projects.NewService(st, limits)
	runSvc := runs.NewService(st, projectSvc, testdefs.NewService(st, projectSvc, limits), limits, seal, targets, cfg.Redactor())
	return schedule.New(schedule.Options{Store: st, Runs: runSvc, Log: log, Tick: cfg.ScheduleTick})
}

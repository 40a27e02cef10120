package runs

import (
	"context"
	"fmt"

	"github.com/google/uuid"

	"github.com/barrage-dev/barrage/services/api/internal/apperr"
	"github.com/barrage-dev/barrage/services/api/internal/auth"
)

// Deletion is a run to delete.
type Deletion struct {
	// RunID is the run; the store deletes it only while it is terminal.
	RunID uuid.UUID
	// Force deletes a pinned run too; without it the store refuses one
	// with a Conflict, even if it was pinned after the checks.
	Force bool
	// Actor is written to the audit log.
	Actor auth.Actor
}

// BaselineUse says how a run serves as a baseline.
type BaselineUse struct {
	// ReferencedBy counts the other runs that compared with the run
	// (baseline_run_id) or asked for it (baseline_request).
	ReferencedBy int64
	// NewestPass is set when the run is the newest passing run of its
	// test: the baseline the test's next run compares with.
	NewestPass bool
}

// InUse reports whether the run is a baseline.
func (b BaselineUse) InUse() bool { return b.ReferencedBy > 0 || b.NewestPass }

// Delete deletes a run and every row keyed by it, in one transaction, with
// an audit entry; project admins (and org admins) only. A run that is not
// terminal is a Conflict (stop it first). A pinned run, or one that is a
// baseline (BaselineUse.InUse), is a Conflict unless force: the runs that
// compared with it keep their verdict, and lose the link to it (the
// foreign keys are ON DELETE SET NULL).
func (s *Service) Delete(ctx context.Context, p *auth.Principal, id uuid.UUID, force bool) error {
	r, err := s.load(ctx, p, id, auth.Admin)
	if err != nil {
		return err
	}
	if !r.Status.Terminal() {
		return apperr.New(apperr.Conflict, "run %s is %s; stop it first, then delete it", id, r.Status)
	}
	if !force {
		if r.Pinned {
			return apperr.New(apperr.Conflict, "run %s is pinned; unpin it, or delete it with force=true", id)
		}
		use, err := s.store.RunBaselineOf(ctx, id)
		if err != nil {
			return fmt.Errorf("delete run %s: %w", id, err)
		}
		if use.InUse() {
			return apperr.New(apperr.Conflict,
				"run %s is a baseline (of %d runs; newest passing run of its test: %t); delete it with force=true",
				id, use.ReferencedBy, use.NewestPass)
		}
	}
	if err := s.store.DeleteRun(ctx, Deletion{RunID: id, Force: force, Actor: p.Actor()}); err != nil {
		return fmt.Errorf("delete run %s: %w", id, err)
	}
	return nil
}

// Pin pins or unpins a run (runners): a pinned run keeps all its rows
// whatever its project's retention, and is deleted only with force.
func (s *Service) Pin(ctx context.Context, p *auth.Principal, id uuid.UUID, pinned bool) (Run, error) {
	if _, err := s.load(ctx, p, id, auth.Runner); err != nil {
		return Run{}, err
	}
	r, err := s.store.SetRunPinned(ctx, id, pinned, p.Actor())
	if err != nil {
		return Run{}, fmt.Errorf("pin run %s: %w", id, err)
	}
	return r, nil
}

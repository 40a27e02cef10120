package projects

import (
	"context"
	"fmt"
	"slices"

	"github.com/barrage-dev/barrage/pkg/natsauth"
	"github.com/barrage-dev/barrage/services/api/internal/apperr"
	"github.com/barrage-dev/barrage/services/api/internal/auth"
)

// maxAgentPools bounds the pools one project may be restricted to.
const maxAgentPools = 64

// AgentPools returns the agent pools project ref's runs are restricted to
// (empty: every agent); any member may read them.
func (s *Service) AgentPools(ctx context.Context, p *auth.Principal, ref string) ([]string, error) {
	proj, err := s.Resolve(ctx, p, ref, auth.Viewer)
	if err != nil {
		return nil, err
	}
	pools, err := s.store.ProjectAgentPools(ctx, proj.ID)
	if err != nil {
		return nil, fmt.Errorf("agent pools: %w", err)
	}
	return pools, nil
}

// SetAgentPools restricts project ref's runs to agents of pools, whose
// credentials bind one of them (docs/security.md "Agents"); an empty list
// lifts the restriction. Only org admins with unscoped credentials may:
// a project admin cannot grant its own project a pool. It returns the
// pools stored, sorted and without repeats.
func (s *Service) SetAgentPools(ctx context.Context, p *auth.Principal, ref string, pools []string) ([]string, error) {
	proj, err := s.Resolve(ctx, p, ref, auth.Viewer)
	if err != nil {
		return nil, err
	}
	if !p.OrgAdmin || p.Scoped() {
		return nil, apperr.New(apperr.Forbidden, "only organisation admins can grant a project agent pools")
	}
	e := &apperr.Error{Code: apperr.Invalid, Detail: "the agent pools are invalid"}
	if len(pools) > maxAgentPools {
		e.Fields = append(e.Fields, apperr.FieldError{Field: "pools", Message: fmt.Sprintf("must be at most %d pools", maxAgentPools)})
	}
	for i, pool := range pools {
		if err := natsauth.CheckPool(pool); err != nil {
			e.Fields = append(e.Fields, apperr.FieldError{Field: fmt.Sprintf("pools[%d]", i), Message: err.Error()})
		}
	}
	if len(e.Fields) > 0 {
		return nil, e
	}
	clean := slices.Compact(slices.Sorted(slices.Values(pools)))
	if err := s.store.SetProjectAgentPools(ctx, proj.ID, clean, p.Actor()); err != nil {
		return nil, fmt.Errorf("agent pools: %w", err)
	}
	return clean, nil
}

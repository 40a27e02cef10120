package projects

import (
	"context"
	"fmt"

	"github.com/barrage-dev/barrage/services/api/internal/apperr"
	"github.com/barrage-dev/barrage/services/api/internal/auth"
	"github.com/barrage-dev/barrage/services/api/internal/policy"
)

// Targets returns the target policy of proj: its allow-list, its granted
// entries and its organisation's policy (docs/security.md, "Target
// policy").
func (s *Service) Targets(ctx context.Context, proj Project) (policy.Targets, error) {
	org, err := s.store.OrgTargetPolicy(ctx, proj.OrgID)
	if err != nil {
		return policy.Targets{}, fmt.Errorf("target policy of project %s: %w", proj.ID, err)
	}
	return policy.Targets{Allow: proj.TargetAllowList, Org: org, Granted: proj.TargetAllowGranted}, nil
}

// OrgTargetPolicy returns the organisation's target policy: org admins
// and the admins of a project only (a project admin narrows it).
func (s *Service) OrgTargetPolicy(ctx context.Context, p *auth.Principal) ([]string, error) {
	orgAdmin := p.OrgAdmin && !p.Scoped()
	if !orgAdmin && !s.adminOfAny(p) {
		return nil, apperr.New(apperr.Forbidden, "the organisation's target policy is for org admins and project admins")
	}
	org, err := s.store.DefaultOrg(ctx)
	if err != nil {
		return nil, fmt.Errorf("organisation target policy: %w", err)
	}
	list, err := s.store.OrgTargetPolicy(ctx, org)
	if err != nil {
		return nil, fmt.Errorf("organisation target policy: %w", err)
	}
	return list, nil
}

// SetOrgTargetPolicy replaces the organisation's target policy: org
// admins with unscoped credentials only. Entries must parse. Projects keep
// their lists; what the new policy no longer covers stops working except
// the entries granted to a project.
func (s *Service) SetOrgTargetPolicy(ctx context.Context, p *auth.Principal, list []string) ([]string, error) {
	if !p.OrgAdmin || p.Scoped() {
		return nil, apperr.New(apperr.Forbidden, "only organisation admins can set the target policy")
	}
	if err := policy.CheckOrgList(list); err != nil {
		return nil, err
	}
	org, err := s.store.DefaultOrg(ctx)
	if err != nil {
		return nil, fmt.Errorf("set organisation target policy: %w", err)
	}
	if err := s.store.SetOrgTargetPolicy(ctx, org, list, p.Actor()); err != nil {
		return nil, fmt.Errorf("set organisation target policy: %w", err)
	}
	return list, nil
}

// adminOfAny reports whether p holds the admin role in some project.
func (s *Service) adminOfAny(p *auth.Principal) bool {
	ids, all := p.VisibleProjects()
	if all {
		return true
	}
	for _, id := range ids {
		if p.Can(id, auth.Admin) {
			return true
		}
	}
	return false
}

package httpapi

import "context"

// GetAgentPools implements GET /projects/{project}/agent-pools.
func (s *server) GetAgentPools(ctx context.Context, req GetAgentPoolsRequestObject) (GetAgentPoolsResponseObject, error) {
	ctx = requestContext(ctx)
	pools, err := s.svc.Projects.AgentPools(ctx, principal(ctx), req.Project)
	if err != nil {
		return nil, err
	}
	return GetAgentPools200JSONResponse{Pools: orEmpty(pools)}, nil
}

// PutAgentPools implements PUT /projects/{project}/agent-pools (org
// admins only: docs/security.md "Agents").
func (s *server) PutAgentPools(ctx context.Context, req PutAgentPoolsRequestObject) (PutAgentPoolsResponseObject, error) {
	ctx = requestContext(ctx)
	pools, err := s.svc.Projects.SetAgentPools(ctx, principal(ctx), req.Project, req.Body.Pools)
	if err != nil {
		return nil, err
	}
	return PutAgentPools200JSONResponse{Pools: orEmpty(pools)}, nil
}

// orEmpty is pools, or an empty list for nil (JSON [] rather than null).
func orEmpty(pools []string) []string {
	if pools == nil {
		return []string{}
	}
	return pools
}

package httpapi

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/barrage-dev/barrage/services/api/internal/audit"
)

// ListAudit implements GET /audit.
func (s *server) ListAudit(ctx context.Context, req ListAuditRequestObject) (ListAuditResponseObject, error) {
	ctx = requestContext(ctx)
	page, err := audit.ParseRequest(req.Params.Cursor, req.Params.Limit)
	if err != nil {
		return nil, err
	}
	f := audit.Filter{Action: deref(req.Params.Action), Actor: deref(req.Params.Actor), Since: deref(req.Params.Since), Until: deref(req.Params.Until)}
	list, next, err := s.svc.Audit.List(ctx, principal(ctx), deref(req.Params.Project), f, page)
	if err != nil {
		return nil, err
	}
	items := make([]AuditEntry, len(list))
	for i := range list {
		if items[i], err = auditEntryOut(&list[i]); err != nil {
			return nil, err
		}
	}
	return ListAudit200JSONResponse{Items: items, NextCursor: optString(next)}, nil
}

// auditEntryOut maps an audit entry to the wire.
func auditEntryOut(e *audit.Entry) (AuditEntry, error) {
	details := map[string]any{}
	if len(e.Details) > 0 {
		if err := json.Unmarshal(e.Details, &details); err != nil {
			return AuditEntry{}, fmt.Errorf("audit entry %d details: %w", e.ID, err)
		}
	}
	return AuditEntry{
		Id: e.ID, At: e.At, ProjectId: optID(e.ProjectID),
		Actor: AuditActor{
			UserId: optID(e.UserID), Email: optString(e.Email),
			TokenId: optID(e.TokenID), TokenName: optString(e.TokenName),
		},
		Action: e.Action, TargetKind: e.TargetKind, TargetId: e.TargetID, Details: details,
	}, nil
}

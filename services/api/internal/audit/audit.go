// Package audit reads the audit log: who signed in, started or stopped a
// run, changed a test, a token, a project or a sync source, and when. Project
// admins read their project's entries; org admins read every project's and
// the entries that belong to no project (sign-ins, bootstrap).
//
// It is not the place for writing entries: the store writes each one in the
// transaction of the change it records. Token use is not an entry either
// (api_tokens.last_used_at records it).
package audit

import (
	"context"
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/barrage-dev/barrage/services/api/internal/apperr"
	"github.com/barrage-dev/barrage/services/api/internal/auth"
	"github.com/barrage-dev/barrage/services/api/internal/paging"
	"github.com/barrage-dev/barrage/services/api/internal/projects"
)

// Entry is one audit log entry.
type Entry struct {
	// ID orders entries: a later entry has a larger id.
	ID int64
	At time.Time
	// ProjectID is the project of the target, or uuid.Nil for none.
	ProjectID uuid.UUID
	// UserID and Email name the user who acted; uuid.Nil and "" for the
	// system and for failed sign-ins.
	UserID uuid.UUID
	Email  string
	// TokenID and TokenName name the API token used, if any.
	TokenID   uuid.UUID
	TokenName string
	// Action is "<kind>.<verb>", e.g. "run.create".
	Action string
	// TargetKind and TargetID name the changed object.
	TargetKind string
	TargetID   string
	// Details is the entry's JSON object.
	Details []byte
}

// Query selects entries.
type Query struct {
	// Projects limits the entries to these projects, unless All.
	Projects []uuid.UUID
	// All is every entry, those of no project included.
	All bool
	// Action is an exact action or, ending in ".", a prefix; "" for all.
	Action string
	// Actor is a user's email (any case) or a token's name; "" for all.
	Actor string
	// Since and Until bound the entries' times, [Since, Until); zero for no bound.
	Since, Until time.Time
	// Page is where the page starts and its size.
	Page Request
}

// Store is the storage the audit log needs.
type Store interface {
	// ListAudit returns up to q.Page.Limit+1 entries matching q, newest
	// (largest id) first, after q.Page.AfterID when it is not 0.
	ListAudit(ctx context.Context, q Query) ([]Entry, error)
}

// Request asks for one page of entries.
type Request struct {
	// AfterID is the id of the last entry of the previous page; 0 for the
	// first page.
	AfterID int64
	// Limit is the page size, from 1 to paging.MaxLimit.
	Limit int
}

// ParseRequest builds a Request from the cursor and limit query
// parameters, with the limits and errors of paging.ParseRequest. The
// cursor is the last id seen, opaque to clients.
func ParseRequest(cursor *string, limit *int) (Request, error) {
	r := Request{Limit: paging.DefaultLimit}
	if limit != nil {
		if *limit < 1 || *limit > paging.MaxLimit {
			return Request{}, apperr.Invalidf("limit", "must be from 1 to %d", paging.MaxLimit)
		}
		r.Limit = *limit
	}
	if cursor == nil || *cursor == "" {
		return r, nil
	}
	raw, err := base64.RawURLEncoding.DecodeString(*cursor)
	id, perr := strconv.ParseInt(strings.TrimPrefix(string(raw), "a"), 10, 64)
	if err != nil || perr != nil || !strings.HasPrefix(string(raw), "a") || id < 1 {
		return Request{}, apperr.Invalidf("cursor", "is not a cursor this API returned")
	}
	r.AfterID = id
	return r, nil
}

// encodeCursor returns the cursor of the page after the entry id.
func encodeCursor(id int64) string {
	return base64.RawURLEncoding.EncodeToString([]byte("a" + strconv.FormatInt(id, 10)))
}

// maxActionLength is the longest action filter.
const maxActionLength = 64

// maxActorLength is the longest actor filter (an email's longest).
const maxActorLength = 320

// Filter narrows a listing: each field empty or zero matches every entry.
type Filter struct {
	// Action is an exact action or, ending in ".", a prefix.
	Action string
	// Actor is a user's email (any case) or a token's name.
	Actor string
	// Since and Until bound the entries' times, [Since, Until).
	Since, Until time.Time
}

// Service applies the rules of reading the audit log.
type Service struct {
	store    Store
	projects *projects.Service
}

// NewService returns a Service over store.
func NewService(store Store, projectSvc *projects.Service) *Service {
	return &Service{store: store, projects: projectSvc}
}

// List returns one page of entries, newest first, and the next cursor.
// With a project (id or slug) the caller must be its admin: Forbidden for
// a lower role, NotFound when the caller cannot see it. Without one it
// covers every project the caller administers; an unscoped org admin also
// sees the entries of no project.
func (s *Service) List(ctx context.Context, p *auth.Principal, project string, f Filter, page Request) ([]Entry, string, error) {
	switch {
	case len(f.Action) > maxActionLength:
		return nil, "", apperr.Invalidf("action", "must be at most %d characters", maxActionLength)
	case len(f.Actor) > maxActorLength:
		return nil, "", apperr.Invalidf("actor", "must be at most %d characters", maxActorLength)
	case !f.Since.IsZero() && !f.Until.IsZero() && !f.Until.After(f.Since):
		return nil, "", apperr.Invalidf("until", "must be after since")
	}
	ids, all, err := s.projects.AdminScope(ctx, p, project, "reading the audit log")
	if err != nil || (!all && len(ids) == 0) {
		return nil, "", err
	}
	if page.Limit < 1 {
		page.Limit = paging.DefaultLimit
	}
	rows, err := s.store.ListAudit(ctx, Query{Projects: ids, All: all, Action: f.Action, Actor: f.Actor, Since: f.Since, Until: f.Until, Page: page})
	if err != nil {
		return nil, "", fmt.Errorf("list audit: %w", err)
	}
	if len(rows) <= page.Limit {
		return rows, "", nil
	}
	rows = rows[:page.Limit]
	return rows, encodeCursor(rows[page.Limit-1].ID), nil
}

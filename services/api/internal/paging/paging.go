// Package paging is keyset pagination for the API's lists: a page starts
// after a cursor, the (created_at, id) of the last row of the previous
// page, so rows inserted while a client pages never shift later pages and
// deep pages cost the same as the first. Lists are newest first.
//
// It is not a query builder: the store turns a Request into its WHERE and
// ORDER BY.
package paging

import (
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/barrage-dev/barrage/services/api/internal/apperr"
)

// Limits of a page.
const (
	// DefaultLimit is the page size when the client gives none.
	DefaultLimit = 50
	// MaxLimit is the largest page size.
	MaxLimit = 200
)

// Cursor is the position after which a page starts.
type Cursor struct {
	// CreatedAt is the creation time of the last row seen.
	CreatedAt time.Time
	// ID breaks ties between rows created at the same instant.
	ID uuid.UUID
}

// Request asks for one page.
type Request struct {
	// After is where the page starts; nil is the first page.
	After *Cursor
	// Limit is the page size, from 1 to MaxLimit.
	Limit int
}

// Encode returns the cursor as an opaque URL-safe string.
func (c Cursor) Encode() string {
	raw := strconv.FormatInt(c.CreatedAt.UnixMicro(), 10) + "." + c.ID.String()
	return base64.RawURLEncoding.EncodeToString([]byte(raw))
}

// ParseRequest builds a Request from the cursor and limit query parameters;
// a nil limit is DefaultLimit. A cursor that was not made by Encode is an
// Invalid error naming the "cursor" parameter.
func ParseRequest(cursor *string, limit *int) (Request, error) {
	r := Request{Limit: DefaultLimit}
	if limit != nil {
		if *limit < 1 || *limit > MaxLimit {
			return Request{}, apperr.Invalidf("limit", "must be from 1 to %d", MaxLimit)
		}
		r.Limit = *limit
	}
	if cursor == nil || *cursor == "" {
		return r, nil
	}
	c, err := decode(*cursor)
	if err != nil {
		return Request{}, apperr.Invalidf("cursor", "is not a cursor this API returned")
	}
	r.After = &c
	return r, nil
}

// decode reverses Encode.
func decode(s string) (Cursor, error) {
	raw, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return Cursor{}, fmt.Errorf("decode cursor: %w", err)
	}
	micros, id, ok := strings.Cut(string(raw), ".")
	if !ok {
		return Cursor{}, fmt.Errorf("decode cursor: no separator")
	}
	us, err := strconv.ParseInt(micros, 10, 64)
	if err != nil {
		return Cursor{}, fmt.Errorf("decode cursor time: %w", err)
	}
	u, err := uuid.Parse(id)
	if err != nil {
		return Cursor{}, fmt.Errorf("decode cursor id: %w", err)
	}
	return Cursor{CreatedAt: time.UnixMicro(us).UTC(), ID: u}, nil
}

// Page cuts rows, fetched with Limit+1, to one page and returns the cursor
// of the next page, or "" when rows held no more than Limit. key gives a
// row's position.
func Page[T any](rows []T, limit int, key func(T) Cursor) ([]T, string) {
	if len(rows) <= limit {
		return rows, ""
	}
	rows = rows[:limit]
	return rows, key(rows[limit-1]).Encode()
}

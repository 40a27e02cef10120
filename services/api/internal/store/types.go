package store

import (
	"database/sql/driver"
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgtype"
)

// textArray is a Postgres text[] column. It is never NULL: an empty or nil
// slice is stored as '{}'.
type textArray []string

// GormDataType tells GORM the column type, which it cannot infer from a
// slice.
func (textArray) GormDataType() string { return "text[]" }

// Value returns the strings for pgx to encode as an array.
func (a textArray) Value() (driver.Value, error) {
	if a == nil {
		return []string{}, nil
	}
	return []string(a), nil
}

// Scan decodes a text[] in text or binary form.
func (a *textArray) Scan(src any) error {
	var out []string
	if err := pgtype.NewMap().SQLScanner(&out).Scan(src); err != nil {
		return fmt.Errorf("scan text[]: %w", err)
	}
	if out == nil {
		out = []string{}
	}
	*a = out
	return nil
}

// uuidArray is a uuid[] parameter, passed as one value (GORM would
// otherwise expand a slice into a list).
type uuidArray []uuid.UUID

// Value returns the ids as strings for pgx to encode as an array.
func (a uuidArray) Value() (driver.Value, error) {
	out := make([]string, len(a))
	for i, id := range a {
		out[i] = id.String()
	}
	return out, nil
}

// int64Array is a bigint[] (or int[]) parameter; gorm would spread a bare
// slice into a list.
type int64Array []int64

// Value returns the numbers for pgx to encode as an array.
func (a int64Array) Value() (driver.Value, error) { return []int64(a), nil }

// boolArray is a boolean[] parameter; gorm would spread a bare slice into a
// list.
type boolArray []bool

// Value returns the booleans for pgx to encode as an array.
func (a boolArray) Value() (driver.Value, error) { return []bool(a), nil }

// labelsJSON encodes labels for a jsonb column; nil is '{}'.
func labelsJSON(labels map[string]string) []byte {
	if labels == nil {
		return []byte("{}")
	}
	b, err := json.Marshal(labels)
	if err != nil { // a map of strings always marshals
		panic(fmt.Sprintf("store: marshal labels: %v", err))
	}
	return b
}

// parseLabels decodes a jsonb labels column; it never returns nil.
func parseLabels(b []byte) (map[string]string, error) {
	labels := map[string]string{}
	if len(b) == 0 {
		return labels, nil
	}
	if err := json.Unmarshal(b, &labels); err != nil {
		return nil, fmt.Errorf("decode labels: %w", err)
	}
	return labels, nil
}

// nullUUID returns nil for uuid.Nil, for nullable uuid columns.
func nullUUID(id uuid.UUID) *uuid.UUID {
	if id == uuid.Nil {
		return nil
	}
	return &id
}

// fromNullUUID returns uuid.Nil for NULL.
func fromNullUUID(id *uuid.UUID) uuid.UUID {
	if id == nil {
		return uuid.Nil
	}
	return *id
}

// nullInt returns nil for 0, for nullable integer columns.
func nullInt(n int) *int {
	if n == 0 {
		return nil
	}
	return &n
}

// fromNullInt returns 0 for NULL.
func fromNullInt(n *int) int {
	if n == nil {
		return 0
	}
	return *n
}

// nullTime returns nil for the zero time, for nullable timestamp columns.
func nullTime(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

// fromNullTime returns the zero time for NULL and UTC otherwise.
func fromNullTime(t *time.Time) time.Time {
	if t == nil {
		return time.Time{}
	}
	return t.UTC()
}

// nullString returns nil for "", for nullable text columns.
func nullString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// fromNullString returns "" for NULL.
func fromNullString(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// orNow returns t, or the current time when t is zero.
func orNow(t time.Time) time.Time {
	if t.IsZero() {
		return time.Now().UTC()
	}
	return t
}

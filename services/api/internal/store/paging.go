package store

import (
	"github.com/google/uuid"
	"gorm.io/gorm"

	"github.com/barrage-dev/barrage/services/api/internal/paging"
)

// keysetOrder is the order of every list: newest first, id breaking ties.
const keysetOrder = "created_at DESC, id DESC"

// fetchLimit is how many rows a page query reads: one more than the page,
// so the caller can tell whether another page follows.
func fetchLimit(page paging.Request) int {
	limit := page.Limit
	if limit < 1 {
		limit = paging.DefaultLimit
	}
	return limit + 1
}

// keyset limits q to the page: rows after the cursor, newest first.
func keyset(q *gorm.DB, page paging.Request) *gorm.DB {
	if page.After != nil {
		q = q.Where("(created_at, id) < (?, ?)", page.After.CreatedAt, page.After.ID)
	}
	return q.Order(keysetOrder).Limit(fetchLimit(page))
}

// inProjects limits q to rows of the projects unless all; the caller has
// already returned early for an empty list.
func inProjects(q *gorm.DB, ids []uuid.UUID, all bool) *gorm.DB {
	if all {
		return q
	}
	if len(ids) == 1 {
		return q.Where("project_id = ?", ids[0])
	}
	return q.Where("project_id = ANY(?::uuid[])", uuidArray(ids))
}

package main

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
)

// filter is one kind of list: the query parameters beyond project and
// limit, and the SQL condition that selects the same runs.
type filter struct {
	name  string     // shown in the report
	query url.Values // extra query parameters
	cond  string     // SQL condition with one %d for its argument's number; "" = none
	arg   string     // the condition's argument
}

// filters are the lists measured, all in project default.
func filters() []filter {
	return []filter{
		{name: "all runs", query: url.Values{}},
		{name: "status=completed", query: url.Values{"status": {"completed"}}, cond: "status = $%d", arg: "completed"},
		{name: "label=bench=api", query: url.Values{"label": {"bench=api"}}, cond: "labels @> $%d::jsonb", arg: `{"bench":"api"}`},
	}
}

// values returns the query string of a page of f.
func (f filter) values(limit int, cursor string) url.Values {
	q := url.Values{"project": {"default"}, "limit": {strconv.Itoa(limit)}}
	for k, v := range f.query {
		q[k] = v
	}
	if cursor != "" {
		q.Set("cursor", cursor)
	}
	return q
}

// page is one page met on a walk.
type page struct {
	cursor string // the cursor that fetched it; "" for the first
	items  int
}

// walk is one pass over every page of a filter, following next_cursor.
type walk struct {
	filter filter
	rows   int64 // runs the filter matches, by SQL
	pages  []page
	seen   int // distinct run ids seen
	total  int // items over all pages
	lat    []time.Duration
}

// listCase is one page timed repeatedly.
type listCase struct {
	walk       *walk
	which      string // first, middle or last
	pageNo     int    // 1-based
	rowsBefore int
	page       page
	lat        []time.Duration
}

// lists is what the list phase measured.
type lists struct {
	walks       []*walk
	cases       []*listCase
	walkUsage   phaseUsage
	sampleUsage phaseUsage
}

// measureLists walks every filter to its last page, then times the
// first, middle and last pages of each, round-robin.
func measureLists(ctx context.Context, cfg config, cl *client, db *pgx.Conn, pr *probe, logw io.Writer, project string) (lists, error) {
	var out lists
	before := pr.sample()
	requests := 0
	for _, f := range filters() {
		w, err := walkFilter(ctx, cl, db, f, cfg.limit, project)
		if err != nil {
			return out, err
		}
		requests += len(w.pages)
		progress(logw, "walked %q: %d pages, %d runs", f.name, len(w.pages), w.total)
		out.walks = append(out.walks, w)
		out.cases = append(out.cases, casesOf(w, cfg.limit)...)
	}
	out.walkUsage = pr.since(before, "list: cursor walks", requests)
	progress(logw, "timing %d list cases: %d warm-up + %d timed requests each, round-robin",
		len(out.cases), cfg.warmup, cfg.samples)
	before = pr.sample()
	if err := sampleCases(ctx, cl, cfg, out.cases); err != nil {
		return out, err
	}
	out.sampleUsage = pr.since(before, "list: timed pages", len(out.cases)*(cfg.warmup+cfg.samples))
	return out, nil
}

// walkFilter fetches every page of f in order and checks that together
// they hold each matching run once.
func walkFilter(ctx context.Context, cl *client, db *pgx.Conn, f filter, limit int, project string) (*walk, error) {
	w := &walk{filter: f}
	q, args := countSQL(f, project)
	if err := db.QueryRow(ctx, q, args...).Scan(&w.rows); err != nil {
		return nil, fmt.Errorf("count %q: %w", f.name, err)
	}
	ids := make(map[string]struct{}, w.rows)
	cursor := ""
	for {
		p, lat, err := cl.list(ctx, f.values(limit, cursor))
		if err != nil {
			return nil, fmt.Errorf("walk %q, page %d: %w", f.name, len(w.pages)+1, err)
		}
		w.lat = append(w.lat, lat)
		w.pages = append(w.pages, page{cursor: cursor, items: len(p.Items)})
		w.total += len(p.Items)
		for _, it := range p.Items {
			ids[it.ID] = struct{}{}
		}
		if p.NextCursor == "" {
			break
		}
		if int64(w.total) > w.rows+int64(limit) {
			return nil, fmt.Errorf("walk %q: %d runs seen, more than the %d that match", f.name, w.total, w.rows)
		}
		cursor = p.NextCursor
	}
	w.seen = len(ids)
	return w, nil
}

// countSQL counts the runs of project that f matches.
func countSQL(f filter, project string) (string, []any) {
	q := "SELECT count(*) FROM runs WHERE project_id = $1::uuid"
	args := []any{project}
	if f.cond != "" {
		q += " AND " + fmt.Sprintf(f.cond, 2)
		args = append(args, f.arg)
	}
	return q, args
}

// casesOf returns the first, middle and last full pages of w (the last
// page when none is full; fewer cases when w has fewer than three pages).
func casesOf(w *walk, limit int) []*listCase {
	n := len(w.pages)
	last := n - 1
	if last > 0 && w.pages[last].items < limit {
		last-- // a short last page would return less JSON than the others
	}
	idx := []int{0, n / 2, last}
	names := []string{"first", "middle", "last"}
	var out []*listCase
	for i, pi := range idx {
		if i > 0 && pi <= idx[i-1] { //nolint:gosec // i > 0 guards idx[i-1]
			continue
		}
		before := 0
		for _, p := range w.pages[:pi] {
			before += p.items
		}
		out = append(out, &listCase{walk: w, which: names[i], pageNo: pi + 1, rowsBefore: before, page: w.pages[pi]})
	}
	return out
}

// sampleCases requests every case warmup+samples times, one case after the
// other in turn (so that noise from elsewhere spreads over all cases), and
// records the timed ones. A page that changes size is an error.
func sampleCases(ctx context.Context, cl *client, cfg config, cases []*listCase) error {
	for round := range cfg.warmup + cfg.samples {
		for _, c := range cases {
			p, lat, err := cl.list(ctx, c.walk.filter.values(cfg.limit, c.page.cursor))
			if err != nil {
				return fmt.Errorf("%s page of %q: %w", c.which, c.walk.filter.name, err)
			}
			if len(p.Items) != c.page.items {
				return fmt.Errorf("%s page of %q: %d items, %d when walked", c.which, c.walk.filter.name, len(p.Items), c.page.items)
			}
			if round >= cfg.warmup {
				c.lat = append(c.lat, lat)
			}
		}
	}
	return nil
}

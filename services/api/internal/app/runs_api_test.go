package app

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/barrage-dev/barrage/pkg/spec"
	"github.com/barrage-dev/barrage/services/api/client"
)

func TestCreateRunFromInlineSpec(t *testing.T) {
	t.Parallel()
	e := startAPI(t)
	const secretURL = "http://loader:hunter2@target.test/checkout?api_key=k3y&page=2"
	body := map[string]any{
		"project": "default",
		"name":    "checkout smoke",
		"labels":  map[string]string{"team": "web", "ci": "yes"},
		"spec": map[string]any{
			"url": secretURL, "qps": 75, "duration": "30s", "connections": 4,
			"headers": []string{"Authorization: Bearer s3cret-value", "X-Trace: on"},
			"labels":  map[string]string{"team": "core", "env": "staging"},
		},
	}
	status, header, raw := e.do(t, http.MethodPost, "/runs", e.AdminToken, body)
	if status != http.StatusCreated {
		t.Fatalf("POST /runs = %d, want 201; body: %s", status, raw)
	}
	run := decode[client.Run](t, raw)
	if got, want := header.Get("Location"), "/api/v1/runs/"+run.Id.String(); got != want {
		t.Errorf("Location = %q, want %q", got, want)
	}
	wantLabels := client.Labels{"team": "web", "ci": "yes", "env": "staging"} // the run's labels win
	const wantURL = "http://" + spec.RedactedValue + ":" + spec.RedactedValue + "@target.test/checkout?api_key=" + spec.RedactedValue + "&page=2"
	checks := []struct {
		what      string
		got, want any
	}{
		{"status", run.Status, client.Queued},
		{"name", run.Name, "checkout smoke"},
		{"source", run.Source, client.RunSourceApi},
		{"labels", run.Labels, wantLabels},
		{"qps_requested", run.QpsRequested, 75.0},
		{"spec.url", run.Spec.URL, wantURL},
		{"target", run.Target, wantURL},
		{"spec.headers", run.Spec.Headers, []string{"Authorization: " + spec.RedactedValue, "X-Trace: on"}},
		{"spec.duration", run.Spec.Duration, spec.Duration(30 * time.Second)},
		{"test_id", run.TestId, (*uuid.UUID)(nil)},
		{"ended_at", run.EndedAt, (*time.Time)(nil)},
	}
	for _, c := range checks {
		if !equalJSON(t, c.got, c.want) {
			t.Errorf("%s = %v, want %v", c.what, c.got, c.want)
		}
	}
	if run.CreatedBy == nil {
		t.Error("created_by is not set")
	}

	// What is shown again is redacted too; what is stored for the agents is
	// sealed (TestRedactionEndToEnd checks that they get the real values).
	got := decode[client.Run](t, e.mustDo(t, http.StatusOK, http.MethodGet, "/runs/"+run.Id.String(), e.AdminToken, nil))
	if got.Spec.URL != wantURL || !slices.Equal(got.Spec.Headers, run.Spec.Headers) {
		t.Errorf("GET /runs/{run} spec = %s %q, want redacted", got.Spec.URL, got.Spec.Headers)
	}
	if n := e.count(t, `SELECT count(*) FROM runs WHERE id = $1::uuid AND (spec::text LIKE '%s3cret%' OR spec::text LIKE '%hunter2%' OR target LIKE '%hunter2%')`, run.Id.String()); n != 0 {
		t.Error("the runs row holds a secret of the spec")
	}
	var topic string
	var payload []byte
	err := e.db.QueryRowContext(context.Background(), "SELECT topic, payload FROM outbox WHERE key = $1", run.Id.String()).Scan(&topic, &payload)
	if err != nil {
		t.Fatalf("outbox row of run %s: %v", run.Id, err)
	}
	var dispatch struct {
		RunID      uuid.UUID `json:"run_id"`
		ProjectID  uuid.UUID `json:"project_id"`
		Spec       spec.Spec `json:"spec"`
		SealedSpec []byte    `json:"sealed_spec"`
	}
	if err := json.Unmarshal(payload, &dispatch); err != nil {
		t.Fatalf("outbox payload %s: %v", payload, err)
	}
	if topic != "run.dispatch" || dispatch.RunID != run.Id || dispatch.ProjectID != run.ProjectId {
		t.Errorf("outbox row = %s %s/%s, want run.dispatch %s/%s", topic, dispatch.RunID, dispatch.ProjectID, run.Id, run.ProjectId)
	}
	if dispatch.Spec.URL != wantURL || !slices.Equal(dispatch.Spec.Headers, run.Spec.Headers) || len(dispatch.SealedSpec) == 0 {
		t.Errorf("outbox spec = %s %q with %d sealed bytes, want the redacted spec and the real one sealed",
			dispatch.Spec.URL, dispatch.Spec.Headers, len(dispatch.SealedSpec))
	}
	// The sealed spec is ciphertext: random bytes that may spell anything,
	// so the secrets are looked for in the rest of the payload.
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(payload, &fields); err != nil {
		t.Fatal(err)
	}
	delete(fields, "sealed_spec")
	open, err := json.Marshal(fields)
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{"s3cret", "hunter2", "loader", "k3y"} {
		if bytes.Contains(open, []byte(secret)) {
			t.Errorf("the outbox payload holds %q of the spec outside its sealed part: %s", secret, open)
		}
	}
}

// equalJSON reports whether got and want marshal to the same JSON.
func equalJSON(t *testing.T, got, want any) bool {
	t.Helper()
	a, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Equal(a, b)
}

func TestCreateRunFromStoredTest(t *testing.T) {
	t.Parallel()
	e := startAPI(t)
	stored := e.mustTest(t, e.AdminToken, "default", "checkout")
	tests := []struct {
		name           string
		body           map[string]any
		wantName       string
		wantThresholds []string
		wantLabels     client.Labels
	}{
		{
			name: "inherits", body: map[string]any{"test": stored.Id},
			wantName: "checkout", wantThresholds: []string{"p(99) < 250ms"}, wantLabels: client.Labels{"team": "web"},
		},
		{
			name: "overrides", body: map[string]any{
				"test": stored.Id, "project": "default", "name": "nightly", "thresholds": []string{"p(50) < 10ms"},
				"labels": map[string]string{"team": "perf", "when": "night"},
			},
			wantName: "nightly", wantThresholds: []string{"p(50) < 10ms"}, wantLabels: client.Labels{"team": "perf", "when": "night"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			run := decode[client.Run](t, e.mustDo(t, http.StatusCreated, http.MethodPost, "/runs", e.AdminToken, tt.body))
			if run.TestId == nil || *run.TestId != stored.Id {
				t.Errorf("test_id = %v, want %s", run.TestId, stored.Id)
			}
			if run.ProjectId != stored.ProjectId || run.Name != tt.wantName || run.Status != client.Queued {
				t.Errorf("run = project %s name %q status %s, want %s %q queued", run.ProjectId, run.Name, run.Status, stored.ProjectId, tt.wantName)
			}
			if !slices.Equal(run.Thresholds, tt.wantThresholds) || !maps.Equal(run.Labels, tt.wantLabels) {
				t.Errorf("thresholds, labels = %q, %v; want %q, %v", run.Thresholds, run.Labels, tt.wantThresholds, tt.wantLabels)
			}
			if run.Spec.URL != stored.Spec.URL || run.Spec.QPS != stored.Spec.QPS || run.Spec.Duration != stored.Spec.Duration {
				t.Errorf("spec = %+v, want the test's %+v", run.Spec, stored.Spec)
			}
		})
	}
	t.Run("another project than the test's", func(t *testing.T) {
		t.Parallel()
		e.mustProject(t, "elsewhere")
		status, header, raw := e.do(t, http.MethodPost, "/runs", e.AdminToken, map[string]any{"test": stored.Id, "project": "elsewhere"})
		p := wantProblem(t, status, header, raw, http.StatusUnprocessableEntity, "validation")
		if got := problemFields(p); !slices.Equal(got, []string{"project"}) {
			t.Errorf("fields = %q, want [project]", got)
		}
	})
	t.Run("a test that does not exist", func(t *testing.T) {
		t.Parallel()
		status, header, raw := e.do(t, http.MethodPost, "/runs", e.AdminToken, map[string]any{"test": uuid.New()})
		wantProblem(t, status, header, raw, http.StatusNotFound, "not-found")
	})
}

func TestCreateRunNeedsExactlyOneOfTestAndSpec(t *testing.T) {
	t.Parallel()
	e := startAPI(t)
	stored := e.mustTest(t, e.AdminToken, "default", "checkout")
	tests := []struct {
		name string
		body map[string]any
	}{
		{"both", map[string]any{"project": "default", "test": stored.Id, "spec": testSpec()}},
		{"neither", map[string]any{"project": "default", "name": "nothing to run"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			status, header, raw := e.do(t, http.MethodPost, "/runs", e.AdminToken, tt.body)
			p := wantProblem(t, status, header, raw, http.StatusUnprocessableEntity, "validation")
			if got := problemFields(p); !slices.Equal(got, []string{"spec"}) {
				t.Errorf("fields = %q, want [spec]", got)
			}
		})
	}
	if n := e.count(t, "SELECT count(*) FROM runs"); n != 0 {
		t.Errorf("%d runs stored, want 0", n)
	}
}

func TestCreateRunIdempotency(t *testing.T) {
	t.Parallel()
	e := startAPI(t)
	body := func(name string) map[string]any {
		return map[string]any{"project": "default", "name": name, "spec": testSpec()}
	}
	t.Run("same key and body replay the run", func(t *testing.T) {
		t.Parallel()
		first := decode[client.Run](t, e.mustDo(t, http.StatusCreated, http.MethodPost, "/runs", e.AdminToken, body("replayed"), "Idempotency-Key", "ci-1"))
		status, header, raw := e.do(t, http.MethodPost, "/runs", e.AdminToken, body("replayed"), "Idempotency-Key", "ci-1")
		if status != http.StatusOK {
			t.Fatalf("replay = %d, want 200; body: %s", status, raw)
		}
		if again := decode[client.Run](t, raw); again.Id != first.Id {
			t.Errorf("replay returned run %s, want %s", again.Id, first.Id)
		}
		if loc := header.Get("Location"); loc != "" {
			t.Errorf("replay has Location %q, want none", loc)
		}
		if n := e.count(t, "SELECT count(*) FROM runs WHERE name = 'replayed'"); n != 1 {
			t.Errorf("%d runs stored, want 1", n)
		}
		if n := e.count(t, "SELECT count(*) FROM outbox WHERE key = $1", first.Id.String()); n != 1 {
			t.Errorf("%d outbox rows for the run, want 1", n)
		}
	})
	t.Run("same key and another body conflict", func(t *testing.T) {
		t.Parallel()
		e.mustDo(t, http.StatusCreated, http.MethodPost, "/runs", e.AdminToken, body("original"), "Idempotency-Key", "ci-2")
		status, header, raw := e.do(t, http.MethodPost, "/runs", e.AdminToken, body("changed"), "Idempotency-Key", "ci-2")
		wantProblem(t, status, header, raw, http.StatusConflict, "conflict")
		if n := e.count(t, "SELECT count(*) FROM runs WHERE name IN ('original', 'changed')"); n != 1 {
			t.Errorf("%d runs stored, want 1", n)
		}
	})
	t.Run("without a key every request is a run", func(t *testing.T) {
		t.Parallel()
		a := e.mustRun(t, e.AdminToken, "default", "unkeyed", nil)
		b := e.mustRun(t, e.AdminToken, "default", "unkeyed", nil)
		if a.Id == b.Id {
			t.Error("two unkeyed requests returned the same run")
		}
	})
	t.Run("concurrent requests with one key make one run", func(t *testing.T) {
		t.Parallel()
		const n = 8
		var wg sync.WaitGroup
		type answer struct {
			status int
			raw    []byte
			err    error
		}
		answers := make([]answer, n)
		for i := range n {
			wg.Go(func() {
				ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
				defer cancel()
				status, _, raw, err := e.request(ctx, http.MethodPost, "/runs", e.AdminToken, body("concurrent"), "Idempotency-Key", "ci-concurrent")
				answers[i] = answer{status, raw, err}
			})
		}
		wg.Wait()
		statuses := map[int]int{}
		runIDs := map[uuid.UUID]bool{}
		for _, a := range answers {
			if a.err != nil {
				t.Fatal(a.err)
			}
			statuses[a.status]++
			if a.status == http.StatusOK || a.status == http.StatusCreated {
				runIDs[decode[client.Run](t, a.raw).Id] = true
			} else {
				t.Errorf("answer %d: %s", a.status, a.raw)
			}
		}
		if statuses[http.StatusCreated] != 1 || statuses[http.StatusOK] != n-1 || len(runIDs) != 1 {
			t.Errorf("statuses %v and %d distinct runs, want one 201, %d 200 and one run", statuses, len(runIDs), n-1)
		}
		if got := e.count(t, "SELECT count(*) FROM runs WHERE name = 'concurrent'"); got != 1 {
			t.Errorf("%d runs stored, want 1", got)
		}
		if got := e.count(t, "SELECT count(*) FROM idempotency_keys WHERE key = 'ci-concurrent'"); got != 1 {
			t.Errorf("%d idempotency keys stored, want 1", got)
		}
	})
}

func TestStopRun(t *testing.T) {
	t.Parallel()
	e := startAPI(t)
	t.Run("queued is canceled at once, then a conflict", func(t *testing.T) {
		t.Parallel()
		run := e.mustRun(t, e.AdminToken, "default", "to cancel", nil)
		stopped := decode[client.Run](t, e.mustDo(t, http.StatusOK, http.MethodPost, "/runs/"+run.Id.String()+"/stop", e.AdminToken, nil))
		if stopped.Status != client.Canceled || stopped.EndedAt == nil || stopped.Id != run.Id {
			t.Errorf("stopped run = %s status %s ended_at %v, want %s canceled with ended_at", stopped.Id, stopped.Status, stopped.EndedAt, run.Id)
		}
		if n := e.count(t, "SELECT count(*) FROM runs WHERE id = $1::uuid AND status = 'canceled' AND ended_at IS NOT NULL", run.Id.String()); n != 1 {
			t.Error("the runs row is not canceled with ended_at")
		}
		status, header, raw := e.do(t, http.MethodPost, "/runs/"+run.Id.String()+"/stop", e.AdminToken, nil)
		wantProblem(t, status, header, raw, http.StatusConflict, "conflict")
		if n := e.count(t, "SELECT count(*) FROM outbox WHERE key = $1 AND topic = 'run.control'", run.Id.String()); n != 0 {
			t.Errorf("%d control messages for a run that never reached agents, want 0", n)
		}
	})
	t.Run("running goes to stopping and tells the agents once", func(t *testing.T) {
		t.Parallel()
		run := e.mustRun(t, e.AdminToken, "default", "to stop", nil)
		e.exec(t, "UPDATE runs SET status = 'running', started_at = now() WHERE id = $1::uuid", run.Id.String())
		for range 2 { // a second stop finds it stopping and changes nothing
			stopped := decode[client.Run](t, e.mustDo(t, http.StatusOK, http.MethodPost, "/runs/"+run.Id.String()+"/stop", e.AdminToken, nil))
			if stopped.Status != client.Stopping || stopped.EndedAt != nil {
				t.Errorf("stopped run status %s ended_at %v, want stopping, not ended", stopped.Status, stopped.EndedAt)
			}
		}
		var payload []byte
		err := e.db.QueryRowContext(context.Background(), "SELECT payload FROM outbox WHERE key = $1 AND topic = 'run.control'", run.Id.String()).Scan(&payload)
		if err != nil {
			t.Fatalf("control message: %v", err)
		}
		if want := fmt.Sprintf(`{"action": "stop", "run_id": %q}`, run.Id.String()); string(payload) != want {
			t.Errorf("control payload = %s, want %s", payload, want)
		}
	})
	t.Run("a run that does not exist", func(t *testing.T) {
		t.Parallel()
		status, header, raw := e.do(t, http.MethodPost, "/runs/"+uuid.NewString()+"/stop", e.AdminToken, nil)
		wantProblem(t, status, header, raw, http.StatusNotFound, "not-found")
	})
}

// listRunIDs pages through GET /runs?query with limit, returning every
// id; between, when set, runs after the first page.
func listRunIDs(t *testing.T, e *apiEnv, query string, limit int, between func()) (all []uuid.UUID, pages [][]uuid.UUID) {
	t.Helper()
	cursor := ""
	for page := 0; ; page++ {
		if page > 100 {
			t.Fatal("more than 100 pages")
		}
		q := fmt.Sprintf("/runs?limit=%d", limit)
		if query != "" {
			q += "&" + query
		}
		if cursor != "" {
			q += "&cursor=" + url.QueryEscape(cursor)
		}
		p := decode[client.RunPage](t, e.mustDo(t, http.StatusOK, http.MethodGet, q, e.AdminToken, nil))
		pageIDs := ids(p.Items, func(r client.Run) uuid.UUID { return r.Id })
		all, pages = append(all, pageIDs...), append(pages, pageIDs)
		if page == 0 && between != nil {
			between()
		}
		if p.NextCursor == nil {
			if len(p.Items) > limit {
				t.Errorf("page %d has %d runs, limit %d", page, len(p.Items), limit)
			}
			return all, pages
		}
		if len(p.Items) != limit {
			t.Errorf("page %d has %d runs and a next cursor, want %d", page, len(p.Items), limit)
		}
		cursor = *p.NextCursor
	}
}

func TestListRunsPagination(t *testing.T) {
	t.Parallel()
	e := startAPI(t)
	const total = 120
	created := make([]uuid.UUID, 0, total)
	for i := range total {
		created = append(created, e.mustRun(t, e.AdminToken, "default", fmt.Sprintf("run %03d", i), nil).Id)
	}
	newestFirst := slices.Clone(created)
	slices.Reverse(newestFirst)

	all, pages := listRunIDs(t, e, "", 50, nil)
	if !slices.Equal(all, newestFirst) {
		t.Fatalf("paging gave %d runs, not the %d created newest first", len(all), total)
	}
	if got := []int{len(pages[0]), len(pages[1]), len(pages[2])}; len(pages) != 3 || !slices.Equal(got, []int{50, 50, 20}) {
		t.Errorf("pages of %v, want 50, 50, 20", got)
	}

	var inserted []uuid.UUID
	again, pagesAgain := listRunIDs(t, e, "", 50, func() {
		for i := range 10 {
			inserted = append(inserted, e.mustRun(t, e.AdminToken, "default", fmt.Sprintf("late %d", i), nil).Id)
		}
	})
	if !slices.Equal(again, newestFirst) || len(pagesAgain) != 3 {
		t.Errorf("runs inserted after page 1 shifted later pages: %d pages, same ids = %v", len(pagesAgain), slices.Equal(again, newestFirst))
	}
	fresh, _ := listRunIDs(t, e, "", 50, nil)
	slices.Reverse(inserted)
	if len(fresh) != total+10 || !slices.Equal(fresh[:10], inserted) {
		t.Errorf("a new listing starts with %v, want the 10 late runs %v", fresh[:min(10, len(fresh))], inserted)
	}
}

func TestListRunsFilters(t *testing.T) {
	t.Parallel()
	e := startAPI(t)
	stored := e.mustTest(t, e.AdminToken, "default", "stored")
	web := e.mustRun(t, e.AdminToken, "default", "web", map[string]string{"team": "web"})
	webProd := e.mustRun(t, e.AdminToken, "default", "web prod", map[string]string{"team": "web", "env": "prod"})
	api := e.mustRun(t, e.AdminToken, "default", "api", map[string]string{"team": "api", "env": "prod"})
	fromTest := decode[client.Run](t, e.mustDo(t, http.StatusCreated, http.MethodPost, "/runs", e.AdminToken, map[string]any{"test": stored.Id}))
	e.mustDo(t, http.StatusOK, http.MethodPost, "/runs/"+api.Id.String()+"/stop", e.AdminToken, nil)
	e.exec(t, "UPDATE runs SET status = 'completed', ended_at = now() WHERE id = $1::uuid", webProd.Id.String())

	// created_at as stored, for since/until.
	at := decode[client.Run](t, e.mustDo(t, http.StatusOK, http.MethodGet, "/runs/"+webProd.Id.String(), e.AdminToken, nil)).CreatedAt
	stamp := url.QueryEscape(at.Format(time.RFC3339Nano))

	id := func(r client.Run) uuid.UUID { return r.Id }
	tests := []struct {
		query string
		want  []client.Run // newest first
	}{
		{"", []client.Run{fromTest, api, webProd, web}},
		{"status=queued", []client.Run{fromTest, web}},
		{"status=canceled", []client.Run{api}},
		{"status=completed,canceled", []client.Run{api, webProd}},
		{"status=running", nil},
		{"label=team=web", []client.Run{fromTest, webProd, web}}, // fromTest has the stored test's labels
		{"label=env=prod", []client.Run{api, webProd}},
		{"label=team=web&label=env=prod", []client.Run{webProd}},
		{"label=team=nobody", nil},
		{"test=" + stored.Id.String(), []client.Run{fromTest}},
		{"since=" + stamp, []client.Run{fromTest, api, webProd}},
		{"until=" + stamp, []client.Run{web}},
		{"since=" + stamp + "&until=" + url.QueryEscape(at.Add(time.Microsecond).Format(time.RFC3339Nano)), []client.Run{webProd}},
		{"status=queued&label=team=web", []client.Run{fromTest, web}},
		{"project=default&label=team=api", []client.Run{api}},
	}
	for _, tt := range tests {
		t.Run("?"+tt.query, func(t *testing.T) {
			t.Parallel()
			got, _ := listRunIDs(t, e, tt.query, 2, nil)
			want := ids(tt.want, id)
			if len(got) != 0 || len(want) != 0 {
				if !slices.Equal(got, want) {
					t.Errorf("GET /runs?%s = %v, want %v", tt.query, names(tt.want, got), want)
				}
			}
		})
	}
	t.Run("until before since", func(t *testing.T) {
		t.Parallel()
		status, header, raw := e.do(t, http.MethodGet, "/runs?since="+stamp+"&until="+stamp, e.AdminToken, nil)
		p := wantProblem(t, status, header, raw, http.StatusUnprocessableEntity, "validation")
		if got := problemFields(p); !slices.Equal(got, []string{"until"}) {
			t.Errorf("fields = %q, want [until]", got)
		}
	})
}

// names describes got by the runs' names where known, for messages.
func names(known []client.Run, got []uuid.UUID) string {
	byID := map[uuid.UUID]string{}
	for i := range known {
		byID[known[i].Id] = known[i].Name
	}
	out := make([]string, len(got))
	for i, id := range got {
		if n, ok := byID[id]; ok {
			out[i] = n
		} else {
			out[i] = id.String()
		}
	}
	return "[" + strings.Join(out, ", ") + "]"
}

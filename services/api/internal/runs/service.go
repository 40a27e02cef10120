package runs

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/barrage-dev/barrage/pkg/spec"
	"github.com/barrage-dev/barrage/services/api/internal/apperr"
	"github.com/barrage-dev/barrage/services/api/internal/auth"
	"github.com/barrage-dev/barrage/services/api/internal/paging"
	"github.com/barrage-dev/barrage/services/api/internal/policy"
	"github.com/barrage-dev/barrage/services/api/internal/projects"
	"github.com/barrage-dev/barrage/services/api/internal/sealer"
	"github.com/barrage-dev/barrage/services/api/internal/testdefs"
)

// maxNameLength is the longest run name.
const maxNameLength = 200

// Service applies the rules of runs.
type Service struct {
	store    Store
	projects *projects.Service
	tests    *testdefs.Service
	limits   policy.Limits
	seal     *sealer.Sealer
	targets  TargetPolicy
	redactor spec.Redactor
	echoes   EchoLookup
	live     Notifier
	now      func() time.Time
}

// NewService returns a Service over store. seal seals the real spec of each
// new run into its dispatch message; the dispatcher must open it with the
// same key. targets is checked, with the project's target allow-list, on
// every run's target when it is submitted, and travels with the run to its
// agents, which check again when they connect. red redacts the spec each
// run stores and shows.
func NewService(store Store, projectSvc *projects.Service, tests *testdefs.Service, limits policy.Limits, seal *sealer.Sealer,
	targets TargetPolicy, red spec.Redactor,
) *Service {
	limits.Normalize()
	return &Service{store: store, projects: projectSvc, tests: tests, limits: limits, seal: seal, targets: targets, redactor: red, now: time.Now}
}

// SetNotifier makes Stop tell n of every status change it makes.
func (s *Service) SetNotifier(n Notifier) { s.live = n }

// SetEchoLookup makes new runs record the managed echo profile their
// target applies.
func (s *Service) SetEchoLookup(l EchoLookup) { s.echoes = l }

// Input is a request to start a run: a stored test or an inline spec.
type Input struct {
	// Project is a project id or slug; optional with a test or a project token.
	Project string `json:"project,omitempty"`
	// TestID is the stored test to run, or uuid.Nil with Spec.
	TestID uuid.UUID `json:"test,omitzero"`
	// Spec is the inline spec, or nil with TestID.
	Spec *spec.Spec `json:"spec,omitempty"`
	// Name names the run; default the test's name.
	Name string `json:"name,omitempty"`
	// Thresholds replace the test's when not nil.
	Thresholds []string `json:"thresholds,omitempty"`
	// Labels are added to the spec's and the test's labels.
	Labels map[string]string `json:"labels,omitempty"`
	// Source is ui or api.
	Source Source `json:"source,omitempty"`
	// BaselineRun is the run baseline thresholds compare with; uuid.Nil
	// for the last passing run of the test.
	BaselineRun uuid.UUID `json:"baseline_run,omitzero"`
	// BaselineLast, when above 0, pools the last BaselineLast (1 to
	// MaxBaselineLast) passing runs of the test as the baseline.
	BaselineLast int `json:"baseline_last,omitempty"`
	// AllowPartial judges a run that lost a shard by its thresholds.
	AllowPartial bool `json:"allow_partial,omitempty"`
	// IdempotencyKey makes a retried request return the first run.
	IdempotencyKey string `json:"-"`
	// RequestID is the id of the API request that creates the run
	// (package reqlog), carried to the agents' log lines for its shards;
	// "" for none.
	RequestID string `json:"-"`
	// TraceParent is the W3C traceparent of that request's span when the
	// API exports traces (package tracing): the run's dispatch joins its
	// trace. "" for none.
	TraceParent string `json:"-"`
}

// requestHash is SHA-256 of the canonical JSON of in, which is what an
// Idempotency-Key is bound to.
func (in Input) requestHash() []byte {
	b, err := json.Marshal(in)
	if err != nil { // only unsupported values fail, and Input has none
		panic(fmt.Sprintf("runs: marshal input: %v", err))
	}
	h := sha256.Sum256(b)
	return h[:]
}

// DispatchMessage is the outbox payload of a new run, which the dispatcher
// reads. The outbox is a Postgres table, so the real spec, whose secrets
// the agents need, is only in SealedSpec (docs/architecture.md §7).
type DispatchMessage struct {
	RunID     uuid.UUID `json:"run_id"`
	ProjectID uuid.UUID `json:"project_id"`
	// Spec is the redacted spec, for people reading the outbox; a message
	// written before sealing existed holds the real spec here and no
	// SealedSpec.
	Spec spec.Spec `json:"spec"`
	// SealedSpec is the JSON of the real spec sealed with the server's
	// secret key (base64 in the payload).
	SealedSpec []byte `json:"sealed_spec,omitempty"`
	// TargetAllow is the project's target allow-list when the run was
	// submitted and TargetDeny the control plane's addresses; the agents
	// dial only what they allow (package netguard).
	TargetAllow []string `json:"target_allow,omitempty"`
	TargetDeny  []string `json:"target_deny,omitempty"`
	// TargetOuter bounds TargetAllow (the organisation's target policy and
	// the project's granted entries) when TargetBounded; a message written
	// before organisation policies existed has none.
	TargetOuter   []string `json:"target_outer,omitempty"`
	TargetBounded bool     `json:"target_bounded,omitempty"`
	// RequestID is the id of the API request that created the run; the
	// dispatcher sends it in the assignments' headers (pkg/wire
	// RequestIDHeader). "" for none.
	RequestID string `json:"request_id,omitempty"`
	// TraceParent is the W3C traceparent of the request's span when the
	// API exports traces; the dispatcher's span is its child. "" for none.
	TraceParent string `json:"traceparent,omitempty"`
}

// NewDispatchMessage returns the dispatch message of a run of sp: the
// redacted spec (by red) in clear and, when sp has secrets, the real one
// sealed with seal (a spec without secrets needs no key to run).
func NewDispatchMessage(seal *sealer.Sealer, red spec.Redactor, runID, projectID uuid.UUID, sp spec.Spec) (DispatchMessage, error) {
	m := DispatchMessage{RunID: runID, ProjectID: projectID, Spec: red.Spec(sp)}
	if reflect.DeepEqual(m.Spec, sp) {
		return m, nil
	}
	if seal == nil {
		return DispatchMessage{}, errors.New("no sealer to seal the run's spec")
	}
	b, err := json.Marshal(sp)
	if err != nil {
		return DispatchMessage{}, fmt.Errorf("encode spec: %w", err)
	}
	m.SealedSpec = seal.Seal(b)
	return m, nil
}

// RealSpec returns the spec to send to the agents: SealedSpec opened with
// seal, or Spec for a message without one.
func (m DispatchMessage) RealSpec(seal *sealer.Sealer) (spec.Spec, error) {
	if len(m.SealedSpec) == 0 {
		return m.Spec, nil
	}
	if seal == nil {
		return spec.Spec{}, errors.New("the spec is sealed and no sealer is configured")
	}
	b, err := seal.Open(m.SealedSpec)
	if err != nil {
		return spec.Spec{}, fmt.Errorf("open sealed spec: %w", err)
	}
	var sp spec.Spec
	if err := json.Unmarshal(b, &sp); err != nil {
		return spec.Spec{}, fmt.Errorf("decode sealed spec: %w", err)
	}
	return sp, nil
}

// dispatchPayload is the outbox payload of a new run of sp; t is its
// project's target policy, requestID and traceParent those of the request
// that created it ("" for none).
func (s *Service) dispatchPayload(r Run, sp spec.Spec, t policy.Targets, requestID, traceParent string) ([]byte, error) {
	m, err := NewDispatchMessage(s.seal, s.redactor, r.ID, r.ProjectID, sp)
	if err != nil {
		return nil, err
	}
	m.RequestID, m.TraceParent = requestID, traceParent
	m.TargetAllow, m.TargetDeny = t.Allow, s.targets.deny()
	m.TargetOuter, m.TargetBounded = t.Outer(), true
	b, err := json.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("encode dispatch message: %w", err)
	}
	return b, nil
}

// ControlMessage is the outbox payload of a stop.
type ControlMessage struct {
	RunID  uuid.UUID `json:"run_id"`
	Action string    `json:"action"`
}

// Create starts a run (runners). created is false when an earlier request
// with the same Idempotency-Key made the run.
func (s *Service) Create(ctx context.Context, p *auth.Principal, in Input) (run Run, created bool, err error) {
	hash := in.requestHash()
	b, err := s.build(ctx, p, in)
	if err != nil {
		return Run{}, false, err
	}
	r := b.run
	payload, err := s.dispatchPayload(r, b.spec, b.targets, in.RequestID, in.TraceParent)
	if err != nil {
		return Run{}, false, fmt.Errorf("create run: %w", err)
	}
	n := NewRun{
		Run: r, Dispatch: payload, Idempotency: Idempotency{Key: in.IdempotencyKey, RequestHash: hash},
		MaxActive: b.limits.MaxConcurrentRuns, Actor: p.Actor(),
	}
	run, created, err = s.store.CreateRun(ctx, n)
	if err != nil {
		return Run{}, false, fmt.Errorf("create run: %w", err)
	}
	return run, created, nil
}

// built is what build makes of an Input.
type built struct {
	run  Run
	spec spec.Spec // to execute, secrets included
	// limits are the ones in force in the run's project, targets its
	// target policy.
	limits  policy.Limits
	targets policy.Targets
}

// build checks in and makes the run row and the spec to execute.
func (s *Service) build(ctx context.Context, p *auth.Principal, in Input) (built, error) {
	if (in.TestID == uuid.Nil) == (in.Spec == nil) {
		return built{}, apperr.Invalidf("spec", "give exactly one of test and spec")
	}
	r := Run{
		Name: in.Name, Source: in.Source, Thresholds: in.Thresholds, Status: Queued, CreatedBy: p.UserID,
		AllowPartial: in.AllowPartial, BaselineRequest: in.BaselineRun, BaselineLast: in.BaselineLast,
	}
	var (
		sp   spec.Spec
		proj projects.Project
		err  error
	)
	labels := map[string]string{}
	if in.TestID != uuid.Nil {
		if sp, proj, err = s.fromTest(ctx, p, in, &r, labels); err != nil {
			return built{}, err
		}
	} else {
		if proj, err = s.projects.Resolve(ctx, p, in.Project, auth.Runner); err != nil {
			return built{}, err
		}
		r.ProjectID, sp = proj.ID, in.Spec.Clone()
	}
	o, err := s.projects.Overrides(ctx, r.ProjectID)
	if err != nil {
		return built{}, err
	}
	if err := s.checkInput(&sp, in, r.Thresholds, o); err != nil {
		return built{}, err
	}
	if err := s.withURLsFromRun(ctx, p, r.ProjectID, &sp, in, r.Thresholds, o); err != nil {
		return built{}, err
	}
	allow, err := s.checkedTargets(ctx, proj, sp)
	if err != nil {
		return built{}, err
	}
	if err := s.checkBaseline(ctx, r.ProjectID, in); err != nil {
		return built{}, err
	}
	maps.Copy(labels, sp.Labels)
	maps.Copy(labels, in.Labels)
	if len(labels) > spec.MaxLabels {
		return built{}, apperr.Invalidf("labels", "the run would carry %d labels; at most %d", len(labels), spec.MaxLabels)
	}
	now := s.now().UTC()
	redacted := s.redactor.Spec(sp)
	r.ID, r.Spec, r.Labels, r.Target, r.QPSRequested = newID(), redacted, labels, redacted.URL, sp.PeakQPS()
	r.CreatedAt, r.UpdatedAt = now, now
	if r.Source == "" {
		r.Source = SourceAPI
	}
	if s.echoes != nil {
		r.EchoProfile = s.echoes.ProfileAt(ctx, proj, sp.URL)
	}
	return built{run: r, spec: sp, limits: s.limits.Apply(o), targets: allow}, nil
}

// checkInput validates the run's own fields and its spec, which must fit
// the server's limits and those o of its project sets.
func (s *Service) checkInput(sp *spec.Spec, in Input, thresholds []string, o policy.Overrides) error {
	e := &apperr.Error{Code: apperr.Invalid, Detail: "the run has invalid fields"}
	add := func(field, format string, args ...any) {
		e.Fields = append(e.Fields, apperr.FieldError{Field: field, Message: fmt.Sprintf(format, args...)})
	}
	if utf8.RuneCountInString(in.Name) > maxNameLength {
		add("name", "must be at most %d characters", maxNameLength)
	}
	if in.Source != "" && in.Source != SourceAPI && in.Source != SourceUI {
		add("source", "must be api or ui")
	}
	testdefs.CheckThresholds(*sp, thresholds, add)
	testdefs.CheckLabels(in.Labels, add)
	if err := s.limits.CheckProject(sp, o, "spec"); err != nil {
		var se *apperr.Error
		if !errors.As(err, &se) || se.Code != apperr.Invalid {
			return err
		}
		e.Fields = append(e.Fields, se.Fields...)
	}
	if len(e.Fields) > 0 {
		return e
	}
	return nil
}

// fromTest fills r from the stored test in names (its project, name,
// thresholds, pooled baseline and labels, where in leaves them unset) and
// returns the spec to run and the project.
func (s *Service) fromTest(ctx context.Context, p *auth.Principal, in Input, r *Run, labels map[string]string) (spec.Spec, projects.Project, error) {
	t, err := s.tests.Load(ctx, p, in.TestID, auth.Runner)
	if err != nil {
		return spec.Spec{}, projects.Project{}, err
	}
	ref := in.Project
	if ref == "" {
		ref = t.ProjectID.String()
	}
	proj, err := s.projects.Resolve(ctx, p, ref, auth.Runner)
	if err != nil {
		return spec.Spec{}, projects.Project{}, err
	}
	if proj.ID != t.ProjectID {
		return spec.Spec{}, projects.Project{}, apperr.Invalidf("project", "is not the project of test %s", t.ID)
	}
	sp, err := t.RunSpec()
	if err != nil {
		return spec.Spec{}, projects.Project{}, err
	}
	r.ProjectID, r.TestID = t.ProjectID, t.ID
	if r.Name == "" {
		r.Name = t.Name
	}
	if r.Thresholds == nil {
		r.Thresholds = t.Thresholds
	}
	// The test's pooled baseline, unless the run names its own.
	if in.BaselineRun == uuid.Nil && in.BaselineLast == 0 {
		r.BaselineLast = t.BaselineLast
	}
	maps.Copy(labels, t.Labels)
	return sp, proj, nil
}

// checkBaseline checks the baseline in asks for: the last N passing runs
// (checkBaselineLast), or a run, which must be a completed, whole run of
// the project that Barrage ran (an imported one has no histograms to
// compare).
func (s *Service) checkBaseline(ctx context.Context, project uuid.UUID, in Input) error {
	if err := checkBaselineLast(in); err != nil {
		return err
	}
	id := in.BaselineRun
	if id == uuid.Nil {
		return nil
	}
	b, err := s.store.GetRun(ctx, id)
	switch {
	case apperr.Is(err, apperr.NotFound) || (err == nil && b.ProjectID != project):
		return apperr.Invalidf("baseline_run", "run %s is not a run of this project", id)
	case err != nil:
		return fmt.Errorf("read baseline run %s: %w", id, err)
	case b.Status != Completed:
		return apperr.Invalidf("baseline_run", "run %s is %s; a baseline must be a completed run", id, b.Status)
	case b.Degraded:
		return apperr.Invalidf("baseline_run", "run %s is degraded (it lost a shard); a baseline must be a whole run", id)
	case b.Imported():
		return apperr.Invalidf("baseline_run", "run %s was imported and has no histograms to compare with", id)
	}
	return nil
}

// checkBaselineLast checks a request for the last N passing runs: 1 to
// MaxBaselineLast, of a stored test, and not with a named baseline run.
func checkBaselineLast(in Input) error {
	switch n := in.BaselineLast; {
	case n == 0:
		return nil
	case n < 1 || n > MaxBaselineLast:
		return apperr.Invalidf("baseline_last", "%d: pool from 1 to %d runs", n, MaxBaselineLast)
	case in.BaselineRun != uuid.Nil:
		return apperr.Invalidf("baseline_last", "give baseline_run or baseline_last, not both")
	case in.TestID == uuid.Nil:
		return apperr.Invalidf("baseline_last", "the last passing runs are a stored test's: run a test, or name a baseline_run")
	}
	return nil
}

// newID returns a time-ordered run id (UUIDv7), which keeps inserts at the
// end of the primary key index.
func newID() uuid.UUID {
	id, err := uuid.NewV7()
	if err != nil {
		return uuid.New()
	}
	return id
}

// Get returns a run the caller can see.
func (s *Service) Get(ctx context.Context, p *auth.Principal, id uuid.UUID) (Run, error) {
	return s.load(ctx, p, id, auth.Viewer)
}

// GetBySeq returns the run numbered seq (its Fortio run id) when the
// caller can see it; NotFound otherwise.
func (s *Service) GetBySeq(ctx context.Context, p *auth.Principal, seq int64) (Run, error) {
	r, _, err := s.store.RunBySeq(ctx, seq)
	if apperr.Is(err, apperr.NotFound) || (err == nil && p.RoleIn(r.ProjectID) == "") {
		return Run{}, apperr.New(apperr.NotFound, "run number %d not found", seq)
	}
	if err != nil {
		return Run{}, fmt.Errorf("load run number %d: %w", seq, err)
	}
	return r, nil
}

// load returns a run the caller holds at least need in.
func (s *Service) load(ctx context.Context, p *auth.Principal, id uuid.UUID, need auth.Role) (Run, error) {
	r, err := s.store.GetRun(ctx, id)
	if err := p.Reach(err, r.ProjectID, need, "run", id); err != nil {
		return Run{}, err
	}
	return r, nil
}

// Stop asks a run to stop (runners): a queued run is canceled at once, a
// dispatched or running one goes to stopping and the agents are told. A
// run already stopping is returned as it is; a finished one is a Conflict.
func (s *Service) Stop(ctx context.Context, p *auth.Principal, id uuid.UUID) (Run, error) {
	const attempts = 3 // the dispatcher may move the run between our read and write
	for range attempts {
		r, err := s.load(ctx, p, id, auth.Runner)
		if err != nil {
			return Run{}, err
		}
		m := Move{RunID: id, At: s.now().UTC(), Actor: p.Actor()}
		switch {
		case r.Status == Stopping:
			return r, nil
		case r.Status.Terminal():
			return Run{}, apperr.New(apperr.Conflict, "run %s is %s; it cannot be stopped", id, r.Status)
		case r.Status == Queued:
			m.To = Canceled
		default:
			m.To = Stopping
			if m.Control, err = json.Marshal(ControlMessage{RunID: id, Action: "stop"}); err != nil {
				return Run{}, fmt.Errorf("stop run: %w", err)
			}
		}
		moved, err := s.store.MoveRun(ctx, m)
		if apperr.Is(err, apperr.Conflict) {
			continue
		}
		if err != nil {
			return Run{}, fmt.Errorf("stop run %s: %w", id, err)
		}
		notify(s.live, moved)
		return moved, nil
	}
	return Run{}, apperr.New(apperr.Conflict, "run %s changed status while being stopped; try again", id)
}

// ListInput is a list request as the API receives it.
type ListInput struct {
	// Project is an id or slug; "" for every visible project.
	Project string
	// TestID limits to one test; uuid.Nil for any.
	TestID uuid.UUID
	// Statuses keeps runs in one of these.
	Statuses []Status
	// Labels are "key=value" pairs that must all match.
	Labels []string
	// Since and Until bound created_at; zero for none.
	Since time.Time
	Until time.Time
	// Page is the page wanted.
	Page paging.Request
}

// List returns one page of runs and the next cursor.
func (s *Service) List(ctx context.Context, p *auth.Principal, in ListInput) ([]Run, string, error) {
	f := Filter{TestID: in.TestID, Statuses: in.Statuses, Since: in.Since, Until: in.Until, Page: in.Page}
	for _, st := range in.Statuses {
		if !st.Valid() {
			return nil, "", apperr.Invalidf("status", "%q is not a run status", st)
		}
	}
	if !in.Since.IsZero() && !in.Until.IsZero() && !in.Since.Before(in.Until) {
		return nil, "", apperr.Invalidf("until", "must be after since")
	}
	if len(in.Labels) > 0 {
		f.Labels = make(map[string]string, len(in.Labels))
		for _, kv := range in.Labels {
			k, v, ok := strings.Cut(kv, "=")
			if !ok || k == "" {
				return nil, "", apperr.Invalidf("label", "%q must be key=value", kv)
			}
			f.Labels[k] = v
		}
	}
	var err error
	if f.ProjectIDs, f.AllProjects, err = s.projects.Scope(ctx, p, in.Project); err != nil {
		return nil, "", err
	}
	if !f.AllProjects && len(f.ProjectIDs) == 0 {
		return nil, "", nil
	}
	rows, err := s.store.ListRuns(ctx, f)
	if err != nil {
		return nil, "", fmt.Errorf("list runs: %w", err)
	}
	items, next := paging.Page(rows, f.Page.Limit, Run.Cursor)
	return items, next, nil
}

// Package export serves completed runs in Fortio's formats: the result JSON
// of each run (the same bytes every time, cached with their MD5 on first
// use) and the index.tsv that `fortio report -sync` and other Barrage
// servers read. Anonymous callers see the projects that publish their
// results; signed-in callers also see their own.
//
// It is not the place for HTTP (httpapi writes the responses) or for the
// Fortio format itself (pkg/fortiojson).
package export

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/barrage-dev/barrage/pkg/fortiojson"
	"github.com/barrage-dev/barrage/pkg/hist"
	"github.com/barrage-dev/barrage/pkg/version"
	"github.com/barrage-dev/barrage/services/api/internal/apperr"
	"github.com/barrage-dev/barrage/services/api/internal/auth"
	"github.com/barrage-dev/barrage/services/api/internal/projects"
	"github.com/barrage-dev/barrage/services/api/internal/runs"
)

// MaxIndex is the most runs one index.tsv lists, newest first.
const MaxIndex = 1000

// Store is the storage the export needs.
type Store interface {
	// ExportRuns returns up to q.Limit completed runs that q may read,
	// newest end first, with their export's MD5 and size when made.
	ExportRuns(ctx context.Context, q Query) ([]Entry, error)
	// RunBySeq returns the run numbered seq and whether its project
	// publishes its results; NotFound when there is none.
	RunBySeq(ctx context.Context, seq int64) (runs.Run, bool, error)
	// RunResult returns a run's result; NotFound until it has one.
	RunResult(ctx context.Context, runID uuid.UUID) (runs.Result, error)
	// SaveFortio stores a run's export unless it has one and returns the
	// stored bytes and their MD5.
	SaveFortio(ctx context.Context, runID uuid.UUID, body []byte) ([]byte, []byte, error)
	// GetProject and GetProjectBySlug find a project; NotFound when none.
	GetProject(ctx context.Context, id uuid.UUID) (projects.Project, error)
	GetProjectBySlug(ctx context.Context, slug string) (projects.Project, error)
}

// Query selects the runs an index lists.
type Query struct {
	// Project limits the list to one project; uuid.Nil for every readable one.
	Project uuid.UUID
	// Visible are the projects the caller may read besides the public ones;
	// All is set for org admins.
	Visible []uuid.UUID
	All     bool
	Limit   int
}

// Entry is one run of an index.
type Entry struct {
	Run runs.Run
	// MD5 and Size are the export's; nil and 0 until it is made.
	MD5  []byte
	Size int64
}

// ID returns the run's Fortio result ID (the file is <ID>.json).
func (e Entry) ID() string { return ResultID(e.Run) }

// Service reads exports.
type Service struct {
	store Store
}

// NewService returns a Service over st.
func NewService(st Store) *Service { return &Service{store: st} }

// Index returns the runs the caller (nil when anonymous) may read in
// project (uuid.Nil for all), newest first, each with its export made.
func (s *Service) Index(ctx context.Context, p *auth.Principal, project uuid.UUID) ([]Entry, error) {
	q := Query{Project: project, Limit: MaxIndex}
	if p != nil {
		q.Visible, q.All = p.VisibleProjects()
	}
	list, err := s.store.ExportRuns(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("list exports: %w", err)
	}
	for i := range list {
		if list[i].MD5 != nil {
			continue
		}
		body, sum, err := s.make(ctx, list[i].Run)
		if err != nil {
			return nil, err
		}
		list[i].MD5, list[i].Size = sum, int64(len(body))
	}
	return list, nil
}

// Document returns the export named id (a Fortio result ID) and its run,
// when the caller (nil when anonymous) may read it; NotFound otherwise.
func (s *Service) Document(ctx context.Context, p *auth.Principal, id string) ([]byte, runs.Run, error) {
	missing := apperr.New(apperr.NotFound, "result %q not found", id)
	seq, ok := seqOf(id)
	if !ok {
		return nil, runs.Run{}, missing
	}
	run, public, err := s.store.RunBySeq(ctx, seq)
	if apperr.Is(err, apperr.NotFound) {
		return nil, runs.Run{}, missing
	}
	if err != nil {
		return nil, runs.Run{}, fmt.Errorf("find result %q: %w", id, err)
	}
	readable := public || (p != nil && p.RoleIn(run.ProjectID) != "")
	if readable && run.Status == runs.Completed && id != ResultID(run) && id == ProvisionalID(run) {
		return nil, run, &MovedError{ID: ResultID(run)}
	}
	if !readable || run.Status != runs.Completed || ResultID(run) != id {
		return nil, runs.Run{}, missing
	}
	body, _, err := s.make(ctx, run)
	if err != nil {
		return nil, runs.Run{}, err
	}
	return body, run, nil
}

// ForRun returns the export of a run whose result the caller has read.
func (s *Service) ForRun(ctx context.Context, run runs.Run, res runs.Result) ([]byte, error) {
	if res.Fortio != nil {
		return res.Fortio, nil
	}
	body, err := Render(run, res)
	if err != nil {
		return nil, err
	}
	stored, _, err := s.store.SaveFortio(ctx, run.ID, body)
	if err != nil {
		return nil, fmt.Errorf("export run %s: %w", run.ID, err)
	}
	return stored, nil
}

// make returns run's export and its MD5, making and storing it when it
// has none.
func (s *Service) make(ctx context.Context, run runs.Run) ([]byte, []byte, error) {
	res, err := s.store.RunResult(ctx, run.ID)
	if err != nil {
		return nil, nil, fmt.Errorf("export run %s: %w", run.ID, err)
	}
	if res.Fortio != nil && res.FortioMD5 != nil {
		return res.Fortio, res.FortioMD5, nil
	}
	body, err := Render(run, res)
	if err != nil {
		return nil, nil, err
	}
	stored, sum, err := s.store.SaveFortio(ctx, run.ID, body)
	if err != nil {
		return nil, nil, fmt.Errorf("export run %s: %w", run.ID, err)
	}
	return stored, sum, nil
}

// ResultID is a run's Fortio result ID: its start time, its number and its
// labels.
func ResultID(run runs.Run) string {
	return fortiojson.ID(startOf(run), run.Seq, fortiojson.Labels(run.Labels))
}

// ProvisionalID is the result ID a run is known by before it starts, made
// from its creation time: the ID Fortio's REST API replies to async=on
// with. Once the run completes, Document answers it with a MovedError
// naming the run's ResultID, which has the time the run really started.
func ProvisionalID(run runs.Run) string {
	return fortiojson.ID(run.CreatedAt.UTC(), run.Seq, fortiojson.Labels(run.Labels))
}

// MovedError says that a result is served under another ID.
type MovedError struct {
	// ID is the result's ID.
	ID string
}

// Error says where the result is.
func (e *MovedError) Error() string { return "the result is " + e.ID }

// seqOf reads the run number of a result ID made by ResultID.
func seqOf(id string) (int64, bool) {
	_, rest, ok := strings.Cut(id, "_")
	if !ok {
		return 0, false
	}
	num, _, _ := strings.Cut(rest, "_")
	seq, err := strconv.ParseInt(num, 10, 64)
	return seq, err == nil && seq > 0
}

func startOf(run runs.Run) time.Time {
	start := run.StartedAt
	if start.IsZero() {
		start = run.StartAt
	}
	if start.IsZero() {
		start = run.CreatedAt
	}
	return start.UTC()
}

// Render builds a native run's Fortio result JSON, indented as Fortio
// writes it. The DurationHistogram is the run's headline latency (response
// time in open loop, service time otherwise), or a scenario run's
// iteration durations (scenarioCalls). Barrage does not keep the
// latencies of failed requests apart, so ErrorsDurationHistogram carries
// only their count.
func Render(run runs.Run, res runs.Result) ([]byte, error) {
	if res.Imported != nil {
		return nil, fmt.Errorf("run %s was imported and has no histograms to render", run.ID)
	}
	f := fortiojson.Fields{
		Spec: run.Spec, Target: run.Target, RunType: fortiojson.RunType(run.Spec), Labels: run.Labels,
		Start: startOf(run), Duration: res.Duration, RequestedQPS: run.QPSRequested, ActualQPS: res.QPS(),
		Connections: run.Spec.Connections, Version: version.String(), Percentiles: run.Spec.Percentiles,
		Errors: res.Errors, RetCodes: res.RetCodes, BytesSent: res.BytesSent, BytesReceived: res.BytesReceived,
		RunID: run.Seq,
	}
	enc := res.FortioHDR(run)
	if res.Scenario != nil {
		scenarioCalls(&f, run, res)
	}
	h := hist.New()
	if len(enc) > 0 {
		var err error
		if h, err = hist.Decode(enc); err != nil {
			return nil, fmt.Errorf("result of run %s: decode histogram: %w", run.ID, err)
		}
	}
	f.Latency = h
	doc := fortiojson.New(f)
	if doc.RetCodes == nil {
		doc.RetCodes = map[string]int64{}
	}
	body, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode result of run %s: %w", run.ID, err)
	}
	return append(body, '\n'), nil
}

// scenarioCalls makes a scenario run's iterations Fortio's calls
// (docs/scenarios.md): the rate is of iterations, the errors are the
// failed ones, and RetCodes counts them as TCP and UDP runs count theirs,
// "OK" for the completed and "FAILED" for the rest, adding up to the
// iteration histogram's count. The per-step figures stay in the native
// result.
func scenarioCalls(f *fortiojson.Fields, run runs.Run, res runs.Result) {
	sc := res.Scenario
	name := ""
	if run.Spec.Scenario != nil {
		name = run.Spec.Scenario.Name
	}
	f.RunType = "Scenario '" + name + "'"
	f.RequestedQPS = run.Spec.IterationsPerSecond
	f.ActualQPS = 0
	if res.Duration > 0 {
		f.ActualQPS = float64(sc.Started) / res.Duration.Seconds()
	}
	f.Errors = sc.Failed
	f.RetCodes = map[string]int64{}
	if sc.Completed > 0 {
		f.RetCodes["OK"] = sc.Completed
	}
	if sc.Failed > 0 {
		f.RetCodes["FAILED"] = sc.Failed
	}
}

// Project resolves ref (an id or a slug) to a project whose results the
// caller (nil when anonymous) may read: a public one, or one of theirs.
func (s *Service) Project(ctx context.Context, p *auth.Principal, ref string) (uuid.UUID, error) {
	var (
		proj projects.Project
		err  error
	)
	if id, perr := uuid.Parse(ref); perr == nil {
		proj, err = s.store.GetProject(ctx, id)
	} else {
		proj, err = s.store.GetProjectBySlug(ctx, ref)
	}
	readable := err == nil && (proj.PublicResults || (p != nil && p.RoleIn(proj.ID) != ""))
	if apperr.Is(err, apperr.NotFound) || (err == nil && !readable) {
		return uuid.Nil, apperr.New(apperr.NotFound, "project %q not found", ref)
	}
	if err != nil {
		return uuid.Nil, fmt.Errorf("resolve project %q: %w", ref, err)
	}
	return proj.ID, nil
}

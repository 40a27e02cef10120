// Package imports turns Fortio result documents (`fortio load -json`,
// /fortio/data/<ID>.json, Nighthawk's fortio-format output) into completed
// runs: it checks the document, redacts its secrets, derives the summary
// figures from its buckets and percentiles and stores it whole. Imported
// runs have no HdrHistograms, so they compare beside native runs but do not
// merge losslessly.
//
// It is not the place for fetching documents (package resultsync does) or
// for parsing Fortio's format (pkg/fortiojson).
package imports

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/barrage-dev/barrage/pkg/fortiojson"
	"github.com/barrage-dev/barrage/pkg/spec"
	"github.com/barrage-dev/barrage/services/api/internal/apperr"
	"github.com/barrage-dev/barrage/services/api/internal/auth"
	"github.com/barrage-dev/barrage/services/api/internal/projects"
	"github.com/barrage-dev/barrage/services/api/internal/runs"
)

// Field limits of an import.
const (
	maxName   = 200
	maxOrigin = 1000
)

// Store is the storage imports need.
type Store interface {
	// CreateImportedRun stores an imported run, its result and what its
	// document said in one transaction.
	CreateImportedRun(ctx context.Context, n runs.NewImport) (runs.Run, error)
}

// Service imports documents into projects.
type Service struct {
	projects *projects.Service
	store    Store
	now      func() time.Time
	redactor spec.Redactor
}

// NewService returns a Service that resolves projects with projectSvc and
// stores into st.
func NewService(projectSvc *projects.Service, st Store, red spec.Redactor) *Service {
	return &Service{projects: projectSvc, store: st, now: time.Now, redactor: red}
}

// Input is one document to import.
type Input struct {
	// Project is the project id or slug; "" for the caller's only one.
	Project string
	// Name is the run's name; "" takes the document's labels or ID.
	Name string
	// Origin says where the document came from (a file name, a URL).
	Origin string
	// Document is the Fortio result JSON.
	Document []byte
}

// Import stores in.Document as a completed run of source import; the
// caller must be a runner of the project. A document that is not a Fortio
// result is an Invalid error naming the field at fault.
func (s *Service) Import(ctx context.Context, p *auth.Principal, in Input) (runs.Run, error) {
	proj, err := s.projects.Resolve(ctx, p, in.Project, auth.Runner)
	if err != nil {
		return runs.Run{}, err
	}
	if utf8.RuneCountInString(in.Name) > maxName {
		return runs.Run{}, apperr.Invalidf("name", "must be at most %d characters", maxName)
	}
	if utf8.RuneCountInString(in.Origin) > maxOrigin {
		return runs.Run{}, apperr.Invalidf("origin", "must be at most %d characters", maxOrigin)
	}
	n, err := Build(in.Document, Meta{
		Project: proj.ID, Name: in.Name, Origin: in.Origin, Source: runs.SourceImport, CreatedBy: p.UserID, Now: s.now(),
		Redactor: s.redactor,
	})
	if err != nil {
		return runs.Run{}, err
	}
	n.Actor = p.Actor()
	run, err := s.store.CreateImportedRun(ctx, n)
	if err != nil {
		return runs.Run{}, fmt.Errorf("import into project %s: %w", proj.Slug, err)
	}
	return run, nil
}

// Meta is what an imported run gets besides its document.
type Meta struct {
	Project   uuid.UUID
	Name      string
	Origin    string
	Source    runs.Source
	CreatedBy uuid.UUID
	Now       time.Time
	// Redactor names the deployment's extra secret headers
	// (BARRAGE_SECRET_HEADERS); the zero value knows the built-in ones.
	Redactor spec.Redactor
}

// Build checks and redacts doc and returns the run to store. Errors are
// Invalid with the document field at fault.
func Build(doc []byte, m Meta) (runs.NewImport, error) {
	d, err := fortiojson.Parse(doc)
	if err != nil {
		return runs.NewImport{}, documentError(err)
	}
	redacted, err := fortiojson.RedactWith(doc, m.Redactor)
	if err != nil {
		return runs.NewImport{}, documentError(err)
	}
	d.Target = m.Redactor.URL(d.Target)
	now := m.Now.UTC()
	start := d.StartTime.UTC()
	if start.IsZero() {
		start = now
	}
	run := runs.Run{
		ID: uuid.New(), ProjectID: m.Project, Name: m.Name, Status: runs.Completed, Source: m.Source,
		Spec: specOf(d), Labels: labelsOf(d.Labels), Target: d.Target, QPSRequested: d.RequestedQPS,
		CreatedBy: m.CreatedBy, CreatedAt: now, UpdatedAt: now, StartedAt: start, EndedAt: start.Add(d.ActualDuration),
	}
	if run.Name == "" {
		run.Name = firstOf(d.Labels, d.ID, m.Origin, "imported result")
	}
	run.Name = truncate(run.Name, maxName)
	lat := runs.ImportedLatency(d.Latency)
	res := runs.Result{
		RunID: run.ID, RetCodes: d.RetCodes, Count: d.Latency.Count, Errors: d.Errors,
		BytesSent: d.BytesSent, BytesReceived: d.BytesReceived, Duration: d.ActualDuration, CreatedAt: now,
		Imported: &runs.Imported{Format: formatOf(d), Origin: m.Origin, Latency: d.Latency}, Fortio: redacted,
	}
	sum := runs.Summary{
		Count: res.Count, Errors: res.Errors, QPS: d.ActualQPS, MinUS: lat.MinUS, AvgUS: lat.AvgUS,
		P50US: lat.P50US, P90US: lat.P90US, P99US: lat.P99US, MaxUS: lat.MaxUS,
	}
	return runs.NewImport{Run: run, Summary: sum, Result: res}, nil
}

// documentError turns a parse error into an Invalid error on the field at
// fault.
func documentError(err error) error {
	var fe *fortiojson.FieldError
	if errors.As(err, &fe) {
		return apperr.Invalidf(fe.Field, "%s", fe.Msg)
	}
	return apperr.Invalidf("document", "is not a Fortio result JSON: %v", err)
}

// specOf is the spec an imported run shows: its target, rate, connections
// and length as the document gave them. It is never executed.
func specOf(d *fortiojson.Document) spec.Spec {
	u := d.Target
	if u != "" && !strings.Contains(u, "://") {
		switch {
		case strings.HasPrefix(d.RunType, "GRPC"):
			u = "grpc://" + u
		case d.RunType == "TCP":
			u = "tcp://" + u
		case d.RunType == "UDP":
			u = "udp://" + u
		}
	}
	return spec.Spec{URL: u, QPS: d.RequestedQPS, Connections: d.NumThreads, Duration: spec.Duration(d.ActualDuration)}
}

// labelsOf keeps Fortio's label string as the title label.
func labelsOf(l string) map[string]string {
	if l == "" {
		return map[string]string{}
	}
	return map[string]string{"title": truncate(l, 256)}
}

// formatOf tells Nighthawk's output from Fortio's.
func formatOf(d *fortiojson.Document) string {
	if d.RunType == "" || strings.Contains(strings.ToLower(d.Version), "nighthawk") {
		return runs.FormatNighthawk
	}
	return runs.FormatFortio
}

func firstOf(s ...string) string {
	for _, v := range s {
		if strings.TrimSpace(v) != "" {
			return v
		}
	}
	return ""
}

func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n])
}

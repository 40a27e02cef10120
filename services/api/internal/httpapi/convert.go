package httpapi

import (
	"time"

	"github.com/google/uuid"

	"github.com/barrage-dev/barrage/pkg/threshold"
	"github.com/barrage-dev/barrage/services/api/internal/agents"
	"github.com/barrage-dev/barrage/services/api/internal/auth"
	"github.com/barrage-dev/barrage/services/api/internal/policy"
	"github.com/barrage-dev/barrage/services/api/internal/projects"
	"github.com/barrage-dev/barrage/services/api/internal/runs"
	"github.com/barrage-dev/barrage/services/api/internal/testdefs"
	"github.com/barrage-dev/barrage/services/api/internal/tokens"
)

// Domain values to wire types: explicit, one function per type.

// optTime returns nil for the zero time.
func optTime(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

// optID returns nil for uuid.Nil.
func optID(id uuid.UUID) *uuid.UUID {
	if id == uuid.Nil {
		return nil
	}
	return &id
}

// optString returns nil for "".
func optString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// optInt returns nil for 0, for optional integer fields.
func optInt(n int) *int {
	if n == 0 {
		return nil
	}
	return &n
}

// deref returns *p, or the zero value for nil.
func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

// labelsOf never returns nil, so the wire always has an object.
func labelsOf(m map[string]string) Labels {
	if m == nil {
		return Labels{}
	}
	return m
}

// thresholdsOf never returns nil, so the wire always has an array.
func thresholdsOf(t []string) Thresholds {
	if t == nil {
		return Thresholds{}
	}
	return t
}

// projectOut maps a project to the wire, with the limits in force in it.
func (s *server) projectOut(p projects.Project) Project {
	return Project{
		Id: p.ID, Slug: p.Slug, Name: p.Name, Description: p.Description, PublicResults: p.PublicResults,
		TargetAllowList: nonNil(p.TargetAllowList), TargetAllowGranted: nonNil(p.TargetAllowGranted), Limits: limitsOut(s.svc.Projects.Limits(p), s.svc.Projects.Deployment(), p.Limits),
		Retention: ProjectRetention{IntervalRetentionDays: p.Retention.IntervalDays, RunRetentionDays: p.Retention.RunDays},
		CreatedAt: p.CreatedAt, UpdatedAt: p.UpdatedAt,
	}
}

// nonNil returns list, or an empty list for nil, so the wire always has
// an array.
func nonNil(list []string) []string {
	if list == nil {
		return []string{}
	}
	return list
}

// limitValues maps limits to the wire.
func limitValues(l policy.Limits) LimitValues {
	return LimitValues{
		MaxQps: l.MaxQPS, MaxConnections: l.MaxConnections, MaxDuration: l.MaxDuration.String(),
		MaxAgents: l.MaxAgents, MaxConcurrentRuns: l.MaxConcurrentRuns,
	}
}

// limitsOut maps the limits in force, the deployment's and the project's
// own to the wire.
func limitsOut(eff, deployment policy.Limits, o policy.Overrides) ProjectLimits {
	v := limitValues(eff)
	set := o.Set()
	overridden := make([]ProjectLimitsOverridden, len(set))
	for i, name := range set {
		overridden[i] = ProjectLimitsOverridden(name)
	}
	return ProjectLimits{
		MaxQps: v.MaxQps, MaxConnections: v.MaxConnections, MaxDuration: v.MaxDuration, MaxAgents: v.MaxAgents,
		MaxConcurrentRuns: v.MaxConcurrentRuns, Overridden: overridden, Deployment: limitValues(deployment),
	}
}

// limitsIn maps a limits update to a project's own limits.
func limitsIn(u *ProjectLimitsUpdate) *policy.Overrides {
	if u == nil {
		return nil
	}
	o := &policy.Overrides{MaxQPS: u.MaxQps, MaxConnections: u.MaxConnections, MaxAgents: u.MaxAgents, MaxConcurrentRuns: u.MaxConcurrentRuns}
	if u.MaxDuration != nil {
		d := u.MaxDuration.Std()
		o.MaxDuration = &d
	}
	return o
}

// testOut maps a test, with its spec redacted by the server's redactor.
func (s *server) testOut(t testdefs.Test) Test {
	return Test{
		Id: t.ID, ProjectId: t.ProjectID, Name: t.Name, Description: t.Description, Spec: s.redactor.Spec(t.Spec),
		Thresholds: thresholdsOf(t.Thresholds), Labels: labelsOf(t.Labels), CreatedAt: t.CreatedAt, UpdatedAt: t.UpdatedAt,
		Schedule: optString(t.Schedule), Timezone: optString(t.Timezone), NextRunAt: optTime(t.NextRunAt),
		BaselineLast: optInt(t.BaselineLast),
	}
}

func trendPointOut(p testdefs.TrendPoint) TrendPoint {
	out := TrendPoint{
		RunId: p.RunID, Name: p.Name, Status: RunStatus(p.Status), CreatedAt: p.CreatedAt,
		StartedAt: optTime(p.StartedAt), Errors: p.Errors, ErrorRate: p.ErrorRate(), Degraded: p.Degraded,
	}
	if p.Verdict != "" {
		v := RunVerdict(p.Verdict)
		out.Verdict = &v
	}
	if p.HasSummary {
		out.P50Us, out.P90Us, out.P99Us, out.Qps, out.Count = &p.P50US, &p.P90US, &p.P99US, &p.QPS, &p.Count
	}
	return out
}

func trendLimitOut(l testdefs.TrendLimit) TrendLimit {
	return TrendLimit{Threshold: l.Threshold, Metric: TrendLimitMetric(l.Metric), Op: l.Op, Value: l.Value}
}

func changePointOut(c testdefs.ChangePoint) ChangePoint {
	return ChangePoint{RunId: c.RunID, Metric: ChangePointMetric(c.Metric), BeforeUs: c.BeforeUS, AfterUs: c.AfterUS, Change: c.Change()}
}

func runOut(r runs.Run) Run {
	out := Run{
		Id: r.ID, ProjectId: r.ProjectID, TestId: optID(r.TestID), Name: r.Name, Status: RunStatus(r.Status),
		Source: RunSource(r.Source), Spec: r.Spec, Thresholds: thresholdsOf(r.Thresholds), Labels: labelsOf(r.Labels),
		Target: r.Target, QpsRequested: r.QPSRequested, CreatedBy: optID(r.CreatedBy), CreatedAt: r.CreatedAt,
		UpdatedAt: r.UpdatedAt, StartedAt: optTime(r.StartedAt), EndedAt: optTime(r.EndedAt), Error: optString(r.Error),
		StartAt: optTime(r.StartAt), ShardCount: r.ShardCount, Degraded: r.Degraded, AbortedBy: optString(r.AbortedBy),
		Pinned: r.Pinned, IntervalsDroppedAt: optTime(r.IntervalsDroppedAt), VerdictNote: optString(r.VerdictNote),
	}
	if r.AllowPartial {
		out.AllowPartial = &r.AllowPartial
	}
	if r.Verdict != "" {
		v := RunVerdict(r.Verdict)
		out.Verdict = &v
	}
	if r.ThresholdResults != nil {
		list := mapSlice(r.ThresholdResults, thresholdOut)
		out.ThresholdResults = &list
	}
	out.BaselineRunId = optID(r.BaselineRunID)
	if r.BaselineLast > 0 {
		out.BaselineLast = &r.BaselineLast
	}
	if b := r.BaselinePool; b != nil {
		out.BaselinePool = &BaselinePool{Runs: b.Runs, Note: optString(b.Note)}
	}
	if e := r.EchoProfile; e != nil {
		out.EchoProfile = &RunEchoProfile{Echo: e.Echo, ProfileId: e.ProfileID, Name: e.Name, Content: e.Content}
	}
	if s := r.Summary; s != nil {
		out.Summary = &RunSummary{
			Count: s.Count, Errors: s.Errors, Qps: &s.QPS, MinUs: &s.MinUS, AvgUs: &s.AvgUS,
			P50Us: &s.P50US, P90Us: &s.P90US, P99Us: &s.P99US, MaxUs: &s.MaxUS,
		}
	}
	return out
}

func thresholdOut(o threshold.Outcome) ThresholdResult {
	out := ThresholdResult{
		Expression: o.Expression, Metric: o.Metric, Unit: ThresholdResultUnit(o.Unit), Observed: o.Observed,
		Limit: o.Limit, Pass: o.Pass, Error: optString(o.Error), Note: optString(o.Note),
	}
	if o.Inconclusive {
		out.Inconclusive = &o.Inconclusive
	}
	if x := o.Estimate; x != nil {
		out.Estimate = &ThresholdEstimate{
			Confidence: x.Confidence, Ratio: x.Ratio, RatioLow: x.RatioLow, RatioHigh: x.RatioHigh,
			MarginLow: x.MarginLow, MarginHigh: x.MarginHigh, Longer: x.Longer, Seconds: x.Seconds,
		}
		if x.SpreadRuns > 0 {
			out.Estimate.Spread, out.Estimate.SpreadRuns = &x.Spread, &x.SpreadRuns
		}
	}
	return out
}

func shardOut(sh runs.ShardProgress) RunShard {
	return RunShard{
		Shard: sh.Index, AgentId: optID(sh.AgentID), AgentName: sh.AgentName, Status: ShardStatus(sh.Status),
		Qps: sh.QPS, Connections: sh.Connections, Count: sh.Count, Errors: sh.Errors, Snapshots: sh.LastSeq,
		FinalReceived: sh.FinalReceived, UpdatedAt: sh.UpdatedAt,
	}
}

func tokenOut(t tokens.Token) Token {
	return Token{
		Id: t.ID, ProjectId: t.ProjectID, Role: Role(t.Role), Name: t.Name, Hint: t.Hint, CreatedAt: t.CreatedAt,
		ExpiresAt: optTime(t.ExpiresAt), LastUsedAt: optTime(t.LastUsedAt), RevokedAt: optTime(t.RevokedAt),
	}
}

func agentOut(a agents.Agent) Agent {
	return Agent{
		Id: a.ID, Name: a.Name, Labels: labelsOf(a.Labels), Version: a.Version, Capacity: a.Capacity,
		RunningShards: a.RunningShards, RssBytes: a.RSSBytes, CpuPercent: a.CPUPercent,
		FirstSeenAt: a.FirstSeenAt, LastSeenAt: a.LastSeenAt,
		Shards: new(mapSlice(a.Shards, func(sh agents.Shard) AgentShard {
			return AgentShard{RunId: sh.RunID, RunName: sh.RunName, Shard: sh.Shard, Status: AgentShardStatus(sh.Status), Qps: sh.QPS}
		})),
	}
}

func userOut(p *auth.Principal) User {
	return User{Id: p.UserID, Email: p.Email, Name: p.Name, IsAdmin: p.OrgAdmin}
}

// mapSlice applies f to each element.
func mapSlice[T, U any](in []T, f func(T) U) []U {
	out := make([]U, len(in))
	for i, v := range in {
		out[i] = f(v)
	}
	return out
}

// retentionIn maps a retention update to a project's retention.
func retentionIn(u *ProjectRetention) *projects.Retention {
	if u == nil {
		return nil
	}
	return &projects.Retention{IntervalDays: u.IntervalRetentionDays, RunDays: u.RunRetentionDays}
}

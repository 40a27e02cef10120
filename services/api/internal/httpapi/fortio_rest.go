package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/barrage-dev/barrage/services/api/internal/apperr"
	"github.com/barrage-dev/barrage/services/api/internal/auth"
	"github.com/barrage-dev/barrage/services/api/internal/export"
	"github.com/barrage-dev/barrage/services/api/internal/fortiorest"
	"github.com/barrage-dev/barrage/services/api/internal/paging"
	"github.com/barrage-dev/barrage/services/api/internal/runs"
)

// FortioRESTPath is where Fortio's REST API is served: run, status, stop.
const FortioRESTPath = "/fortio/rest"

// TokenParam is the query parameter that may carry an API token on the
// Fortio REST routes, for webhook tools that cannot set headers.
const TokenParam = "token"

// fortioREST serves Fortio's REST API on Barrage runs.
type fortioREST struct {
	s *server
	o Options
}

// registerFortioREST adds /fortio/rest/{run,status,stop}, for GET and POST
// as Fortio answers both.
func registerFortioREST(r *gin.Engine, o Options, s *server) {
	h := &fortioREST{s: s, o: o}
	g := r.Group(FortioRESTPath, h.authenticate, rateLimit(o.Limiter))
	for _, m := range []string{http.MethodGet, http.MethodPost} {
		g.Handle(m, "/run", h.run)
		g.Handle(m, "/status", h.status)
		g.Handle(m, "/stop", h.stop)
	}
}

// authenticate requires an API token from "Authorization: Bearer" or,
// when Options.FortioURLToken allows it, from the token query parameter;
// session cookies are not accepted (these routes start load from a GET).
// A token in a URL ends up in proxies' and browsers' logs, so it is off
// by default (docs/security.md, "The HTTP edge"). The request log never
// records the query string.
func (h *fortioREST) authenticate(c *gin.Context) {
	authz := c.GetHeader("Authorization")
	if tok := c.Query(TokenParam); authz == "" && tok != "" {
		if !h.o.FortioURLToken {
			writeProblem(c, h.o.Log, apperr.New(apperr.Unauthenticated,
				"this server takes no token in the URL (?%s=); send Authorization: Bearer <token>", TokenParam))
			return
		}
		authz = "Bearer " + tok
	}
	if authz == "" {
		writeProblem(c, h.o.Log, apperr.New(apperr.Unauthenticated, "an API token is required: Authorization: Bearer <token>"))
		return
	}
	p, err := authenticateLimited(c, h.o, authz, "")
	if err != nil {
		writeProblem(c, h.o.Log, err)
		return
	}
	setPrincipal(c, p)
	c.Next()
}

// fail writes err as a problem; invalid input is 400, as Fortio answers it.
func (h *fortioREST) fail(c *gin.Context, err error) {
	var e *apperr.Error
	if errors.As(err, &e) && e.Code == apperr.Invalid {
		writeKind(c, problemKind{http.StatusBadRequest, "validation", "Invalid request"}, e)
		return
	}
	writeProblem(c, h.o.Log, err)
}

// params reads the call's parameters from its query and body.
func (h *fortioREST) params(c *gin.Context) (fortiorest.Params, error) {
	body, err := io.ReadAll(http.MaxBytesReader(c.Writer, c.Request.Body, h.o.MaxBodyBytes))
	if err != nil {
		return fortiorest.Params{}, err //nolint:wrapcheck // a MaxBytesError, written as 413
	}
	return fortiorest.ReadParams(c.Request.URL.Query(), body) //nolint:wrapcheck // domain errors
}

// reply writes v as Fortio's JSON.
func reply(c *gin.Context, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil { // the reply types always marshal
		panic(err)
	}
	c.Data(status, "application/json", b)
}

// resultURL is where run's result will be served.
func (h *fortioREST) result(c *gin.Context, r runs.Run) (id, url string) {
	id = export.ProvisionalID(r)
	return id, baseURL(c.Request, h.o.BaseURL, fromTrustedProxy(c.Request, h.o.TrustedProxies)) + FortioDataPath + "/" + id + ".json"
}

// run implements /fortio/rest/run: a Barrage run in the token's project
// (or ?project=), its Fortio result JSON when it completes, or with
// async=on Fortio's "started" reply at once.
func (h *fortioREST) run(c *gin.Context) {
	ctx := c.Request.Context()
	p := principal(ctx)
	params, err := h.params(c)
	if err != nil {
		h.fail(c, err)
		return
	}
	sp, err := params.Spec()
	if err != nil {
		h.fail(c, err)
		return
	}
	r, _, err := h.s.svc.Runs.Create(ctx, p, runs.Input{Project: params.Project(), Spec: &sp, Name: "fortio rest", Source: runs.SourceAPI})
	if err != nil {
		h.fail(c, err)
		return
	}
	id, url := h.result(c, r)
	if params.Async() {
		reply(c, http.StatusOK, fortiorest.Reply{Message: fortiorest.MessageStarted, RunID: r.Seq, Count: 1, ResultID: id, ResultURL: url})
		return
	}
	r, ended, err := h.s.waitRun(ctx, r, maxWait)
	switch {
	case err != nil:
		h.fail(c, err)
	case !ended:
		reply(c, http.StatusAccepted, fortiorest.Reply{Message: fortiorest.MessageRunning, RunID: r.Seq, Count: 1, ResultID: id, ResultURL: url})
	case r.Status == runs.Failed:
		h.fail(c, apperr.New(apperr.Unavailable, "run %d (%s) failed: %s", r.Seq, r.ID, r.Error))
	case r.Status != runs.Completed:
		h.fail(c, apperr.New(apperr.Conflict, "run %d (%s) ended %s before it sent traffic", r.Seq, r.ID, r.Status))
	default:
		h.writeResult(c, r)
	}
}

// writeResult writes a completed run's Fortio result JSON.
func (h *fortioREST) writeResult(c *gin.Context, r runs.Run) {
	ctx := c.Request.Context()
	run, res, err := h.s.svc.Measures.Result(ctx, principal(ctx), r.ID)
	if err != nil {
		h.fail(c, err)
		return
	}
	body, err := h.s.svc.Export.ForRun(ctx, run, res)
	if err != nil {
		h.fail(c, err)
		return
	}
	c.Data(http.StatusOK, "application/json", body)
}

// runID reads runid (Fortio's run number); 0 when absent.
func runID(c *gin.Context) (int64, error) {
	v := strings.TrimSpace(c.Query("runid"))
	if v == "" {
		return 0, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return 0, apperr.Invalidf("runid", "must be a run number, not %q", v)
	}
	return n, nil
}

// inProgress returns the runs in progress the caller can see: run number
// id, or with id 0 all of them (in ?project= when given).
func (h *fortioREST) inProgress(c *gin.Context, id int64) ([]runs.Run, error) {
	ctx := c.Request.Context()
	p := principal(ctx)
	if id > 0 {
		r, err := h.s.svc.Runs.GetBySeq(ctx, p, id)
		if apperr.Is(err, apperr.NotFound) || (err == nil && r.Status.Terminal()) {
			return nil, nil
		}
		return []runs.Run{r}, err
	}
	list, _, err := h.s.svc.Runs.List(ctx, p, runs.ListInput{
		Project: c.Query("project"), Statuses: fortiorest.InProgress(), Page: paging.Request{Limit: paging.MaxLimit},
	})
	return list, err //nolint:wrapcheck // domain errors
}

// status implements /fortio/rest/status: the runs in progress (runid=N
// for one), by run number, in Fortio's shape.
func (h *fortioREST) status(c *gin.Context) {
	id, err := runID(c)
	if err != nil {
		h.fail(c, err)
		return
	}
	list, err := h.inProgress(c, id)
	if err != nil {
		h.fail(c, err)
		return
	}
	now := time.Now()
	out := fortiorest.StatusReply{Statuses: make(map[string]fortiorest.Status, len(list))}
	for i := range list {
		r := &list[i]
		out.Statuses[fortiorest.Key(r.Seq)] = fortiorest.StatusOf(*r, export.ProvisionalID(*r), now)
	}
	reply(c, http.StatusOK, out)
}

// stop implements /fortio/rest/stop: stops run runid, or every run in
// progress the caller may stop when runid is absent or 0; with wait=on it
// waits for a single run to end ("stopped" rather than "stopping").
func (h *fortioREST) stop(c *gin.Context) {
	ctx := c.Request.Context()
	p := principal(ctx)
	id, err := runID(c)
	if err != nil {
		h.fail(c, err)
		return
	}
	if p.Scoped() && !p.Can(p.TokenProject, auth.Runner) {
		h.fail(c, apperr.New(apperr.Forbidden, "stopping runs needs the %s role", auth.Runner))
		return
	}
	list, err := h.inProgress(c, id)
	if err != nil {
		h.fail(c, err)
		return
	}
	stopped, err := h.stopAll(ctx, p, list)
	if err != nil {
		h.fail(c, err)
		return
	}
	out := fortiorest.Reply{Message: fortiorest.MessageStopping, RunID: id, Count: len(stopped)}
	if len(stopped) == 1 {
		r := stopped[0]
		out.ResultID, out.ResultURL = h.result(c, r)
		if w := strings.ToLower(c.Query("wait")); w != "" && w != "off" && w != "false" {
			if _, ended, err := h.s.waitRun(ctx, r, maxWait); err == nil && ended {
				out.Message = fortiorest.MessageStopped
			}
		}
	}
	reply(c, http.StatusOK, out)
}

// stopAll stops the runs of list that are not stopping yet, after
// checking that the caller may stop every one of them.
func (h *fortioREST) stopAll(ctx context.Context, p *auth.Principal, list []runs.Run) ([]runs.Run, error) {
	for i := range list {
		if r := &list[i]; !p.Can(r.ProjectID, auth.Runner) {
			return nil, apperr.New(apperr.Forbidden, "stopping run %d needs the %s role in its project", r.Seq, auth.Runner)
		}
	}
	var stopped []runs.Run
	for i := range list {
		r := &list[i]
		if r.Status == runs.Stopping {
			continue
		}
		moved, err := h.s.svc.Runs.Stop(ctx, p, r.ID)
		if apperr.Is(err, apperr.Conflict) { // it ended meanwhile
			continue
		}
		if err != nil {
			return stopped, err //nolint:wrapcheck // domain errors
		}
		stopped = append(stopped, moved)
	}
	return stopped, nil
}

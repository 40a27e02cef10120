package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/barrage-dev/barrage/services/api/internal/httpapi"
)

// runs is `barrage runs list|show|stop|compare`.
func (e *env) runs(ctx context.Context, args []string) int {
	if len(args) == 0 {
		e.out.errorf("usage: barrage runs list [-project P] [-limit N] | show ID | stop ID | compare ID ID [ID...]")
		return ExitUsage
	}
	switch {
	case args[0] == "list":
		return e.runsList(ctx, args[1:])
	case args[0] == "compare":
		return e.runsCompare(ctx, args[1:])
	case (args[0] == "show" || args[0] == "stop") && len(args) == 2 && isID(args[1]):
		var run httpapi.Run
		var err error
		if args[0] == "show" {
			err = e.api.getJSON(ctx, "/runs/"+args[1], &run)
		} else {
			run, err = e.stopRun(ctx, args[1])
		}
		if err != nil {
			return e.out.fail(args[0]+" run "+args[1], err)
		}
		e.out.printf("%s", formatSummary(run, nil))
		return ExitPass
	default:
		e.out.errorf("usage: barrage runs list [-project P] [-limit N] | show ID | stop ID | compare ID ID [ID...]")
		return ExitUsage
	}
}

// stopRun posts /runs/{id}/stop.
func (e *env) stopRun(ctx context.Context, id string) (httpapi.Run, error) {
	var run httpapi.Run
	_, raw, err := e.api.do(ctx, request{method: http.MethodPost, path: "/runs/" + id + "/stop"})
	if err != nil {
		return run, err
	}
	if err := json.Unmarshal(raw, &run); err != nil {
		return run, fmt.Errorf("decode run: %w", err)
	}
	return run, nil
}

// runsList prints a table of the newest runs.
func (e *env) runsList(ctx context.Context, args []string) int {
	q := url.Values{"limit": {"20"}}
	for i := 0; i+1 < len(args); i += 2 {
		switch strings.TrimLeft(args[i], "-") {
		case "project":
			q.Set("project", args[i+1])
		case "limit":
			q.Set("limit", args[i+1])
		default:
			e.out.errorf("barrage runs list: unknown flag %s", args[i])
			return ExitUsage
		}
	}
	if len(args)%2 != 0 {
		e.out.errorf("barrage runs list: flag %s needs a value", args[len(args)-1])
		return ExitUsage
	}
	var page httpapi.RunPage
	if err := e.api.getJSON(ctx, "/runs?"+q.Encode(), &page); err != nil {
		return e.out.fail("list runs", err)
	}
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tNAME\tSTATUS\tVERDICT\tCOUNT\tP99\tCREATED")
	for i := range page.Items {
		r := &page.Items[i]
		count, p99 := "-", "-"
		if r.Summary != nil {
			count, p99 = fmt.Sprint(r.Summary.Count), formatMicros(deref(r.Summary.P99Us))
		}
		verdict := "-"
		if r.Verdict != nil {
			verdict = string(*r.Verdict)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.Id, r.Name, r.Status, verdict, count, p99, r.CreatedAt.Local().Format(time.DateTime))
	}
	_ = tw.Flush()
	e.out.printf("%s", b.String())
	return ExitPass
}

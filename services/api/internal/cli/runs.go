package cli

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/google/uuid"

	"github.com/barrage-dev/barrage/services/api/client"
)

// runs is `barrage runs list|show|stop|delete|pin|unpin|compare`.
func (e *env) runs(ctx context.Context, args []string) int {
	if len(args) == 0 {
		e.out.errorf("usage: barrage runs list [-project P] [-limit N] | show ID | stop ID | delete ID [-force] | pin ID | unpin ID | compare ID ID [ID...]")
		return ExitUsage
	}
	switch {
	case args[0] == "list":
		return e.runsList(ctx, args[1:])
	case args[0] == "compare":
		return e.runsCompare(ctx, args[1:])
	case args[0] == "delete":
		return e.runsDelete(ctx, args[1:])
	case (args[0] == "pin" || args[0] == "unpin") && len(args) == 2 && isID(args[1]):
		return e.runsPin(ctx, args[0], args[1])
	case (args[0] == "show" || args[0] == "stop") && len(args) == 2 && isID(args[1]):
		var run client.Run
		id := uuid.MustParse(args[1]) // isID above
		op := e.api.GetRun
		if args[0] == "stop" {
			op = e.api.StopRun
		}
		if _, err := call(ctx, &run, func() (*http.Response, error) { return op(ctx, id) }); err != nil {
			return e.out.fail(args[0]+" run "+args[1], err)
		}
		e.out.printf("%s", formatSummary(run, nil))
		return ExitPass
	default:
		e.out.errorf("usage: barrage runs list [-project P] [-limit N] | show ID | stop ID | delete ID [-force] | pin ID | unpin ID | compare ID ID [ID...]")
		return ExitUsage
	}
}

// runsList prints a table of the newest runs.
func (e *env) runsList(ctx context.Context, args []string) int {
	params := &client.ListRunsParams{Limit: ptr(20)}
	for i := 0; i+1 < len(args); i += 2 {
		switch strings.TrimLeft(args[i], "-") {
		case "project":
			params.Project = &args[i+1]
		case "limit":
			n, err := strconv.Atoi(args[i+1])
			if err != nil {
				e.out.errorf("barrage runs list: -limit %q is not a number", args[i+1])
				return ExitUsage
			}
			params.Limit = &n
		default:
			e.out.errorf("barrage runs list: unknown flag %s", args[i])
			return ExitUsage
		}
	}
	if len(args)%2 != 0 {
		e.out.errorf("barrage runs list: flag %s needs a value", args[len(args)-1])
		return ExitUsage
	}
	var page client.RunPage
	if _, err := call(ctx, &page, func() (*http.Response, error) { return e.api.ListRuns(ctx, params) }); err != nil {
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

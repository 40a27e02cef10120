package cli

import (
	"context"
	"net/http"

	"github.com/google/uuid"

	"github.com/barrage-dev/barrage/services/api/client"
)

// runsDelete is `barrage runs delete ID [-force]`: it deletes a finished
// run and all its data (project admins); -force deletes a pinned run or a
// baseline too.
func (e *env) runsDelete(ctx context.Context, args []string) int {
	const usage = "usage: barrage runs delete ID [-force]"
	var id string
	force := false
	for _, a := range args {
		switch {
		case a == "-force" || a == "--force":
			force = true
		case id == "" && isID(a):
			id = a
		default:
			e.out.errorf("barrage runs delete: unexpected %q; %s", a, usage)
			return ExitUsage
		}
	}
	if id == "" {
		e.out.errorf("%s", usage)
		return ExitUsage
	}
	rid := uuid.MustParse(id) // isID above
	params := &client.DeleteRunParams{}
	if force {
		params.Force = &force
	}
	if _, err := call(ctx, nil, func() (*http.Response, error) { return e.api.DeleteRun(ctx, rid, params) }); err != nil {
		return e.out.fail("delete run "+id, err)
	}
	e.out.printf("run %s deleted\n", id)
	return ExitPass
}

// runsPin is `barrage runs pin|unpin ID`.
func (e *env) runsPin(ctx context.Context, verb, id string) int {
	rid := uuid.MustParse(id) // the caller checked isID
	op := e.api.PinRun
	if verb == "unpin" {
		op = e.api.UnpinRun
	}
	var run client.Run
	if _, err := call(ctx, &run, func() (*http.Response, error) { return op(ctx, rid) }); err != nil {
		return e.out.fail(verb+" run "+id, err)
	}
	e.out.printf("run %s %sned\n", id, verb)
	return ExitPass
}

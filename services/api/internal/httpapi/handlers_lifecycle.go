package httpapi

import "context"

// DeleteRun implements DELETE /runs/{run}.
func (s *server) DeleteRun(ctx context.Context, req DeleteRunRequestObject) (DeleteRunResponseObject, error) {
	ctx = requestContext(ctx)
	if err := s.svc.Runs.Delete(ctx, principal(ctx), req.Run, deref(req.Params.Force)); err != nil {
		return nil, err
	}
	return DeleteRun204Response{}, nil
}

// PinRun implements PUT /runs/{run}/pin.
func (s *server) PinRun(ctx context.Context, req PinRunRequestObject) (PinRunResponseObject, error) {
	ctx = requestContext(ctx)
	r, err := s.svc.Runs.Pin(ctx, principal(ctx), req.Run, true)
	if err != nil {
		return nil, err
	}
	return PinRun200JSONResponse(runOut(r)), nil
}

// UnpinRun implements DELETE /runs/{run}/pin.
func (s *server) UnpinRun(ctx context.Context, req UnpinRunRequestObject) (UnpinRunResponseObject, error) {
	ctx = requestContext(ctx)
	r, err := s.svc.Runs.Pin(ctx, principal(ctx), req.Run, false)
	if err != nil {
		return nil, err
	}
	return UnpinRun200JSONResponse(runOut(r)), nil
}

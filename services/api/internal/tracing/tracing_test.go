package tracing

import (
	"context"
	"testing"

	"github.com/barrage-dev/barrage/pkg/wire"
)

// TestOffRecordsNothing: without the switch no exporter is built, spans do
// not record, and no traceparent is carried on.
func TestOffRecordsNothing(t *testing.T) {
	t.Parallel()
	tr, err := New(t.Context(), false, "test")
	if err != nil {
		t.Fatal(err)
	}
	if tr.Enabled() {
		t.Fatal("tracing enabled without the switch")
	}
	ctx, span := tr.Tracer().Start(t.Context(), "x")
	defer span.End()
	if span.IsRecording() || TraceParent(ctx) != "" {
		t.Fatalf("off: span recording %v, traceparent %q", span.IsRecording(), TraceParent(ctx))
	}
	if err := tr.Shutdown(t.Context()); err != nil {
		t.Fatal(err)
	}
}

// TestTraceParentRoundTrip: a traceparent carried through WithTraceParent
// and TraceParent comes out as it went in, and its trace id is what the
// agent logs (pkg/wire TraceIDOf); a malformed one leaves ctx without a
// parent.
func TestTraceParentRoundTrip(t *testing.T) {
	t.Parallel()
	const tp = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	if got := TraceParent(WithTraceParent(context.Background(), tp)); got != tp {
		t.Fatalf("round trip of %q gave %q", tp, got)
	}
	if id, ok := wire.TraceIDOf(tp); !ok || id != "4bf92f3577b34da6a3ce929d0e0e4736" {
		t.Fatalf("TraceIDOf = %q, %v", id, ok)
	}
	for _, bad := range []string{"", "00-zz-00f067aa0ba902b7-01", "garbage"} {
		if got := TraceParent(WithTraceParent(context.Background(), bad)); got != "" {
			t.Errorf("malformed %q carried as %q", bad, got)
		}
	}
}

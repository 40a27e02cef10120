// Package tracing is barrage-api's optional OpenTelemetry trace export:
// spans of the API's HTTP requests and of the dispatch of runs to their
// agents, sent over OTLP/HTTP to the collector the standard OTEL_* variables
// name, and the W3C trace context that carries a run's trace from the
// request that created it, through the outbox, to the agents' log lines
// (docs/observability.md, "Traces").
//
// It is off unless barrage-api's -otel-traces (BARRAGE_OTEL_TRACES) is set:
// then New builds the exporter and Tracer hands out real tracers; off, the
// tracers are no-ops and nothing is sent. It is not a metrics or logs
// pipeline: /metrics (package metrics) and slog stay what they are.
package tracing

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/barrage-dev/barrage/pkg/wire"
)

// ServiceName is the service.name of barrage-api's spans unless
// OTEL_SERVICE_NAME or OTEL_RESOURCE_ATTRIBUTES names another.
const ServiceName = "barrage-api"

// scope is the instrumentation scope of the tracers handed out.
const scope = "github.com/barrage-dev/barrage/services/api"

// Tracing owns the trace provider of one barrage-api process.
type Tracing struct {
	provider trace.TracerProvider
	// sdk is the exporting provider; nil when tracing is off.
	sdk *sdktrace.TracerProvider
}

// Off is a Tracing whose tracers record nothing.
func Off() *Tracing {
	return &Tracing{provider: noop.NewTracerProvider()}
}

// New returns Off when enabled is false. Otherwise it builds an OTLP/HTTP
// (protobuf) exporter configured by the standard variables
// (OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT,
// _HEADERS, _TIMEOUT, _COMPRESSION, the TLS certificates) and a batching
// provider (OTEL_BSP_*; sampler OTEL_TRACES_SAMPLER, parent-based
// always-on by default), whose resource is service.name ServiceName with
// version, then OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES. No span is
// sent before the first is ended, so New needs no collector to be up.
func New(ctx context.Context, enabled bool, version string) (*Tracing, error) {
	if !enabled {
		return Off(), nil
	}
	exp, err := otlptracehttp.New(ctx)
	if err != nil {
		return nil, fmt.Errorf("otlp trace exporter: %w", err)
	}
	res, err := resource.New(ctx,
		resource.WithAttributes(attribute.String("service.name", ServiceName), attribute.String("service.version", version)),
		resource.WithFromEnv(), resource.WithTelemetrySDK())
	if err != nil && !errors.Is(err, resource.ErrPartialResource) {
		return nil, fmt.Errorf("trace resource: %w", err)
	}
	sdk := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
	return &Tracing{provider: sdk, sdk: sdk}, nil
}

// Enabled reports whether spans are exported.
func (t *Tracing) Enabled() bool { return t != nil && t.sdk != nil }

// Tracer returns barrage-api's tracer; a no-op one when t is nil or off.
func (t *Tracing) Tracer() trace.Tracer {
	if t == nil {
		return noop.NewTracerProvider().Tracer(scope)
	}
	return t.provider.Tracer(scope)
}

// Shutdown sends the spans still queued, within ctx, and stops exporting.
func (t *Tracing) Shutdown(ctx context.Context) error {
	if !t.Enabled() {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := t.sdk.Shutdown(ctx); err != nil {
		return fmt.Errorf("trace exporter shutdown: %w", err)
	}
	return nil
}

// traceContext is the W3C Trace Context propagator (traceparent and
// tracestate).
func traceContext() propagation.TextMapPropagator { return propagation.TraceContext{} }

// TraceParent returns the W3C traceparent of the span in ctx, for carrying
// it where a context cannot go (the outbox, a NATS header); "" when ctx
// holds no valid span context.
func TraceParent(ctx context.Context) string {
	c := propagation.MapCarrier{}
	traceContext().Inject(ctx, c)
	return c.Get(wire.TraceParentHeader)
}

// WithTraceParent returns ctx with the remote span context of the W3C
// traceparent tp as the parent of the spans started from it; ctx as it is
// when tp is empty or malformed.
func WithTraceParent(ctx context.Context, tp string) context.Context {
	if tp == "" {
		return ctx
	}
	return traceContext().Extract(ctx, propagation.MapCarrier{wire.TraceParentHeader: tp})
}

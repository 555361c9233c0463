/**
 * The gateway's HTTP server span, made by hand rather than by an
 * instrumentation and passed along explicitly rather than made active
 * (docs/PERFORMANCE.md, Metrics and tracing).
 */
import {
  INVALID_SPAN_CONTEXT,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Context,
  type Span,
} from '@opentelemetry/api';
import { rootSampled, untracedContext } from './root-sampling';
import { tracer, tracingActive } from './tracing';

/** An HTTP request's server span, and the context its NATS requests go out under. */
export interface HttpSpan {
  span: Span;
  context: Context;
}

/**
 * A request not traced, with no span: its NATS requests go out under a fresh
 * trace context whose flags say "not sampled", so that no service traces them
 * either. Made only when asked for: a reply the gateway kept asks for none.
 */
const UNTRACED: HttpSpan = {
  span: trace.wrapSpanContext(INVALID_SPAN_CONTEXT),
  get context() {
    return untracedContext();
  },
};

/**
 * Starts an incoming HTTP request's server span (the gateway's), named after
 * its method and route, continuing a caller's `traceparent`; null when
 * tracing is off. A request with no trace context is traced only when
 * rootSampled() says so, decided before any span is made.
 */
export function startHttpSpan(
  method: string,
  route: string,
  headers: Record<string, string | string[] | undefined>,
): HttpSpan | null {
  if (!tracingActive()) return null;
  const parent = headers.traceparent === undefined ? ROOT_CONTEXT : propagation.extract(ROOT_CONTEXT, headers);
  if (!trace.getSpanContext(parent) && !rootSampled()) return UNTRACED;
  const span = tracer().startSpan(`${method} ${route}`, { kind: SpanKind.SERVER }, parent);
  // Set once sampled: given to startSpan, attributes are checked for every request, sampled or not.
  if (span.isRecording()) span.setAttributes({ 'http.request.method': method, 'http.route': route });
  return { span, context: trace.setSpan(parent, span) };
}

/** Ends an HTTP server span with its response's status (a 5xx marks it failed). */
export function endHttpSpan({ span }: HttpSpan, status: number): void {
  if (span.isRecording()) {
    span.setAttribute('http.response.status_code', status);
    if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
  }
  span.end();
}

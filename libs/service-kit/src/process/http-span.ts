/**
 * The gateway's HTTP server span, made by hand rather than by an
 * instrumentation and passed along explicitly rather than made active
 * (docs/PERFORMANCE.md, Metrics and tracing).
 */
import {
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Context,
  type Span,
} from '@opentelemetry/api';
import { tracer, tracingActive } from './tracing';

/** An HTTP request's server span, and the context its NATS requests go out under. */
export interface HttpSpan {
  span: Span;
  context: Context;
}

/**
 * Starts an incoming HTTP request's server span (the gateway's), named after
 * its method and route, continuing a caller's `traceparent`; null when
 * tracing is off.
 */
export function startHttpSpan(
  method: string,
  route: string,
  headers: Record<string, string | string[] | undefined>,
): HttpSpan | null {
  if (!tracingActive()) return null;
  const parent = propagation.extract(ROOT_CONTEXT, headers);
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

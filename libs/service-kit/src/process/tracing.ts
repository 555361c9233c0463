/**
 * OpenTelemetry tracing, off unless an OTLP endpoint is set (docs/operations.md: Traces); off, no SDK is loaded.
 * Spans for NATS are made here (no instrumentation exists for nats.js). This module must not load what it
 * instruments (mongodb, fastify): each main.ts imports it first.
 */
import {
  context,
  isSpanContextValid,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  TraceFlags,
  type Context,
  type Span,
  type TextMapGetter,
  type TextMapSetter,
  type Tracer,
} from '@opentelemetry/api';
import type { MsgHdrs } from 'nats';
import { NoActiveContext } from './no-active-context';
import { decideRoots, rootSampled, untracedContext } from './root-sampling';

/** What a started SDK needs to be flushed at shutdown. */
interface StartedSdk {
  shutdown(): Promise<void>;
}

let sdk: StartedSdk | null = null;

/** Unless OTEL_TRACES_SAMPLER says otherwise: a new trace for one request in a hundred; a caller's decision is kept. */
export const DEFAULT_SAMPLER = 'parentbased_traceidratio';
export const DEFAULT_RATIO = '0.01';

/** Whether the OTEL_* variables ask for trace export. */
export function tracingConfigured(env: NodeJS.ProcessEnv = process.env): boolean {
  if ((env.OTEL_SDK_DISABLED ?? '').trim().toLowerCase() === 'true') return false;
  const exporters = (env.OTEL_TRACES_EXPORTER ?? '').split(',').map((s) => s.trim());
  if (exporters.includes('none')) return false;
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
}

export function tracingActive(): boolean {
  return sdk !== null;
}

export interface TracingOptions {
  /** The instrumentations to load (made only when tracing is on). */
  instrumentations?: () => unknown[];
  /**
   * false: no active context is kept (NoActiveContext), for a process that
   * passes every span's context along itself and runs no instrumentation.
   */
  activeContext?: boolean;
  /**
   * true: whether to trace a request that comes with no trace context is
   * decided by the process itself, before it makes a span (rootSampled),
   * when the configured sampler is parent-based (root-sampling.ts).
   */
  decidesRoots?: boolean;
}

/**
 * Starts the OpenTelemetry SDK (OTLP exporter, W3C propagation and the
 * instrumentations asked for) when tracing is configured. Call it before
 * mongodb is loaded. `serviceName` applies unless OTEL_SERVICE_NAME is set.
 */
export function startTracing(
  serviceName: string,
  { instrumentations = () => [], activeContext = true, decidesRoots = false }: TracingOptions = {},
): boolean {
  if (sdk || !tracingConfigured()) return false;
  /* eslint-disable @typescript-eslint/no-require-imports */
  const { NodeSDK } = require('@opentelemetry/sdk-node') as typeof import('@opentelemetry/sdk-node');
  /* eslint-enable @typescript-eslint/no-require-imports */
  // Traces only: metrics are Prometheus's (see metrics.ts), logs are pino's lines on stdout.
  process.env.OTEL_METRICS_EXPORTER ??= 'none';
  process.env.OTEL_LOGS_EXPORTER ??= 'none';
  // What tracing costs, chosen by measurement (docs/PERFORMANCE.md, Metrics and tracing): one request in a hundred is traced,
  // unless it comes with a sampled traceparent (a caller asks for its trace); W3C trace context only, no baggage.
  process.env.OTEL_TRACES_SAMPLER ??= DEFAULT_SAMPLER;
  if (process.env.OTEL_TRACES_SAMPLER === DEFAULT_SAMPLER) process.env.OTEL_TRACES_SAMPLER_ARG ??= DEFAULT_RATIO;
  process.env.OTEL_PROPAGATORS ??= 'tracecontext';
  const decided = decideRoots(decidesRoots);
  const started = new NodeSDK({
    serviceName: process.env.OTEL_SERVICE_NAME || serviceName,
    instrumentations: instrumentations() as never[],
    ...(activeContext ? {} : { contextManager: new NoActiveContext() }),
    // A root reaches the SDK only once rootSampled() said to trace it; a caller's decision is kept.
    ...(decided ? { sampler: rootsTraced() } : {}),
  });
  started.start();
  sdk = started;
  return true;
}

/** The SDK's sampler where the process decides its roots itself: a caller's decision kept, every root traced. */
function rootsTraced() {
  /* eslint-disable @typescript-eslint/no-require-imports */
  const { tracing } = require('@opentelemetry/sdk-node') as typeof import('@opentelemetry/sdk-node');
  /* eslint-enable @typescript-eslint/no-require-imports */
  return new tracing.ParentBasedSampler({ root: new tracing.AlwaysOnSampler() });
}

/** Exports what is still buffered; a no-op when tracing is off. */
export async function stopTracing(): Promise<void> {
  const current = sdk;
  sdk = null;
  decideRoots(false);
  await current?.shutdown().catch(() => undefined);
}

let cachedTracer: Tracer | null = null;

export function tracer(): Tracer {
  cachedTracer ??= trace.getTracer('@clinic/service-kit');
  return cachedTracer;
}

const headerSetter: TextMapSetter<MsgHdrs> = {
  set: (carrier, key, value) => carrier.set(key, value),
};

const headerGetter: TextMapGetter<MsgHdrs | undefined> = {
  get: (carrier, key) => carrier?.get(key) || undefined,
  keys: (carrier) => carrier?.keys() ?? [],
};

const NO_FIELDS: Readonly<Record<string, string>> = Object.freeze({});

/** `{ trace_id }` of the active span for a log line, or nothing. */
export function traceLogFields(): Readonly<Record<string, string>> {
  if (!sdk) return NO_FIELDS;
  const span = trace.getActiveSpan();
  // A trace that is not sampled is exported nowhere: its id would lead nowhere.
  return span ? spanLogFields(span) : NO_FIELDS;
}

/** `{ trace_id }` of a sampled span for a log line, or nothing. */
export function spanLogFields(span: Span): Readonly<Record<string, string>> {
  return span.isRecording() ? { trace_id: span.spanContext().traceId } : NO_FIELDS;
}

function messagingAttributes(subject: string, operation: string): Record<string, string> {
  return { 'messaging.system': 'nats', 'messaging.destination.name': subject, 'messaging.operation.type': operation };
}

/** Runs `work` and ends `span` with it, marked failed if `work` throws. */
async function endingSpan<T>(span: Span, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    span.recordException(err as Error);
    span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error)?.message });
    throw err;
  } finally {
    span.end();
  }
}

/**
 * Runs a NATS request under a client span whose context goes out in `headers`,
 * a child of `parent` (by default the active context).
 */
export async function withRequestSpan<T>(
  subject: string,
  headers: MsgHdrs,
  send: () => Promise<T>,
  parent: Context = context.active(),
): Promise<T> {
  if (!sdk) return send();
  // A root (the gateway's background checks, say), where the process decides its roots itself.
  if (!trace.getSpanContext(parent) && !rootSampled()) parent = untracedContext();
  const span = tracer().startSpan(
    `send ${subject}`,
    { kind: SpanKind.CLIENT, attributes: messagingAttributes(subject, 'send') },
    parent,
  );
  // Not sampled, it still goes out (traceparent's flags say so), so that the service skips its spans too.
  propagation.inject(trace.setSpan(parent, span), headers, headerSetter);
  if (!span.isRecording()) {
    span.end();
    return send();
  }
  return endingSpan(span, send);
}

/**
 * Runs a received request's handling under a server span, continuing the
 * trace whose context came in the message's headers.
 */
export async function withHandlerSpan<T>(
  subject: string,
  headers: MsgHdrs | undefined,
  handle: () => Promise<T>,
): Promise<T> {
  if (!sdk) return handle();
  const parent = propagation.extract(ROOT_CONTEXT, headers, headerGetter);
  const caller = trace.getSpanContext(parent);
  // The caller's trace is not sampled: no span here, and none below (the database instrumentation needs an
  // active span), so that an untraced request costs next to nothing.
  if (caller && isSpanContextValid(caller) && (caller.traceFlags & TraceFlags.SAMPLED) === 0) return handle();
  const span = tracer().startSpan(
    `process ${subject}`,
    { kind: SpanKind.SERVER, attributes: messagingAttributes(subject, 'process') },
    parent,
  );
  if (!span.isRecording()) {
    span.end();
    return handle();
  }
  return endingSpan(span, () => context.with(trace.setSpan(parent, span), handle));
}

/** Notes a reply's status on the active span (a 5xx marks it failed). */
export function noteReplyStatus(status: number): void {
  if (!sdk) return;
  const span = trace.getActiveSpan();
  if (!span) return;
  span.setAttribute('clinic.reply.status', status);
  if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
}

/** The active trace context as header values, to keep with work done later (an outbox entry). */
export function currentTraceCarrier(): Record<string, string> | undefined {
  if (!sdk || !trace.getActiveSpan()) return undefined;
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier;
}

/**
 * Publishes an event under a producer span, child of the request that
 * recorded it (`carrier`), whose context goes out in `headers`.
 */
export async function withPublishSpan<T>(
  subject: string,
  carrier: Record<string, string> | undefined,
  headers: MsgHdrs,
  publish: () => Promise<T>,
): Promise<T> {
  if (!sdk || !carrier) return publish();
  const parent = propagation.extract(ROOT_CONTEXT, carrier);
  const span = tracer().startSpan(
    `publish ${subject}`,
    { kind: SpanKind.PRODUCER, attributes: messagingAttributes(subject, 'publish') },
    parent,
  );
  propagation.inject(trace.setSpan(parent, span), headers, headerSetter);
  return endingSpan(span, publish);
}

/** Runs background work outside whatever request started it, so its spans do not join that trace. */
export function detachedFromTrace<T>(work: () => T): T {
  return sdk ? context.with(ROOT_CONTEXT as Context, work) : work();
}

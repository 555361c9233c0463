/**
 * Whether to trace a request that comes with no trace context, decided before any span is made: cheaper than the
 * SDK's decision (docs/PERFORMANCE.md: Metrics and tracing). Parent-based OTEL_TRACES_SAMPLER only; others are the SDK's.
 */

import { randomBytes } from 'node:crypto';
import { ROOT_CONTEXT, trace, TraceFlags, type Context } from '@opentelemetry/api';

/** The share of new traces the parent-based samplers ask for, by name. */
const PARENT_BASED_ROOTS: Record<string, (arg: string | undefined) => number> = {
  parentbased_always_on: () => 1,
  parentbased_always_off: () => 0,
  parentbased_traceidratio: (arg) => ratioOf(arg),
};

/** OTEL_TRACES_SAMPLER_ARG of a ratio sampler: a number from 0 to 1, else 1 (the SDK's reading). */
function ratioOf(arg: string | undefined): number {
  const ratio = Number((arg ?? '').trim());
  return arg === undefined || arg.trim() === '' || !Number.isFinite(ratio) || ratio < 0 || ratio > 1 ? 1 : ratio;
}

/** The share of new traces to start, when the configured sampler is parent-based; null: the SDK decides. */
export function rootSamplingRatio(env: NodeJS.ProcessEnv = process.env): number | null {
  const sampler = (env.OTEL_TRACES_SAMPLER ?? '').trim().toLowerCase();
  const root = PARENT_BASED_ROOTS[sampler];
  return root ? root(env.OTEL_TRACES_SAMPLER_ARG) : null;
}

/** The share of new traces this process starts, deciding itself; null: the SDK's sampler decides. */
let rootRatio: number | null = null;

/** Whether the process decides its roots itself (with the configured sampler's ratio); answers whether it does. */
export function decideRoots(decides: boolean, env: NodeJS.ProcessEnv = process.env): boolean {
  rootRatio = decides ? rootSamplingRatio(env) : null;
  return rootRatio !== null;
}

/**
 * Whether to trace a request that comes with no trace context: decided here
 * when the process decides its roots, else always true (the SDK's sampler
 * decides when the span is made).
 */
export function rootSampled(): boolean {
  return rootRatio === null || Math.random() < rootRatio;
}

/**
 * A fresh trace context whose flags say "not sampled": what a request not
 * traced goes out under, so that the processes it reaches trace nothing of it.
 */
export function untracedContext(): Context {
  const ids = randomBytes(24).toString('hex');
  return trace.setSpanContext(ROOT_CONTEXT, {
    traceId: ids.slice(0, 32),
    spanId: ids.slice(32),
    traceFlags: TraceFlags.NONE,
  });
}

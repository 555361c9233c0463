/**
 * The one way this code tries again: cockatiel's retry policy. Each caller
 * states what it retries on, how many times and how long it pauses; cockatiel
 * runs the loop (see the callers for their limits).
 */
import {
  ConstantBackoff,
  DelegateBackoff,
  ExponentialBackoff,
  handleWhen,
  noJitterGenerator,
  retry,
  type IBackoffFactory,
  type IRetryBackoffContext,
  type RetryPolicy,
} from 'cockatiel';

export type { RetryPolicy };

/** How long to wait before each new try. */
export type Pause = IBackoffFactory<IRetryBackoffContext<unknown>>;

export const pauses = {
  none: (): Pause => new ConstantBackoff(0),
  constant: (ms: number): Pause => new ConstantBackoff(ms),
  /** `stepMs` times the number of failed tries, at most `maxMs`. */
  linear: (stepMs: number, maxMs: number): Pause =>
    new DelegateBackoff((context) => Math.min(stepMs * context.attempt, maxMs)),
  /** `firstMs`, then twice as long each time, at most `maxMs` (no jitter). */
  doubling: (firstMs: number, maxMs: number): Pause =>
    new ExponentialBackoff({ initialDelay: firstMs, maxDelay: maxMs, generator: noJitterGenerator }),
  /** As `doubling`, each pause drawn at random around it (decorrelated jitter), so that racers spread out. */
  doublingJittered: (firstMs: number, maxMs: number): Pause =>
    new ExponentialBackoff({ initialDelay: firstMs, maxDelay: maxMs }),
};

export interface RetryPlan {
  /** Whether a failure is worth another try; asked when it happens. */
  retryOn(err: unknown): boolean;
  /** Tries after the first one; `Infinity`: for as long as `retryOn` says so. */
  retries: number;
  /** Default: none. */
  pause?: Pause;
  /** Told of each failure that will be tried again (`attempt` counts from 1), before the pause. */
  onRetry?(err: unknown, attempt: number): void;
  /** False for background work: a pause does not keep a stopping process alive. */
  holdsProcess?: boolean;
}

export function retryPolicy(plan: RetryPlan): RetryPolicy {
  const base = retry(
    handleWhen((err) => plan.retryOn(err)),
    { maxAttempts: plan.retries, backoff: plan.pause ?? pauses.none() },
  );
  const policy = plan.holdsProcess === false ? base.dangerouslyUnref() : base;
  const { onRetry } = plan;
  if (onRetry) policy.onRetry((event) => ('error' in event ? onRetry(event.error, event.attempt) : undefined));
  return policy;
}

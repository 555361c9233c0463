import {
  BrokenCircuitError,
  circuitBreaker,
  CircuitState,
  ConsecutiveBreaker,
  DelegateBackoff,
  handleWhen,
  timeout,
  TimeoutStrategy,
  type CircuitBreakerPolicy,
  type IHalfOpenAfterBackoffContext,
  type TimeoutPolicy,
} from 'cockatiel';
import type { Logger } from '../process/logger';
import { isConnectivityError } from './mongo';
import { pauses, retryPolicy } from '../process/retry';

export class DatabaseUnavailableError extends Error {
  constructor() {
    super('Database unavailable (circuit open)');
    this.name = 'DatabaseUnavailableError';
  }
}

/** A trial request whose end says nothing about the database: an ordinary error, or no end within trialMs. */
class InconclusiveTrial extends Error {}

/**
 * Fails requests at once while the database cannot be reached, instead of letting them pile up into the gateway's
 * 504: a circuit breaker with one trial at a time and a ping probe (docs/service-kit.md: The database breaker).
 */
export class DatabaseBreaker {
  private readonly circuit: CircuitBreakerPolicy;
  private readonly trialBound: TimeoutPolicy;
  private downSince: number | null = null;
  private probing = false;
  private stopped = false;

  constructor(
    private readonly ping: () => Promise<unknown>,
    private readonly log: Logger,
    openMs = 1_000,
    private readonly probeMs = 250,
    trialMs = 5_000,
  ) {
    this.circuit = circuitBreaker(
      handleWhen((err) => isConnectivityError(err) || err instanceof InconclusiveTrial),
      {
        breaker: new ConsecutiveBreaker(1),
        halfOpenAfter: new DelegateBackoff((context: IHalfOpenAfterBackoffContext) =>
          'error' in context.result && context.result.error instanceof InconclusiveTrial ? 0 : openMs,
        ),
      },
    );
    this.trialBound = timeout(trialMs, TimeoutStrategy.Aggressive).dangerouslyUnref();
    this.circuit.onBreak((reason) => {
      if (!('error' in reason) || !isConnectivityError(reason.error)) return;
      if (this.downSince === null) {
        this.downSince = Date.now();
        this.log.error({ err: reason.error }, 'database unreachable: failing requests fast until it answers');
      }
      void this.probe();
    });
    this.circuit.onReset(() => {
      if (this.downSince !== null) this.log.warn({ down_ms: Date.now() - this.downSince }, 'database reachable again');
      this.downSince = null;
    });
  }

  get isOpen(): boolean {
    return this.circuit.state !== CircuitState.Closed;
  }

  /** Runs `work` unless the database is known to be unreachable (DatabaseUnavailableError, a 500). */
  async run<T>(work: () => Promise<T>): Promise<T> {
    const state = this.circuit.state;
    if (state === CircuitState.Closed) return this.circuit.execute(work);
    if (state !== CircuitState.Open) throw new DatabaseUnavailableError(); // a trial is running
    let outcome: Promise<T> | undefined;
    try {
      await this.circuit.execute(() => {
        outcome = work();
        return this.verdictOf(outcome);
      });
    } catch (err) {
      if (err instanceof BrokenCircuitError || !outcome) throw new DatabaseUnavailableError();
    }
    // The trial's caller gets its own answer, however long it takes.
    return outcome!;
  }

  /** What a trial tells the circuit: success, a connectivity error, or nothing (InconclusiveTrial). */
  private async verdictOf(outcome: Promise<unknown>): Promise<void> {
    try {
      await this.trialBound.execute(() => outcome);
    } catch (err) {
      throw isConnectivityError(err) ? err : new InconclusiveTrial();
    }
  }

  /** The database answered (the probe, or a health check). */
  close(): void {
    // cockatiel closes an open circuit only after a trial; isolating and releasing it closes it now.
    if (this.isOpen) this.circuit.isolate().dispose();
  }

  stop(): void {
    this.stopped = true;
  }

  private async probe(): Promise<void> {
    if (this.probing) return;
    this.probing = true;
    const untilAnswered = retryPolicy({
      retryOn: () => this.isOpen && !this.stopped,
      retries: Infinity,
      pause: pauses.constant(this.probeMs),
      holdsProcess: false,
    });
    try {
      await untilAnswered.execute(() => this.trialBound.execute(() => this.ping()));
      this.close();
    } catch {
      // Stopped, or closed by a request or a health check meanwhile.
    } finally {
      this.probing = false;
    }
  }
}

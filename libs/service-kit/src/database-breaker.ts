import type { Logger } from './logger';
import { isConnectivityError } from './mongo';

export class DatabaseUnavailableError extends Error {
  constructor() {
    super('Database unavailable (circuit open)');
    this.name = 'DatabaseUnavailableError';
  }
}

/**
 * Fails requests at once while the database cannot be reached, instead of
 * letting each wait out the driver's server selection and pile up behind one
 * another until the gateway answers 504.
 *
 * A connectivity error opens the circuit. For `openMs` after the latest such
 * error every request fails at once; after that one request at a time may try
 * (half-open): its success closes the circuit, its connectivity error re-opens
 * it, and the others keep failing fast meanwhile (for at most `trialMs`, should
 * the trial never end). Independently a probe pings,
 * one ping at a time, each bounded by the driver's own timeouts; its first
 * success closes the circuit, however long the ping took.
 */
/** A ping that never settles must not stop the probe for good. */
function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    timer.unref();
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

export class DatabaseBreaker {
  private lastFailureAt: number | null = null;
  private openedAt = 0;
  /** When the half-open trial request started (0: none in flight). */
  private trialStartedAt = 0;
  private probing = false;
  private stopped = false;

  constructor(
    private readonly ping: () => Promise<unknown>,
    private readonly log: Logger,
    private readonly openMs = 1_000,
    private readonly probeMs = 250,
    private readonly trialMs = 5_000,
  ) {}

  get isOpen(): boolean {
    return this.lastFailureAt !== null;
  }

  /**
   * Throws while the database is known to be unreachable (the caller answers
   * 500). A request it lets through must end in `succeeded()` or `record()`.
   */
  check(): void {
    if (this.lastFailureAt === null) return;
    const now = Date.now();
    // A trial that has not ended within trialMs no longer holds the others back.
    const trialRunning = this.trialStartedAt > 0 && now - this.trialStartedAt < this.trialMs;
    if (now - this.lastFailureAt < this.openMs || trialRunning) throw new DatabaseUnavailableError();
    this.trialStartedAt = now;
  }

  /** A request that passed `check()` completed: the database answered it. */
  succeeded(): void {
    this.trialStartedAt = 0;
    this.close();
  }

  /** Looks at a request's failure; a connectivity error (re)opens the circuit. */
  record(err: unknown): void {
    this.trialStartedAt = 0;
    if (!isConnectivityError(err)) return;
    if (this.lastFailureAt === null) {
      this.openedAt = Date.now();
      this.log.error({ err }, 'database unreachable: failing requests fast until it answers');
    }
    this.lastFailureAt = Date.now();
    void this.probe();
  }

  /** The database answered (a request, the probe, or a health check). */
  close(): void {
    if (this.lastFailureAt === null) return;
    this.log.warn({ down_ms: Date.now() - this.openedAt }, 'database reachable again');
    this.lastFailureAt = null;
    this.trialStartedAt = 0;
  }

  stop(): void {
    this.stopped = true;
  }

  private async probe(): Promise<void> {
    if (this.probing) return;
    this.probing = true;
    try {
      while (this.lastFailureAt !== null && !this.stopped) {
        try {
          await withTimeout(this.ping(), this.trialMs);
          this.close();
        } catch {
          await new Promise((resolve) => setTimeout(resolve, this.probeMs).unref());
        }
      }
    } finally {
      this.probing = false;
    }
  }
}

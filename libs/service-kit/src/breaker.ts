import type { Db } from 'mongodb';
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
 * another until the gateway answers 504. Opened by a connectivity error,
 * closed by the first successful ping (tried every `probeMs`).
 */
export class DatabaseBreaker {
  private openSince: number | null = null;
  private probe: NodeJS.Timeout | null = null;

  constructor(
    private readonly db: Db,
    private readonly log: Logger,
    private readonly probeMs = 250,
  ) {}

  get isOpen(): boolean {
    return this.openSince !== null;
  }

  /** Throws while the database is known to be unreachable (the caller answers 500). */
  check(): void {
    if (this.openSince !== null) throw new DatabaseUnavailableError();
  }

  /** Looks at a request's failure; a connectivity error opens the circuit. */
  record(err: unknown): void {
    if (this.openSince !== null || !isConnectivityError(err)) return;
    this.openSince = Date.now();
    this.log.error({ err }, 'database unreachable: failing requests fast until it answers');
    const tick = () => {
      // A ping on a connection to a paused server would wait out the socket timeout: give up sooner.
      const timeout = new Promise((_resolve, reject) => setTimeout(() => reject(new Error('ping timed out')), this.probeMs * 2).unref());
      Promise.race([this.db.command({ ping: 1 }), timeout])
        .then(() => this.close())
        .catch(() => {
          if (this.openSince === null) return;
          this.probe = setTimeout(tick, this.probeMs);
          this.probe.unref();
        });
    };
    this.probe = setTimeout(tick, this.probeMs);
    this.probe.unref();
  }

  /** The database answered (a probe, or a health check). */
  close(): void {
    if (this.openSince === null) return;
    this.log.warn({ down_ms: Date.now() - this.openSince }, 'database reachable again');
    this.openSince = null;
    if (this.probe) clearTimeout(this.probe);
    this.probe = null;
  }

  stop(): void {
    if (this.probe) clearTimeout(this.probe);
  }
}

/**
 * A steady load of bill creations through the gateway, as careful clients
 * would send it: each logical bill carries an Idempotency-Key and is retried
 * (same key) after a 503, a 504 or a broken connection. Every attempt is
 * timed; one that takes longer than the client's limit counts as a hang.
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { LoadLoops } from './load-loops';

export interface Attempt {
  status: number | 'network' | 'hang';
  ms: number;
  startedAt: number;
  body?: any;
}

export interface LogicalBill {
  key: string;
  /** What each attempt sent. */
  body: Record<string, unknown>;
  attempts: Attempt[];
  /** The bill the API finally confirmed with a 201, if any. */
  created?: { bill_id: number; bill_number: string };
}

export interface LoadOptions {
  url: string;
  token: string;
  body: () => Record<string, unknown>;
  concurrency?: number;
  maxAttempts?: number;
  /** A request taking longer than this is a hang. */
  hangMs?: number;
}

/** With an Idempotency-Key every server failure is safe to retry: the first bill comes back if it was made. */
const RETRIABLE = new Set<number | string>([500, 503, 504, 'network']);

export class BillLoad extends LoadLoops {
  readonly bills: LogicalBill[] = [];
  readonly startedAt = performance.now();

  constructor(private readonly options: LoadOptions) {
    super(options.concurrency ?? 8);
  }

  /** Milliseconds since the load started. */
  now(): number {
    return performance.now() - this.startedAt;
  }

  protected async loop(): Promise<void> {
    while (this.running) {
      const bill: LogicalBill = { key: randomUUID(), body: this.options.body(), attempts: [] };
      this.bills.push(bill);
      const body = JSON.stringify(bill.body);
      for (let i = 0; i < (this.options.maxAttempts ?? 6); i++) {
        const attempt = await this.attempt(bill.key, body);
        bill.attempts.push(attempt);
        if (attempt.status === 201) {
          bill.created = { bill_id: attempt.body.bill_id, bill_number: attempt.body.bill_number };
          break;
        }
        if (!RETRIABLE.has(attempt.status)) break;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }
  }

  /**
   * After recovery, as a careful client would: each bill whose last attempt failed in a way worth retrying is
   * sent once more with its key, so that one stored meanwhile comes back with its 201.
   */
  async retryUnconfirmed(): Promise<void> {
    const pending = this.bills.filter((b) => !b.created && RETRIABLE.has(b.attempts.at(-1)?.status ?? 'network'));
    for (const bill of pending) {
      const attempt = await this.attempt(bill.key, JSON.stringify(bill.body));
      bill.attempts.push(attempt);
      if (attempt.status === 201)
        bill.created = { bill_id: attempt.body.bill_id, bill_number: attempt.body.bill_number };
    }
  }

  private async attempt(key: string, body: string): Promise<Attempt> {
    const startedAt = this.now();
    const t0 = performance.now();
    try {
      const response = await fetch(`${this.options.url}/lab_bills`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${this.options.token}`,
          'content-type': 'application/json',
          'idempotency-key': key,
        },
        body,
        signal: AbortSignal.timeout(this.options.hangMs ?? 15_000),
      });
      const json = await response.json().catch(() => undefined);
      return { status: response.status, ms: performance.now() - t0, startedAt, body: json };
    } catch (err) {
      const hang = (err as Error).name === 'TimeoutError';
      return { status: hang ? 'hang' : 'network', ms: performance.now() - t0, startedAt };
    }
  }

  /** Every attempt's status, counted. */
  statusCounts(from = 0, to = Infinity): Record<string, number> {
    const counts: Record<string, number> = {};
    for (const attempt of this.bills.flatMap((b) => b.attempts)) {
      if (attempt.startedAt < from || attempt.startedAt >= to) continue;
      counts[String(attempt.status)] = (counts[String(attempt.status)] ?? 0) + 1;
    }
    return counts;
  }

  /** Time from `since` until the first request started after it succeeded. */
  recoveryMs(since: number): number | null {
    const first = this.bills
      .flatMap((b) => b.attempts)
      .filter((a) => a.startedAt >= since && a.status === 201)
      .sort((a, b) => a.startedAt - b.startedAt)[0];
    return first ? Math.round(first.startedAt + first.ms - since) : null;
  }

  /** Every failure carried the spec's envelope (JSON, success false, a string error and no stack). */
  failuresInEnvelope(): boolean {
    return this.bills
      .flatMap((b) => b.attempts)
      .filter((a) => typeof a.status === 'number' && a.status >= 400)
      .every((a) => a.body?.success === false && typeof a.body.error === 'string' && !/\n\s+at /.test(a.body.error));
  }
}

/**
 * Changes to bills during a load, so that faults also meet updates: each bill
 * the load confirmed gets one PUT of its notes, one at a time, while the load
 * runs. Outcomes are not judged here: the checks read what was stored.
 */
export class BillUpdates extends LoadLoops {
  readonly statuses: Array<number | 'network' | 'hang'> = [];
  /** The notes each acknowledged (200) update set: what its bill must hold afterwards. */
  readonly acknowledged: Array<{ billId: number; notes: string }> = [];
  constructor(
    private readonly load: BillLoad,
    private readonly options: { url: string; token: string },
  ) {
    super(1);
  }

  protected async loop(): Promise<void> {
    // Bills are confirmed out of order: each is taken once, whatever its place in the load.
    const updated = new Set<number>();
    let sent = 0;
    while (this.running) {
      const bill = this.load.bills.find((b) => b.created && !updated.has(b.created.bill_id));
      if (!bill) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        continue;
      }
      updated.add(bill.created!.bill_id);
      const notes = `checked ${++sent}`;
      try {
        const response = await fetch(`${this.options.url}/lab_bills/${bill.created!.bill_id}`, {
          method: 'PUT',
          headers: { authorization: `Bearer ${this.options.token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ notes }),
          signal: AbortSignal.timeout(15_000),
        });
        this.statuses.push(response.status);
        if (response.status === 200) this.acknowledged.push({ billId: bill.created!.bill_id, notes });
        await response.arrayBuffer();
      } catch (err) {
        this.statuses.push((err as Error).name === 'TimeoutError' ? 'hang' : 'network');
      }
    }
  }
}

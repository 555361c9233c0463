/**
 * Payments and refunds alongside a bill load, as careful clients send them
 *: each one carries an Idempotency-Key and is retried (same key)
 * after a 500, 503, 504, a 409 "retry" or a broken connection, until it is
 * answered for good. A Pending bill the load confirmed is paid in two parts
 * (Cash, then Card); a Paid one gets two refunds. Every attempt is kept.
 */
import { randomUUID } from 'node:crypto';
import type { Attempt, BillLoad, LogicalBill } from './load';
import { LoadLoops } from './load-loops';

export interface MoneyOp {
  billId: number;
  kind: 'payment' | 'refund';
  key: string;
  attempts: Attempt[];
  /** The ledger entry the API confirmed with a 201. */
  entryId?: string;
  /** What it moved, as that 201 said: the day, the method and the amount. */
  moved?: { day: string; method: string; amount: number };
}

const RETRIABLE = new Set<number | string>([500, 503, 504, 409, 'network']);

/** What each bill gets, by how it was created. */
const PLAN: Record<'Paid' | 'Pending', Array<{ kind: MoneyOp['kind']; body: Record<string, unknown> }>> = {
  Pending: [
    { kind: 'payment', body: { amount: 400, method: 'Cash', received_amount: 500 } },
    { kind: 'payment', body: { amount: 450, method: 'Card', reference: 'slip' } },
  ],
  Paid: [
    { kind: 'refund', body: { amount: 100, method: 'Cash', reason: 'Test not done' } },
    { kind: 'refund', body: { amount: 50, method: 'Card', reason: 'Overcharged' } },
  ],
};

/** Takes each bill the load confirmed once, and pays or refunds it; stop() lets the operations under way end. */
export class MoneyLoad extends LoadLoops {
  readonly ops: MoneyOp[] = [];
  private readonly taken = new Set<LogicalBill>();

  constructor(
    private readonly load: BillLoad,
    private readonly options: { url: string; token: string; concurrency?: number; maxAttempts?: number },
  ) {
    super(options.concurrency ?? 2);
  }

  protected async loop(): Promise<void> {
    while (this.running) {
      const bill = this.load.bills.find((b) => b.created && !this.taken.has(b));
      if (!bill) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        continue;
      }
      this.taken.add(bill);
      for (const { kind, body } of PLAN[bill.body.payment_status as 'Paid' | 'Pending']) {
        const op: MoneyOp = { billId: bill.created!.bill_id, kind, key: randomUUID(), attempts: [] };
        this.ops.push(op);
        await this.carry(op, JSON.stringify(body));
      }
    }
  }

  private async carry(op: MoneyOp, body: string): Promise<void> {
    for (let i = 0; i < (this.options.maxAttempts ?? 60); i++) {
      const attempt = await this.attempt(op, body);
      op.attempts.push(attempt);
      if (attempt.status === 201) {
        const { id, day, method, amount } = attempt.body[op.kind];
        op.entryId = id;
        op.moved = { day, method, amount };
        return;
      }
      if (!RETRIABLE.has(attempt.status)) return;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }

  private async attempt(op: MoneyOp, body: string): Promise<Attempt> {
    const startedAt = this.load.now();
    const t0 = performance.now();
    try {
      const response = await fetch(`${this.options.url}/lab_bills/${op.billId}/${op.kind}s`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${this.options.token}`,
          'content-type': 'application/json',
          'idempotency-key': op.key,
        },
        body,
        signal: AbortSignal.timeout(15_000),
      });
      const json = await response.json().catch(() => undefined);
      return { status: response.status, ms: performance.now() - t0, startedAt, body: json };
    } catch (err) {
      const hang = (err as Error).name === 'TimeoutError';
      return { status: hang ? 'hang' : 'network', ms: performance.now() - t0, startedAt };
    }
  }
}

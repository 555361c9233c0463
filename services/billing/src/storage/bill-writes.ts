/**
 * Changes of an active bill: its update, its cancellation, and a payment or
 * refund through its own route, each through the one write path
 * (RecordWriter) with its event, its history entry and the events of the
 * money it moved. The bill's days must be open (day-closings.ts): its own
 * date when a change of it changes that day's figures, the day money moves on
 * when it moves any.
 */
import type { Collection } from 'mongodb';
import { EventSubjects, type BillHistoryAction, type Caller } from '@clinic/contracts';
import { RecordWriter, type AuditTrail, type EventSpec, type StorageDeps } from '@clinic/service-kit/storage';
import type { BillQueries } from './bill-queries';
import type { WrittenBill } from './live-bill-sums';
import { fenceOf, type DayClosings } from './day-closings';
import type { BillPayloads } from '../domain/payloads';
import { BILL_COUNTER, billHistoryEntries } from './documents';
import type { BillDoc } from '../domain/bill';
import type { LedgerEntryDoc } from '../domain/ledger-entry';
import { ledgerProof, moneyEvent } from './money-events';
import type { BillChange } from '../domain/bill';

/** Who asked for a change, for its history entry. */
export interface ChangeContext {
  correlationId: string;
  actor: Caller;
}

const SUBJECTS = { updated: EventSubjects.billUpdated, cancelled: EventSubjects.billCancelled } as const;

/** A change as a write decides it: what it sets and moves, and what its history entry says. */
type BillChangeOf = BillChange & { action: BillHistoryAction; reason?: string | null };

export class BillWrites {
  private readonly records: RecordWriter<BillDoc>;

  constructor(
    bills: Collection<BillDoc>,
    private readonly history: AuditTrail,
    private readonly deps: StorageDeps,
    queries: Pick<BillQueries, 'findLive'>,
    private readonly closings: DayClosings,
    written: (bills: WrittenBill[]) => Promise<void>,
    private readonly payloads: BillPayloads,
  ) {
    this.records = new RecordWriter({
      ...deps,
      find: (id) => queries.findLive(id),
      collection: bills,
      recordKind: 'bill',
      counter: BILL_COUNTER,
      // A cancelled bill is never changed again.
      stillWritable: { is_deleted: false, status: 'active' },
      notFound: 'BILL_NOT_FOUND',
      written: (doc, before) => written([{ doc, before }]),
    });
  }

  /** Changes an active bill (404 when there is none) as `plan` decides, once it has accepted it; the bill as written. */
  async update(
    id: number,
    context: ChangeContext,
    plan: (existing: BillDoc) => Promise<BillChange>,
  ): Promise<BillDoc | null> {
    return this.change(id, async (existing) => ({ ...(await plan(existing)), action: 'updated' }), context);
  }

  /** Cancels an active bill (404 when there is none), giving back what `plan` says, once it has accepted it. */
  async cancel(
    id: number,
    reason: string | null,
    context: ChangeContext,
    plan: (existing: BillDoc) => Promise<BillChange>,
  ): Promise<void> {
    await this.change(
      id,
      async (existing) => {
        const change = await plan(existing);
        return {
          ...change,
          set: { ...change.set, status: 'cancelled', is_deleted: true },
          action: 'cancelled',
          reason,
        };
      },
      context,
    );
  }

  /**
   * A payment or a refund through its own route: the entry is the change, its
   * event the change's event. `plan` answers it, or the entry an earlier
   * request with the same Idempotency-Key recorded (nothing is written then).
   */
  async record(
    id: number,
    context: ChangeContext,
    plan: (existing: BillDoc) => Promise<{ change: BillChange; entry: LedgerEntryDoc } | { replay: LedgerEntryDoc }>,
  ): Promise<{ doc: BillDoc; entry: LedgerEntryDoc; replayed: boolean }> {
    let outcome: { doc: BillDoc; entry: LedgerEntryDoc; replayed: boolean } | undefined;
    await this.change(
      id,
      async (existing) => {
        const planned = await plan(existing);
        if ('replay' in planned) {
          outcome = { doc: existing, entry: planned.replay, replayed: true };
          return null;
        }
        outcome = { doc: existing, entry: planned.entry, replayed: false };
        return { ...planned.change, action: planned.entry.kind === 'payment' ? 'payment' : 'refund' };
      },
      context,
      (after) => {
        if (outcome) outcome.doc = after;
      },
    );
    return outcome!;
  }

  private async change(
    id: number,
    decide: (existing: BillDoc) => Promise<BillChangeOf | null> | BillChangeOf | null,
    context: ChangeContext,
    landed: (after: BillDoc) => void = () => undefined,
  ): Promise<BillDoc | null> {
    const after = await this.records.change(id, async (existing) => {
      const change = await decide(existing);
      if (!change) return null;
      const days = [...(change.dated ? [existing.bill_date] : []), ...change.entries.map((e) => e.day)];
      const unique = [...new Set(days)];
      return {
        set: { ...change.set, updated_at: new Date() },
        event: (after) => ({
          ...this.eventOf(existing, after, change, context),
          fences: [...unique.map((d) => fenceOf(existing.store_id, d)), ...(change.cash?.fences ?? [])],
        }),
        guard: async () => {
          await this.closings.assertOpen(existing.store_id, unique);
          await change.cash?.guard();
        },
        proof: ledgerProof(existing._id, change.entries),
      };
    });
    if (!after || after === 'unchanged') return null;
    landed(after);
    return after;
  }

  /** The event of a change, with its history entry, and the events of the money it moved. */
  private eventOf(
    before: BillDoc,
    after: BillDoc,
    change: BillChange & { action: BillHistoryAction; reason?: string | null },
    context: ChangeContext,
  ): EventSpec {
    const { clock } = this.deps;
    const history = billHistoryEntries(this.payloads, this.history, clock, before, after, change.action, {
      ...context,
      reason: change.reason,
      entries: change.entries,
      details: change.details,
    });
    if (change.action === 'payment' || change.action === 'refund') {
      // change.entries holds the one entry the route recorded. A payment that changes payment_status is also an
      // update of the bill to those who follow bills through billing.bill.updated.
      const statusChanged = after.payment_status !== before.payment_status;
      return {
        ...moneyEvent(this.payloads, change.entries[0]!, after, clock, context.correlationId, history),
        alongside: statusChanged ? [this.billEvent('updated', after, context)] : [],
      };
    }
    return {
      ...this.billEvent(change.action as keyof typeof SUBJECTS, after, context),
      records: history,
      alongside: change.entries.map((entry) => moneyEvent(this.payloads, entry, after, clock, context.correlationId)),
    };
  }

  /** billing.bill.updated or .cancelled: the whole bill as it is after the change. */
  private billEvent(action: keyof typeof SUBJECTS, after: BillDoc, context: ChangeContext): EventSpec {
    return {
      subject: SUBJECTS[action],
      data: this.payloads.bill(after, this.deps.clock),
      correlationId: context.correlationId,
    };
  }
}

/**
 * Changes of an active bill: its update and its cancellation, each through
 * the one write path (RecordWriter) with its event and its history entry.
 */
import type { Collection } from 'mongodb';
import {
  BILLING_MESSAGES,
  EventSubjects,
  type BillHistoryAction,
  type Caller,
  type EventSubject,
} from '@clinic/contracts';
import { RecordWriter, type AuditTrail, type EventSpec, type StorageDeps } from '@clinic/service-kit';
import type { BillChanges } from '../rules';
import type { BillQueries } from './bill-queries';
import type { WrittenBill } from './day-totals';
import { BILL_COUNTER, billEventData, billHistoryEntries, type BillDoc } from './documents';

/** Who asked for a change, for its history entry. */
export interface ChangeContext {
  correlationId: string;
  actor: Caller;
}

export class BillWrites {
  private readonly records: RecordWriter<BillDoc>;

  constructor(
    bills: Collection<BillDoc>,
    private readonly history: AuditTrail,
    private readonly deps: StorageDeps,
    queries: Pick<BillQueries, 'findLive'>,
    written: (bills: WrittenBill[]) => Promise<void>,
  ) {
    this.records = new RecordWriter({
      ...deps,
      find: (id) => queries.findLive(id),
      collection: bills,
      recordKind: 'bill',
      counter: BILL_COUNTER,
      // A cancelled bill is never changed again.
      stillWritable: { is_deleted: false, status: 'active' },
      notFoundMessage: BILLING_MESSAGES.notFound,
      written: (doc, before) => written([{ doc, before }]),
    });
  }

  /** Changes an active bill (404 when there is none) once `check` has accepted it. */
  async update(id: number, context: ChangeContext, check: (existing: BillDoc) => BillChanges): Promise<void> {
    await this.records.change(id, (existing) => ({
      set: { ...check(existing), updated_at: new Date() },
      event: (after) => this.eventOf(existing, after, EventSubjects.billUpdated, { ...context, action: 'updated' }),
    }));
  }

  /** Cancels an active bill (404 when there is none) once `check` has accepted it. */
  async cancel(
    id: number,
    reason: string | null,
    context: ChangeContext,
    check: (existing: BillDoc) => void,
  ): Promise<void> {
    await this.records.change(id, (existing) => {
      check(existing);
      return {
        set: { status: 'cancelled', is_deleted: true, updated_at: new Date() } as const,
        event: (after) =>
          this.eventOf(existing, after, EventSubjects.billCancelled, { ...context, action: 'cancelled', reason }),
      };
    });
  }

  /** The event of a change of an existing bill, with its history entry. */
  private eventOf(
    before: BillDoc,
    after: BillDoc,
    subject: EventSubject,
    context: ChangeContext & { action: BillHistoryAction; reason?: string | null },
  ): EventSpec {
    return {
      subject,
      data: billEventData(after, this.deps.clock),
      correlationId: context.correlationId,
      records: billHistoryEntries(this.history, this.deps.clock, before, after, context.action, context),
    };
  }
}

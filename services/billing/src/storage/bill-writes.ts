/**
 * Writes of bills: creation under the next number of its date (group
 * committed), and the changes an active bill allows. Every write records its
 * event in the outbox first, and afterwards marks what cached reads it changed.
 */
import { MongoBulkWriteError, type Collection } from 'mongodb';
import { EventSubjects, type BillHistoryAction, type Caller, type EventSubject } from '@clinic/contracts';
import {
  conflict,
  type AuditTrail,
  docKey,
  entityProof,
  fieldChanges,
  isDuplicateKeyError,
  newEventId,
  notFound,
  withEventId,
  type ClinicClock,
  type IdAllocator,
  type Outbox,
  type VersionedCache,
} from '@clinic/service-kit';
import { formatBillNumber, MESSAGES, type BillChanges, type BillInput, type Totals } from '../rules';
import { storeScope } from './bill-queries';
import type { BillNumbers } from './bill-numbers';
import type { DayTotals } from './day-totals';
import { auditedFields, billEventData, BILLS, ITEM_ID_FACTOR, type BillDoc } from './documents';
import type { IdempotencyClaim, IdempotencyClaims } from './idempotency';
import { searchTextOf } from './search';

const COUNTER = 'lab_bills';
const MAX_ATTEMPTS = 25;
/** Bills of one date written together at most. */
const MAX_BATCH = 50;

export type CreateResult = { doc: BillDoc; replayed: boolean };

/** Who asked for a change, for its history entry. */
export interface ChangeContext {
  correlationId: string;
  actor: Caller;
}

interface PendingBill {
  input: BillInput;
  totals: Totals;
  correlationId: string;
  /** Null for imported bills, which have no history. */
  actor: Caller | null;
  idempotency: IdempotencyClaim | null;
  id: number;
  attempts: number;
  resolve(result: CreateResult): void;
  reject(err: unknown): void;
}

export class BillWrites {
  /** Bills waiting to be written, per bill date. */
  private readonly waiting = new Map<string, PendingBill[]>();
  private readonly draining = new Set<string>();

  constructor(
    private readonly bills: Collection<BillDoc>,
    private readonly numbers: BillNumbers,
    private readonly claims: IdempotencyClaims,
    private readonly dayTotals: DayTotals,
    private readonly ids: IdAllocator,
    private readonly outbox: Outbox,
    private readonly clock: ClinicClock,
    private readonly cache: VersionedCache,
    private readonly history: AuditTrail,
  ) {}

  /**
   * Stores a new bill under the next number of its date (rule 11) and returns
   * it, or the bill an earlier request with the same Idempotency-Key created.
   *
   * Bills of one date are written by one worker at a time, in batches (group
   * commit): whoever is waiting when a batch starts is numbered consecutively
   * and written with one insert for their outbox entries and one ordered
   * insert for the bills. An ordered insert lands a prefix, so even a batch
   * cut short leaves no gap; bills after a collision are numbered again.
   */
  create(input: BillInput, totals: Totals, options: ChangeContext & { idempotency: IdempotencyClaim | null }): Promise<CreateResult> {
    return this.ids.next(COUNTER).then(
      (id) =>
        new Promise<CreateResult>((resolve, reject) => {
          const queue = this.waiting.get(input.bill_date) ?? [];
          queue.push({ input, totals, ...options, id, attempts: 0, resolve, reject });
          this.waiting.set(input.bill_date, queue);
          void this.drain(input.bill_date);
        }),
    );
  }

  /**
   * Stores bills in bulk through the same numbering and bookkeeping as create,
   * in batches of one date, without events: for loading historical data (the
   * benchmark's data set), not for live bills.
   */
  async import(bills: Array<{ input: BillInput; totals: Totals }>, batchSize = 1000): Promise<BillDoc[]> {
    const ids = await this.ids.nextMany(COUNTER, bills.length);
    const byDate = new Map<string, PendingBill[]>();
    const stored: BillDoc[] = [];
    bills.forEach(({ input, totals }, i) => {
      const pending: PendingBill = {
        input, totals, correlationId: 'import', actor: null, idempotency: null, id: ids[i], attempts: 0,
        resolve: ({ doc }) => stored.push(doc),
        reject: (err) => {
          throw err;
        },
      };
      byDate.set(input.bill_date, [...(byDate.get(input.bill_date) ?? []), pending]);
    });
    for (const [date, pending] of byDate) {
      for (let i = 0; i < pending.length; i += batchSize) {
        await this.writeBatch(date, pending.slice(i, i + batchSize), false);
        // A collision queued bills to be numbered again: only live writes to the same date cause one.
        if ((this.waiting.get(date)?.length ?? 0) > 0) throw new Error(`Import collided with other writes of bills dated ${date}`);
      }
    }
    await this.numbers.flush();
    return stored;
  }

  async update(existing: BillDoc, changes: BillChanges, context: ChangeContext): Promise<void> {
    await this.changeActive(existing, { ...changes, updated_at: new Date() }, EventSubjects.billUpdated, { ...context, action: 'updated' });
  }

  async cancel(existing: BillDoc, reason: string | null, context: ChangeContext): Promise<void> {
    const changes = { status: 'cancelled', is_deleted: true, updated_at: new Date() } as const;
    await this.changeActive(existing, changes, EventSubjects.billCancelled, { ...context, action: 'cancelled', reason });
  }

  private async drain(billDate: string): Promise<void> {
    if (this.draining.has(billDate)) return;
    this.draining.add(billDate);
    try {
      for (let queue = this.waiting.get(billDate); queue && queue.length > 0; queue = this.waiting.get(billDate)) {
        const batch = queue.splice(0, MAX_BATCH);
        try {
          await this.writeBatch(billDate, batch);
        } catch (err) {
          for (const bill of batch) bill.reject(err);
        }
      }
    } finally {
      this.draining.delete(billDate);
      if (this.waiting.get(billDate)?.length === 0) this.waiting.delete(billDate);
    }
    // A bill may have arrived between the last batch and the end of this drain.
    if ((this.waiting.get(billDate)?.length ?? 0) > 0) void this.drain(billDate);
  }

  private async writeBatch(billDate: string, batch: PendingBill[], withEvents = true): Promise<void> {
    const first = await this.numbers.candidate(billDate);
    const docs = batch.map((bill, i) => this.buildDoc(bill.id, first + i, bill.input, bill.totals, bill.idempotency));
    await this.dayTotals.register(docs);
    const prepared = await this.outbox.prepare(
      (withEvents ? docs : []).map((doc, i) => ({
        subject: EventSubjects.billCreated,
        data: billEventData(doc, this.clock),
        correlationId: batch[i].correlationId,
        eventId: doc._event_ids[0],
        proof: entityProof(BILLS, doc._id, doc._event_ids[0]),
        records: this.historyOf(null, doc, 'created', batch[i]),
      })),
    );
    const eventIds = (from: number, to = docs.length) => docs.slice(from, to).map((d) => d._event_ids[0]);

    let inserted = docs.length;
    let failure: unknown = null;
    try {
      await this.bills.insertMany(docs, { ordered: true });
    } catch (err) {
      if (!(err instanceof MongoBulkWriteError) || !err.writeErrors) {
        // Lost connection or the like: which bills were stored is unknown, so the sweeper decides on the events.
        prepared.forget();
        for (const bill of batch) bill.reject(err);
        // Some may be stored: cached reads must not miss them (best effort, after the answers).
        void this.written(docs);
        return;
      }
      const [firstError] = Array.isArray(err.writeErrors) ? err.writeErrors : [err.writeErrors];
      inserted = firstError.index;
      failure = firstError;
    }

    if (inserted > 0) {
      this.numbers.used(billDate, first + inserted - 1);
      await prepared.settle(eventIds(0, inserted));
      await this.written(docs.slice(0, inserted));
      for (let i = 0; i < inserted; i++) batch[i].resolve({ doc: docs[i], replayed: false });
    }
    if (failure === null) return;

    // The failed bill and the ones after it were not stored.
    await prepared.discard(eventIds(inserted));
    const failed = batch[inserted];
    const retry: PendingBill[] = [];
    const failedSeq = first + inserted;
    const replay = failed.idempotency && isDuplicateKeyError(failure) ? await this.claims.billOf(failed.idempotency) : null;
    if (!isDuplicateKeyError(failure)) {
      this.numbers.retry(billDate, failedSeq);
      failed.reject(failure);
    } else if (replay) {
      this.numbers.retry(billDate, failedSeq);
      failed.resolve({ doc: replay, replayed: true });
    } else {
      if (await this.bills.findOne({ _id: docKey(failed.id) }, { projection: { _id: 1 } })) {
        // Its id was drawn twice (replicas racing on the counter): same number, new id.
        this.numbers.retry(billDate, failedSeq);
        await this.ids.skipPast(COUNTER, failed.id);
        failed.id = await this.ids.next(COUNTER);
      } else {
        await this.numbers.collided(billDate, failedSeq);
      }
      failed.attempts++;
      if (failed.attempts >= MAX_ATTEMPTS) failed.reject(conflict(MESSAGES.numberConflict));
      else retry.push(failed);
    }
    // First in line again, ahead of bills that arrived meanwhile.
    retry.push(...batch.slice(inserted + 1));
    if (retry.length > 0) this.waiting.set(billDate, [...retry, ...(this.waiting.get(billDate) ?? [])]);
  }

  /** What every read cached about these bills' branches and days is stale now. */
  private async written(docs: BillDoc[]): Promise<void> {
    await Promise.all([this.dayTotals.changed(docs), this.cache.bump(...docs.map((d) => storeScope(d.store_id)))]);
  }

  private buildDoc(id: number, seq: number, input: BillInput, totals: Totals, idempotency: IdempotencyClaim | null): BillDoc {
    const { items, received_cents, balance_cents, ...header } = input;
    const billNumber = formatBillNumber(input.bill_date, seq);
    return {
      _id: docKey(id),
      id,
      bill_number: billNumber,
      bill_seq: seq,
      ...header,
      discount_cents: totals.discount,
      subtotal_cents: totals.subtotal,
      grand_total_cents: totals.grand_total,
      received_cents: input.payment_method === 'Cash' ? received_cents : null,
      balance_cents: input.payment_method === 'Cash' ? balance_cents : null,
      status: 'active',
      is_deleted: false,
      // To the second, as the API shows it: bills created in the same second list by id, newest id first.
      created_at: new Date(Math.floor(Date.now() / 1000) * 1000),
      updated_at: null,
      items: items.map((item, index) => ({ id: id * ITEM_ID_FACTOR + index + 1, ...item, line_total_cents: totals.line_totals[index] })),
      search_text: searchTextOf({ ...header, bill_number: billNumber }),
      ...(idempotency ? { idempotency_key: idempotency.key, request_hash: idempotency.requestHash } : {}),
      _event_ids: [newEventId()],
    };
  }

  /** The history entry of a change, written through the outbox with its event. */
  private historyOf(
    before: BillDoc | null,
    after: BillDoc,
    action: BillHistoryAction,
    context: { correlationId: string; actor: Caller | null; reason?: string | null },
  ) {
    if (!context.actor) return [];
    const view = (doc: BillDoc) => auditedFields(doc, this.clock);
    return [
      this.history.record({
        entityId: after.id,
        action,
        actor: context.actor,
        correlationId: context.correlationId,
        changes: fieldChanges(before && view(before), view(after), Object.keys(view(after))),
        ...(action === 'cancelled' ? { reason: context.reason ?? null } : {}),
      }),
    ];
  }

  private async changeActive(
    existing: BillDoc,
    changes: Partial<BillDoc>,
    subject: EventSubject,
    context: ChangeContext & { action: BillHistoryAction; reason?: string | null },
  ): Promise<void> {
    const after: BillDoc = { ...existing, ...changes };
    const { correlationId } = context;
    await this.outbox.record(
      {
        subject,
        data: billEventData(after, this.clock),
        collection: BILLS,
        key: existing._id,
        correlationId,
        records: this.historyOf(existing, after, context.action, context),
      },
      async (eventId) => {
        const result = await this.bills.updateOne(
          { _id: existing._id, is_deleted: false, status: 'active' },
          { $set: { ...changes, _event_ids: withEventId(existing._event_ids, eventId) } },
        );
        if (result.matchedCount === 0) throw notFound(MESSAGES.notFound);
      },
    );
    await this.written([existing]);
  }
}

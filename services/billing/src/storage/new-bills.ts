/**
 * New bills: each stored under the next number of its date, written in
 * batches (group commit). Every batch records its events in the outbox first,
 * and afterwards marks what cached reads it changed.
 */
import type { Collection } from 'mongodb';
import { DAY_MESSAGES, EventSubjects } from '@clinic/contracts';
import { fail, itemAt } from '@clinic/service-kit';
import {
  entityProof,
  newEventId,
  withAlongside,
  type AuditTrail,
  type StorageDeps,
  type WriteOptions,
} from '@clinic/service-kit/storage';
import { isDuplicateKeyError, movePastIfTaken, writeErrorsOf } from './database-quirks';
import type { BillInput, Totals } from '../domain/rules';
import type { BillNumbers } from './bill-numbers';
import type { ChangeContext } from './bill-writes';
import { fenceOf, type DayClosings } from './day-closings';
import type { DayTotals } from './day-totals';
import type { WrittenBill } from './live-bill-sums';
import type { BillPayloads } from '../domain/payloads';
import { BILL_COUNTER, billHistoryEntries, BILLS } from './documents';
import type { BillDoc } from '../domain/bill';
import type { IdempotencyClaim } from '@clinic/service-kit';
import type { IdempotencyClaims } from './idempotency';
import { ledgerProof, moneyEvent } from './money-events';
import {
  daysOf,
  highestSeqs,
  newBillDoc,
  type CreateExtras,
  type CreateResult,
  type PendingBill,
} from './new-bill-docs';

const MAX_ATTEMPTS = 25;
/** Bills written together at most. */
const MAX_BATCH = 64;

export class NewBills {
  /** Bills waiting to be written, in arrival order (bills retried after a collision go first). */
  private waiting: PendingBill[] = [];
  private draining = false;

  constructor(
    private readonly bills: Collection<BillDoc>,
    private readonly numbers: BillNumbers,
    private readonly claims: IdempotencyClaims,
    private readonly dayTotals: DayTotals,
    private readonly history: AuditTrail,
    private readonly closings: DayClosings,
    private readonly deps: StorageDeps,
    /** Marks what cached reads of these bills' branches and days are stale. */
    private readonly written: (bills: WrittenBill[]) => Promise<void>,
    private readonly payloads: BillPayloads,
  ) {}

  /**
   * Stores a new bill under the next number of its date (rule 11) and returns
   * it, or the bill an earlier request with the same Idempotency-Key created.
   *
   * Bills are written by one worker, in batches (group commit): whoever is
   * waiting when a batch starts is numbered consecutively within its date, and
   * the batch is written with one insert for its outbox entries and one
   * ordered insert for the bills, whatever their dates. An ordered insert lands
   * a prefix, so even a batch cut short leaves no gap in any date; bills after
   * a collision are numbered again.
   */
  create(
    input: BillInput,
    totals: Totals,
    options: ChangeContext & CreateExtras & { idempotency: IdempotencyClaim | null; id?: number },
  ): Promise<CreateResult> {
    return (options.id === undefined ? this.newId() : Promise.resolve(options.id)).then(
      (id) =>
        new Promise<CreateResult>((resolve, reject) => {
          this.waiting.push({ input, totals, ...options, id, attempts: 0, resolve, reject });
          void this.drain();
        }),
    );
  }

  /** A bill's id known before it is stored (what an approval is used on, what a hold names). */
  newId(): Promise<number> {
    return this.deps.ids.next(BILL_COUNTER);
  }

  /**
   * Stores bills in bulk through the same numbering and bookkeeping as create,
   * without events: for loading historical data (the benchmark's data set),
   * not for live bills.
   */
  async import(bills: Array<{ input: BillInput; totals: Totals }>, batchSize = 1000): Promise<BillDoc[]> {
    const ids = await this.deps.ids.nextMany(BILL_COUNTER, bills.length);
    const stored: BillDoc[] = [];
    // nextMany answers one id per bill.
    const pending = bills.map(
      ({ input, totals }, i): PendingBill => ({
        input,
        totals,
        correlationId: 'import',
        actor: null,
        idempotency: null,
        entries: [],
        id: itemAt(ids, i),
        attempts: 0,
        resolve: ({ doc }) => stored.push(doc),
        reject: (err) => {
          throw err;
        },
      }),
    );
    // Other processes may have numbered these dates since this one last did (the service's live writes).
    this.numbers.forget();
    for (let i = 0; i < pending.length; i += batchSize) {
      let batch = pending.slice(i, i + batchSize);
      // A collision (a number taken meanwhile) gives back the bills to number again.
      while (batch.length > 0) batch = await this.writeBatch(batch, false);
    }
    await this.numbers.flush();
    return stored;
  }

  private async drain(): Promise<void> {
    if (this.draining) return;
    this.draining = true;
    try {
      while (this.waiting.length > 0) {
        const batch = this.waiting.splice(0, MAX_BATCH);
        try {
          const again = await this.writeBatch(batch);
          // First in line again, ahead of bills that arrived meanwhile.
          this.waiting = [...again, ...this.waiting];
        } catch (err) {
          for (const bill of batch) bill.reject(err);
        }
      }
    } finally {
      this.draining = false;
    }
    // A bill may have arrived between the last batch and the end of this drain.
    if (this.waiting.length > 0) void this.drain();
  }

  /** Writes a batch; answers the bills to number and write again (after a collision), in order. */
  private async writeBatch(batch: PendingBill[], withEvents = true): Promise<PendingBill[]> {
    // Each bill with its number, its document and the ids of its events (its creation's first), in the batch's order.
    const numbered = (await this.numberBatch(batch)).map(({ bill, seq }) => {
      const eventId = newEventId();
      const doc = newBillDoc(bill, seq, eventId);
      const events = withAlongside(
        {
          subject: EventSubjects.billCreated,
          data: this.payloads.bill(doc, this.deps.clock),
          correlationId: bill.correlationId,
          eventId,
          records: billHistoryEntries(this.payloads, this.history, this.deps.clock, null, doc, 'created', bill),
          alongside: bill.entries.map((entry) =>
            moneyEvent(this.payloads, entry, doc, this.deps.clock, bill.correlationId),
          ),
          fences: [...daysOf(bill).map((day) => fenceOf(bill.input.store_id, day)), ...(bill.cash?.fences ?? [])],
        },
        ledgerProof(doc._id, bill.entries) ?? entityProof(BILLS, doc._id, eventId),
      );
      return { bill, seq, doc, events };
    });
    const docs = numbered.map(({ doc }) => doc);
    await this.dayTotals.register(docs);
    const prepared = await this.deps.outbox.prepare(withEvents ? numbered.flatMap(({ events }) => events) : []);
    const eventIds = (from: number, to = numbered.length) =>
      numbered.slice(from, to).flatMap(({ events }) => events.map((e) => e.eventId));
    let options: WriteOptions = {};
    if (withEvents) {
      // After the entries (and their fences) are stored: a day closed by now, or a shift that no longer takes
      // money, refuses its bills. Should the check fail, or come too late to write, the entries go at once.
      const refused = await prepared.beforeWrite(() => this.refusedIn(batch));
      if (refused.size > 0) {
        for (const { doc } of [...numbered].reverse()) this.numbers.retry(doc.bill_date, doc.bill_seq);
        await prepared.discard();
        for (const bill of batch) {
          const refusal = refused.get(bill);
          if (refusal) bill.reject(refusal);
        }
        return batch.filter((bill) => !refused.has(bill));
      }
      options = await prepared.beforeWrite(async () => prepared.writeOptions());
    }

    let inserted = docs.length;
    let failure: unknown = null;
    try {
      await this.bills.insertMany(docs, { ordered: true, ...options });
    } catch (err) {
      const firstError = writeErrorsOf(err)?.[0];
      if (!firstError) {
        // Lost connection or the like: which bills were stored is unknown, so the sweeper decides on the events.
        prepared.forget();
        for (const bill of batch) bill.reject(err);
        // Some may be stored: cached reads must not miss them (best effort, after the answers; none of these
        // writes was acknowledged, so marks that fail leave no acknowledged write unseen).
        this.written(docs.map((doc) => ({ doc }))).catch(() => undefined);
        return [];
      }
      inserted = firstError.index;
      failure = firstError;
    }

    if (inserted > 0) {
      for (const [billDate, lastSeq] of highestSeqs(docs.slice(0, inserted))) this.numbers.used(billDate, lastSeq);
      // Neither fails (what they cannot store now is logged, or left to the relay): together, one round trip.
      await Promise.all([
        prepared.settle(eventIds(0, inserted)),
        this.written(docs.slice(0, inserted).map((doc) => ({ doc }))),
      ]);
      for (const { bill, doc } of numbered.slice(0, inserted)) bill.resolve({ doc, replayed: false });
    }
    if (failure === null) return [];

    // The failed bill and the ones after it were not stored: their numbers are free again (from the
    // highest down, so that each date resumes at its lowest one), before anything is awaited: a lookup
    // below that fails rejects the batch, and must not leave a number given back above one that is not.
    for (const { doc } of numbered.slice(inserted).reverse()) this.numbers.retry(doc.bill_date, doc.bill_seq);
    await prepared.discard(eventIds(inserted));
    // The driver reports the index of the failed bill: within the batch.
    const { bill: failed, seq: failedSeq } = itemAt(numbered, inserted);
    const retry: PendingBill[] = [];
    const replay =
      failed.idempotency && isDuplicateKeyError(failure) ? await this.claims.billOf(failed.idempotency) : null;
    if (!isDuplicateKeyError(failure)) {
      failed.reject(failure);
    } else if (replay) {
      failed.resolve({ doc: replay, replayed: true });
    } else {
      if (await movePastIfTaken(this.deps.ids, BILL_COUNTER, this.bills, failed.id)) {
        // Its id was drawn twice (replicas racing on the counter): same number, new id.
        failed.id = await this.deps.ids.next(BILL_COUNTER);
      } else {
        // Its number is taken (by another replica): move past it.
        await this.numbers.collided(failed.input.bill_date, failedSeq);
      }
      failed.attempts++;
      if (failed.attempts >= MAX_ATTEMPTS) failed.reject(fail('BILL_NUMBER_CONFLICT'));
      else retry.push(failed);
    }
    retry.push(...batch.slice(inserted + 1));
    return retry;
  }

  /** The numbers to try for a batch: consecutive within each date, from the date's next candidate. */
  private async numberBatch(batch: PendingBill[]): Promise<Array<{ bill: PendingBill; seq: number }>> {
    const next = new Map<string, number>();
    for (const billDate of new Set(batch.map((bill) => bill.input.bill_date)))
      next.set(billDate, await this.numbers.candidate(billDate));
    return batch.map((bill) => {
      const seq = next.get(bill.input.bill_date)!;
      next.set(bill.input.bill_date, seq + 1);
      return { bill, seq };
    });
  }

  /**
   * The bills of a batch refused now: those whose days are closed (or being
   * closed), with the first such day of each, and those whose shift no longer takes money.
   */
  private async refusedIn(batch: PendingBill[]): Promise<Map<PendingBill, unknown>> {
    const closed = await this.closings.closedAmong(
      batch.flatMap((bill) => daysOf(bill).map((date) => ({ store_id: bill.input.store_id, date }))),
    );
    const refused = new Map<PendingBill, unknown>();
    for (const bill of batch) {
      const day = daysOf(bill).find((d) => closed.some((c) => c.store_id === bill.input.store_id && c.date === d));
      if (day) refused.set(bill, fail('DAY_CLOSED', DAY_MESSAGES.closed(day, bill.input.store_id)));
    }
    await Promise.all(
      batch
        .filter((bill) => bill.cash && !refused.has(bill))
        .map((bill) => bill.cash!.guard().catch((err: unknown) => refused.set(bill, err))),
    );
    return refused;
  }
}

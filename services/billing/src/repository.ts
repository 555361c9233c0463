import { MongoBulkWriteError, type Collection, type Db, type Filter } from 'mongodb';
import {
  EventSubjects,
  Limits,
  type BillStatus,
  type DiscountType,
  type EventSubject,
  type PaymentMethod,
  type PaymentStatus,
} from '@clinic/contracts';
import {
  conflict,
  ensureIndexes,
  docKey,
  entityProof,
  escapeRegExp,
  fromCents,
  isDuplicateKeyError,
  newEventId,
  notFound,
  nullableAmount,
  withEventId,
  type Cents,
  type ClinicClock,
  type IdAllocator,
  type Outbox,
  type VersionedCache,
} from '@clinic/service-kit';
import { BillNumbers } from './bill-numbers';
import { formatBillNumber, MESSAGES, type BillChanges, type BillFilter, type BillInput, type DateRange, type Page, type Totals } from './rules';

export interface ItemDoc {
  id: number;
  charge_id: number;
  charge_name: string;
  unit_price_cents: Cents;
  qty: number;
  line_total_cents: Cents;
}

/** A bill and its items are one document, so they are written atomically. */
export interface BillDoc {
  _id: string;
  id: number;
  bill_number: string;
  bill_seq: number;
  bill_date: string;
  store_id: number;
  patient_id: number | null;
  patient_name: string;
  patient_contact: string;
  patient_nic: string | null;
  patient_age: number | null;
  billed_by: number | null;
  payment_method: PaymentMethod;
  payment_status: PaymentStatus;
  discount_type: DiscountType;
  discount_value: number;
  discount_cents: Cents;
  subtotal_cents: Cents;
  grand_total_cents: Cents;
  received_cents: Cents | null;
  balance_cents: Cents | null;
  notes: string | null;
  status: BillStatus;
  is_deleted: boolean;
  created_at: Date;
  updated_at: Date | null;
  items: ItemDoc[];
  /** Caller-scoped Idempotency-Key, absent when the client sent none. */
  idempotency_key?: string;
  request_hash?: string;
  _event_ids: string[];
}

export interface IdempotencyClaim {
  /** The key, scoped to the caller who sent it. */
  key: string;
  requestHash: string;
}

interface ClaimDoc {
  _id: string;
  bill_id: number;
  request_hash: string;
  created_at: Date;
}

export interface Summary {
  total_bills: number;
  paid_count: number;
  pending_count: number;
  cash_count: number;
  card_count: number;
  online_count: number;
  total_revenue: number;
  total_discounts: number;
  total_subtotal: number;
  cash_revenue: number;
  card_revenue: number;
  online_revenue: number;
}

const COLLECTION = 'bills';
const COUNTER = 'lab_bills';
const MAX_ATTEMPTS = 25;
/** Bills of one date written together at most. */
const MAX_BATCH = 50;

type CreateResult = { doc: BillDoc; replayed: boolean };

interface PendingBill {
  input: BillInput;
  totals: Totals;
  correlationId: string;
  idempotency: IdempotencyClaim | null;
  id: number;
  attempts: number;
  resolve(result: CreateResult): void;
  reject(err: unknown): void;
}
/** Item ids derive from the bill id: unique because bill ids are, ordered as entered. */
const ITEM_ID_FACTOR = 1000;
if (Limits.billItemsMax >= ITEM_ID_FACTOR) throw new Error('billItemsMax must stay below ITEM_ID_FACTOR');

/** The cache scope of one branch's bills. */
const storeScope = (storeId: number) => `bills:store:${storeId}`;

const LIST_PROJECTION = { items: 0, _event_ids: 0, idempotency_key: 0, request_hash: 0 } as const;

function dateQuery(range: DateRange): Filter<BillDoc> {
  if (range.date) return { bill_date: range.date };
  const bounds: Record<string, string> = {};
  if (range.from_date) bounds.$gte = range.from_date;
  if (range.to_date) bounds.$lte = range.to_date;
  return Object.keys(bounds).length > 0 ? { bill_date: bounds } : {};
}

export class BillRepository {
  private readonly bills: Collection<BillDoc>;
  private readonly claims: Collection<ClaimDoc>;
  private readonly numbers: BillNumbers;
  /** Bills waiting to be written, per bill date. */
  private readonly waiting = new Map<string, PendingBill[]>();
  private readonly draining = new Set<string>();

  constructor(
    db: Db,
    private readonly ids: IdAllocator,
    private readonly outbox: Outbox,
    private readonly clock: ClinicClock,
    private readonly cache: VersionedCache,
  ) {
    this.bills = db.collection<BillDoc>(COLLECTION);
    this.claims = db.collection<ClaimDoc>('idempotency_keys');
    this.numbers = new BillNumbers(db.collection('bill_number_hints'), (date) => this.highestSeq(date));
  }

  async ensureIndexes(): Promise<void> {
    await ensureIndexes(this.bills, [
      { key: { bill_number: 1 }, name: 'bill_number_unique', unique: true },
      { key: { idempotency_key: 1 }, name: 'idempotency_key_unique', unique: true, sparse: true },
      { key: { bill_date: 1, bill_seq: -1 }, name: 'bills_by_date_seq' },
      { key: { store_id: 1, is_deleted: 1, created_at: -1, id: -1 }, name: 'bills_by_store_recent' },
      { key: { store_id: 1, bill_date: 1 }, name: 'bills_by_store_date' },
    ]);
  }

  /** The bill as the API shows it (billed_by_name is resolved by the reads). */
  view(doc: BillDoc, billedByName: string | null = null): Record<string, unknown> {
    return {
      id: doc.id,
      bill_number: doc.bill_number,
      store_id: doc.store_id,
      patient_id: doc.patient_id,
      patient_name: doc.patient_name,
      patient_contact: doc.patient_contact,
      patient_nic: doc.patient_nic,
      patient_age: doc.patient_age,
      bill_date: doc.bill_date,
      billed_by: doc.billed_by,
      billed_by_name: billedByName,
      payment_method: doc.payment_method,
      payment_status: doc.payment_status,
      discount_type: doc.discount_type,
      discount_value: doc.discount_value,
      discount_amount: fromCents(doc.discount_cents),
      subtotal: fromCents(doc.subtotal_cents),
      grand_total: fromCents(doc.grand_total_cents),
      received_amount: nullableAmount(doc.received_cents),
      balance_amount: nullableAmount(doc.balance_cents),
      notes: doc.notes,
      status: doc.status,
      is_deleted: doc.is_deleted,
      created_at: this.clock.timestamp(doc.created_at),
      updated_at: this.clock.timestamp(doc.updated_at),
    };
  }

  itemsView(doc: BillDoc): Record<string, unknown>[] {
    return [...doc.items]
      .sort((a, b) => a.id - b.id)
      .map((item) => ({
        id: item.id,
        bill_id: doc.id,
        charge_id: item.charge_id,
        charge_name: item.charge_name,
        unit_price: fromCents(item.unit_price_cents),
        qty: item.qty,
        line_total: fromCents(item.line_total_cents),
      }));
  }

  /** What events carry: the whole bill with its items and totals. */
  private eventData(doc: BillDoc): Record<string, unknown> {
    const { billed_by_name: _omitted, ...bill } = this.view(doc);
    return { bill: { ...bill, items: this.itemsView(doc) } };
  }

  async findLive(id: number): Promise<BillDoc | null> {
    return this.bills.findOne({ _id: docKey(id), is_deleted: false });
  }

  async findClaim(key: string): Promise<ClaimDoc | null> {
    return this.claims.findOne({ _id: key });
  }

  async findById(id: number): Promise<BillDoc | null> {
    return this.bills.findOne({ _id: docKey(id) });
  }

  /** Remembers which bill a key created, for fast replays (the bill's unique key is the authority). */
  async saveClaim(claim: IdempotencyClaim, bill: BillDoc): Promise<void> {
    await this.claims
      .insertOne({ _id: claim.key, bill_id: bill.id, request_hash: claim.requestHash, created_at: new Date() })
      .catch(() => undefined);
  }

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
  create(input: BillInput, totals: Totals, options: { correlationId: string; idempotency: IdempotencyClaim | null }): Promise<CreateResult> {
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

  private async writeBatch(billDate: string, batch: PendingBill[]): Promise<void> {
    const first = await this.numbers.candidate(billDate);
    const docs = batch.map((bill, i) => this.buildDoc(bill.id, first + i, bill.input, bill.totals, bill.idempotency));
    const prepared = await this.outbox.prepare(
      docs.map((doc, i) => ({
        subject: EventSubjects.billCreated,
        data: this.eventData(doc),
        correlationId: batch[i].correlationId,
        eventId: doc._event_ids[0],
        proof: entityProof(COLLECTION, doc._id, doc._event_ids[0]),
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
        // Some may be stored: the branches' cached reads must not miss them (best effort, after the answers).
        void this.cache.bump(...docs.map((d) => storeScope(d.store_id)));
        return;
      }
      const [firstError] = Array.isArray(err.writeErrors) ? err.writeErrors : [err.writeErrors];
      inserted = firstError.index;
      failure = firstError;
    }

    if (inserted > 0) {
      this.numbers.used(billDate, first + inserted - 1);
      prepared.release(eventIds(0, inserted));
      await this.cache.bump(...docs.slice(0, inserted).map((d) => storeScope(d.store_id)));
      for (let i = 0; i < inserted; i++) batch[i].resolve({ doc: docs[i], replayed: false });
    }
    if (failure === null) return;

    // The failed bill and the ones after it were not stored.
    await prepared.discard(eventIds(inserted));
    const failed = batch[inserted];
    const retry: PendingBill[] = [];
    const failedSeq = first + inserted;
    if (!isDuplicateKeyError(failure)) {
      this.numbers.retry(billDate, failedSeq);
      failed.reject(failure);
    } else if (failed.idempotency && (await this.replayOf(failed.idempotency))) {
      this.numbers.retry(billDate, failedSeq);
      failed.resolve({ doc: (await this.replayOf(failed.idempotency)) as BillDoc, replayed: true });
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

  private replayOf(idempotency: IdempotencyClaim): Promise<BillDoc | null> {
    return this.bills.findOne({ idempotency_key: idempotency.key });
  }

  private buildDoc(id: number, seq: number, input: BillInput, totals: Totals, idempotency: IdempotencyClaim | null): BillDoc {
    const { items, received_cents, balance_cents, ...header } = input;
    return {
      _id: docKey(id),
      id,
      bill_number: formatBillNumber(input.bill_date, seq),
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
      ...(idempotency ? { idempotency_key: idempotency.key, request_hash: idempotency.requestHash } : {}),
      _event_ids: [newEventId()],
    };
  }

  private async highestSeq(billDate: string): Promise<number> {
    const [top] = await this.bills.find({ bill_date: billDate }, { projection: { bill_seq: 1 } }).sort({ bill_seq: -1 }).limit(1).toArray();
    return top?.bill_seq ?? 0;
  }

  async list(filter: BillFilter, page: Page): Promise<{ docs: BillDoc[]; total: number }> {
    const query: Filter<BillDoc> = { store_id: filter.store_id, is_deleted: false, ...dateQuery(filter) };
    if (filter.payment_method) query.payment_method = filter.payment_method;
    if (filter.payment_status) query.payment_status = filter.payment_status;
    if (filter.status) query.status = filter.status;
    if (filter.search) {
      const literal = { $regex: escapeRegExp(filter.search), $options: 'i' };
      query.$or = [{ patient_name: literal }, { patient_contact: literal }, { bill_number: literal }, { patient_nic: literal }];
    }
    const [total, docs] = await Promise.all([
      this.bills.countDocuments(query),
      this.bills
        .find(query, { projection: LIST_PROJECTION })
        .sort({ created_at: -1, id: -1 })
        .skip((page.page - 1) * page.per_page)
        .limit(page.per_page)
        .toArray(),
    ]);
    return { docs, total };
  }

  /** Counts and sums over active bills, in integer cents so the sums are exact. */
  summary(range: { store_id: number } & DateRange): Promise<Summary> {
    return this.cache.get(storeScope(range.store_id), JSON.stringify(range), () => this.computeSummary(range));
  }

  private async computeSummary(range: { store_id: number } & DateRange): Promise<Summary> {
    const docs = await this.bills
      .find(
        { store_id: range.store_id, status: 'active', is_deleted: false, ...dateQuery(range) },
        { projection: { payment_status: 1, payment_method: 1, grand_total_cents: 1, discount_cents: 1, subtotal_cents: 1 } },
      )
      .toArray();
    const count = (predicate: (d: BillDoc) => boolean) => docs.filter(predicate).length;
    const sum = (pick: (d: BillDoc) => number, predicate: (d: BillDoc) => boolean = () => true) =>
      fromCents(docs.filter(predicate).reduce((total, d) => total + pick(d), 0));
    const method = (m: PaymentMethod) => (d: BillDoc) => d.payment_method === m;
    return {
      total_bills: docs.length,
      paid_count: count((d) => d.payment_status === 'Paid'),
      pending_count: count((d) => d.payment_status === 'Pending'),
      cash_count: count(method('Cash')),
      card_count: count(method('Card')),
      online_count: count(method('Online')),
      total_revenue: sum((d) => d.grand_total_cents),
      total_discounts: sum((d) => d.discount_cents),
      total_subtotal: sum((d) => d.subtotal_cents),
      cash_revenue: sum((d) => d.grand_total_cents, method('Cash')),
      card_revenue: sum((d) => d.grand_total_cents, method('Card')),
      online_revenue: sum((d) => d.grand_total_cents, method('Online')),
    };
  }

  async update(existing: BillDoc, changes: BillChanges, correlationId: string): Promise<void> {
    await this.changeActive(existing, { ...changes, updated_at: new Date() }, EventSubjects.billUpdated, correlationId);
  }

  async cancel(existing: BillDoc, correlationId: string): Promise<void> {
    await this.changeActive(existing, { status: 'cancelled', is_deleted: true, updated_at: new Date() }, EventSubjects.billCancelled, correlationId);
  }

  private async changeActive(existing: BillDoc, changes: Partial<BillDoc>, subject: EventSubject, correlationId: string): Promise<void> {
    const after: BillDoc = { ...existing, ...changes };
    await this.outbox.record(
      { subject, data: this.eventData(after), collection: COLLECTION, key: existing._id, correlationId },
      async (eventId) => {
        const result = await this.bills.updateOne(
          { _id: existing._id, is_deleted: false, status: 'active' },
          { $set: { ...changes, _event_ids: withEventId(existing._event_ids, eventId) } },
        );
        if (result.matchedCount === 0) throw notFound(MESSAGES.notFound);
      },
    );
    await this.cache.bump(storeScope(existing.store_id));
  }
}

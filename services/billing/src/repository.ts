import type { Collection, Db, Filter } from 'mongodb';
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
  escapeRegExp,
  fromCents,
  isDuplicateKeyError,
  notFound,
  nullableAmount,
  withEventId,
  type Cents,
  type ClinicClock,
  type IdAllocator,
  type Outbox,
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
/** Item ids derive from the bill id: unique because bill ids are, ordered as entered. */
const ITEM_ID_FACTOR = 1000;
if (Limits.billItemsMax >= ITEM_ID_FACTOR) throw new Error('billItemsMax must stay below ITEM_ID_FACTOR');

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
  readonly numbers: BillNumbers;

  constructor(
    db: Db,
    private readonly ids: IdAllocator,
    private readonly outbox: Outbox,
    private readonly clock: ClinicClock,
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
   */
  async create(
    input: BillInput,
    totals: Totals,
    options: { correlationId: string; idempotency: IdempotencyClaim | null },
  ): Promise<{ doc: BillDoc; replayed: boolean }> {
    let billId = await this.ids.next(COUNTER);
    return this.numbers.exclusive(input.bill_date, async (numbers) => {
      let seq = await numbers.first();
      for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
        const doc = this.buildDoc(billId, seq, input, totals, options.idempotency);
        try {
          await this.outbox.record(
            { subject: EventSubjects.billCreated, data: this.eventData(doc), collection: COLLECTION, key: doc._id, correlationId: options.correlationId },
            (eventId) => this.bills.insertOne({ ...doc, _event_ids: [eventId] }),
          );
          numbers.succeeded(seq);
          void this.numbers.publishHint(input.bill_date, seq);
          return { doc, replayed: false };
        } catch (err) {
          if (!isDuplicateKeyError(err)) throw err;
          if (options.idempotency) {
            const earlier = await this.bills.findOne({ idempotency_key: options.idempotency.key });
            if (earlier) return { doc: earlier, replayed: true };
          }
          if (await this.bills.findOne({ _id: docKey(billId) }, { projection: { _id: 1 } })) {
            await this.ids.skipPast(COUNTER, billId);
            billId = await this.ids.next(COUNTER);
            continue;
          }
          seq = await numbers.collidedAt(seq);
        }
      }
      throw conflict(MESSAGES.numberConflict);
    });
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
      created_at: new Date(),
      updated_at: null,
      items: items.map((item, index) => ({ id: id * ITEM_ID_FACTOR + index + 1, ...item, line_total_cents: totals.line_totals[index] })),
      ...(idempotency ? { idempotency_key: idempotency.key, request_hash: idempotency.requestHash } : {}),
      _event_ids: [],
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
  async summary(range: { store_id: number } & DateRange): Promise<Summary> {
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
  }
}

/**
 * Counts and sums of live bills per branch and bill date, for the summary and
 * for the list's `total`, so that neither reads more than the days a write has
 * changed since.
 *
 * Each (branch, date) that has bills has a document in `bill_days` with a
 * version token. Writers register a day before they store its first bill, and
 * give it a new token once a write has happened (create, update, cancel). A
 * reader lists the days of its range with their tokens, and recomputes (with
 * one grouped query the server answers from an index) only the days whose
 * token differs from the one its copy was computed under. A token is read
 * before its day is computed, so a write that lands meanwhile leaves a token
 * the next read does not know: no read keeps a stale day.
 */
import { randomUUID } from 'node:crypto';
import { MongoBulkWriteError, type Collection, type Db, type UpdateFilter } from 'mongodb';
import type { PaymentMethod, PaymentStatus } from '@clinic/contracts';
import { ensureIndexes, isDuplicateKeyError, type Cents, type Logger } from '@clinic/service-kit';
import type { DateRange } from '../filters';
import type { BillDoc } from './documents';
import { BILL_INDEXES, dateCondition } from './indexes';

export interface DayKey {
  store_id: number;
  bill_date: string;
}

interface DayDoc extends DayKey {
  _id: string;
  token: string;
}

/** The live bills of some days with one payment method and status. */
export interface BillGroup {
  payment_method: PaymentMethod;
  payment_status: PaymentStatus;
  count: number;
  grand_total: Cents;
  discount: Cents;
  subtotal: Cents;
}

interface CachedDay {
  token: string;
  groups: BillGroup[];
}

const dayId = (day: DayKey) => `${day.store_id}:${day.bill_date}`;
/** Days computed in one grouped query at most. */
const DAYS_PER_QUERY = 400;
/** Days kept in memory at most (ten branches with ten years of bills). */
const CACHED_DAYS_MAX = 40_000;

export class DayTotals {
  private readonly days: Collection<DayDoc>;
  /** Days this process knows exist (a day is never removed). */
  private readonly registered = new Set<string>();
  private readonly cached = new Map<string, CachedDay>();

  constructor(
    db: Db,
    private readonly bills: Collection<BillDoc>,
    private readonly log: Logger,
  ) {
    this.days = db.collection<DayDoc>('bill_days');
  }

  async ensureIndexes(): Promise<void> {
    await ensureIndexes(this.days, [{ key: { store_id: 1, bill_date: 1 }, name: 'bill_days_by_store' }]);
  }

  /** Before bills of these days are stored: from now on reads include the days (one write for all). */
  async register(days: DayKey[]): Promise<void> {
    const fresh = uniqueDays(days).filter((day) => !this.registered.has(dayId(day)));
    if (fresh.length === 0) return;
    const failures = await this.upsertEach(
      fresh.map((day) => ({ _id: dayId(day), update: { $setOnInsert: { ...day, token: randomUUID() } } })),
    );
    // A duplicate is a day another writer registered meanwhile.
    const failed = failures.find((err) => !isDuplicateKeyError(err));
    if (failed) throw failed;
    for (const day of fresh) this.registered.add(dayId(day));
  }

  /**
   * After a write to bills of these days: a new version token for each day (one write for all), so that every
   * replica recomputes its totals. A failure is logged: the day's totals may lag until its next write.
   */
  async bumpVersions(days: DayKey[]): Promise<void> {
    const touched = uniqueDays(days);
    for (const day of touched) this.cached.delete(dayId(day));
    if (touched.length === 0) return;
    try {
      const failures = await this.upsertEach(
        touched.map((day) => ({ _id: dayId(day), update: { $set: { ...day, token: randomUUID() } } })),
      );
      for (const err of failures) this.log.error({ err }, 'bill day not marked changed; its totals may lag');
    } catch (err) {
      this.log.error({ err, days: touched.length }, 'bill days not marked changed; their totals may lag');
      return;
    }
    for (const day of touched) this.registered.add(dayId(day));
  }

  /** One upsert per day document, sent as one command; answers the errors of the ones refused. */
  private async upsertEach(updates: Array<{ _id: string; update: UpdateFilter<DayDoc> }>): Promise<unknown[]> {
    try {
      await this.days.bulkWrite(
        updates.map(({ _id, update }) => ({ updateOne: { filter: { _id }, update, upsert: true } })),
        { ordered: false },
      );
      return [];
    } catch (err) {
      if (!(err instanceof MongoBulkWriteError) || !err.writeErrors) throw err;
      return Array.isArray(err.writeErrors) ? err.writeErrors : [err.writeErrors];
    }
  }

  /** The groups of live bills of a branch within a date range, summed over its days. */
  async groups(storeId: number, range: DateRange): Promise<BillGroup[]> {
    const days = await this.days
      .find({ store_id: storeId, ...dateCondition(range) }, { projection: { bill_date: 1, token: 1 } })
      .hint(BILL_INDEXES.days)
      .toArray();
    const stale = days.filter((day) => this.cached.get(day._id)?.token !== day.token);
    for (let i = 0; i < stale.length; i += DAYS_PER_QUERY)
      await this.compute(storeId, stale.slice(i, i + DAYS_PER_QUERY));
    const sums = new Map<string, BillGroup>();
    for (const day of days) {
      for (const group of this.cached.get(day._id)?.groups ?? []) {
        const key = `${group.payment_method}|${group.payment_status}`;
        const sum = sums.get(key) ?? { ...group, count: 0, grand_total: 0, discount: 0, subtotal: 0 };
        sum.count += group.count;
        sum.grand_total += group.grand_total;
        sum.discount += group.discount;
        sum.subtotal += group.subtotal;
        sums.set(key, sum);
      }
    }
    return [...sums.values()];
  }

  private async compute(storeId: number, days: DayDoc[]): Promise<void> {
    const rows = await sumLiveBills(this.bills, storeId, { $in: days.map((d) => d.bill_date) }, { d: '$bill_date' });
    const byDate = new Map<string, BillGroup[]>(days.map((d) => [d.bill_date, []]));
    for (const { key, group } of rows) byDate.get(key.d as string)?.push(group);
    for (const day of days) {
      this.cached.delete(day._id);
      this.cached.set(day._id, { token: day.token, groups: byDate.get(day.bill_date) ?? [] });
    }
    while (this.cached.size > CACHED_DAYS_MAX) this.cached.delete(this.cached.keys().next().value as string);
  }
}

/**
 * Counts and sums of a branch's live bills of some dates, grouped by the
 * fields `by` names and by payment method and status: one grouped query,
 * which the by-day index serves.
 */
export async function sumLiveBills(
  bills: Collection<BillDoc>,
  storeId: number,
  billDates: string | { $in: string[] },
  by: Record<string, string>,
): Promise<Array<{ key: Record<string, unknown>; group: BillGroup }>> {
  const rows = await bills
    .aggregate<{
      _id: Record<string, unknown> & { m: PaymentMethod; s: PaymentStatus };
      n: number;
      g: number;
      x: number;
      t: number;
    }>(
      [
        { $match: { store_id: storeId, is_deleted: false, bill_date: billDates } },
        {
          $group: {
            _id: { ...by, m: '$payment_method', s: '$payment_status' },
            n: { $sum: 1 },
            g: { $sum: '$grand_total_cents' },
            x: { $sum: '$discount_cents' },
            t: { $sum: '$subtotal_cents' },
          },
        },
      ],
      { hint: BILL_INDEXES.byDay },
    )
    .toArray();
  return rows.map((row) => ({
    key: row._id,
    group: {
      payment_method: row._id.m,
      payment_status: row._id.s,
      count: row.n,
      grand_total: row.g,
      discount: row.x,
      subtotal: row.t,
    },
  }));
}

/** What a day's totals count and sum of a bill; a change of anything else leaves them as they are. */
const TOTALS_FIELDS = [
  'store_id',
  'bill_date',
  'is_deleted',
  'payment_method',
  'payment_status',
  'grand_total_cents',
  'discount_cents',
  'subtotal_cents',
] as const satisfies ReadonlyArray<keyof BillDoc>;

/** Whether a change of a bill can change the totals of its day (and so needs a new version token). */
export function changesDayTotals(before: BillDoc, after: BillDoc): boolean {
  return TOTALS_FIELDS.some((field) => before[field] !== after[field]);
}

/** The distinct days of bills (or of day keys), as bare day keys. */
function uniqueDays(days: DayKey[]): DayKey[] {
  return [
    ...new Map(
      days.map(({ store_id, bill_date }) => [dayId({ store_id, bill_date }), { store_id, bill_date }]),
    ).values(),
  ];
}

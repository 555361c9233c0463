/**
 * Counts and sums of live bills per branch and bill date, for the summary and
 * for the list's `total`, so that neither reads more than the days a write has
 * changed since.
 *
 * Each (branch, date) that has bills has a document in `bill_days` with a
 * version token, and so does each (branch, month) that has bills. Writers
 * register a day and its month before they store the day's first bill, and
 * give both new tokens once a write has happened (create, update, cancel),
 * the day's first: one ordered write does both. A reader recomputes (with one
 * grouped query the server answers from an index) only the days whose token
 * differs from the one its copy was computed under. A range that spans whole
 * months reads their month tokens first and the days of a month only when
 * its token has changed, so that a read of a year after a write lists about
 * 13 months and one month's days, not 365 days. Every token is read before
 * what it stamps is computed, and a month's token changes after its days',
 * so a write that lands meanwhile leaves a token the next read does not know:
 * no read keeps a stale day or month.
 */
import { randomUUID } from 'node:crypto';
import type { Collection, Db, Document, Filter, UpdateFilter } from 'mongodb';
import type { Logger } from '@clinic/service-kit';
import { GroupCommit } from '@clinic/service-kit/storage';
import { isDuplicateKeyError, writeErrorsOf } from './database-quirks';
import type { DateRange } from '../domain/filters';
import { monthCondition, outsideWholeMonths, wholeMonthsOf } from './day-ranges';
import type { BillDoc } from '../domain/bill';
import { BILL_INDEXES, dateCondition } from './indexes';
import { sumGroups, type BillGroup } from '../domain/summary-rules';
import { sumLiveBills } from './live-bill-sums';

export interface DayKey {
  store_id: number;
  bill_date: string;
}

interface DayDoc extends DayKey {
  _id: string;
  token: string;
}

/** Any document of `bill_days`: a day or a month. */
export interface RegistryDoc extends Document {
  _id: string;
}

/** A branch's month in `bill_days`; its fields are named apart from a day's, so that no query of days finds it. */
interface MonthDoc {
  _id: string;
  month_of_store: number;
  /** YYYY-MM */
  month: string;
  token: string;
}

interface Cached {
  token: string;
  groups: BillGroup[];
}

export const BILL_DAYS = 'bill_days';
const dayId = (day: DayKey) => `${day.store_id}:${day.bill_date}`;
const monthOf = (billDate: string) => billDate.slice(0, 7);
const monthId = (day: DayKey) => `m:${day.store_id}:${monthOf(day.bill_date)}`;
/** Days computed in one grouped query at most. */
const DAYS_PER_QUERY = 400;
/** Days kept in memory at most (ten branches with ten years of bills). */
const CACHED_DAYS_MAX = 40_000;

export class DayTotals {
  /** `bill_days`, as a whole (its writes) and as its days and its months (their queries). */
  private readonly registry: Collection<RegistryDoc>;
  private readonly days: Collection<DayDoc>;
  private readonly months: Collection<MonthDoc>;
  /** Days and months this process knows exist (neither is ever removed). */
  private readonly registered = new Set<string>();
  private readonly cachedDays = new Map<string, Cached>();
  private readonly cachedMonths = new Map<string, Cached>();
  private readonly bumps = new GroupCommit<DayKey>((days) => this.newTokens(days));

  constructor(
    db: Db,
    private readonly bills: Collection<BillDoc>,
    private readonly log: Logger,
  ) {
    this.registry = db.collection<RegistryDoc>(BILL_DAYS);
    this.days = db.collection<DayDoc>(BILL_DAYS);
    this.months = db.collection<MonthDoc>(BILL_DAYS);
  }

  /** Before bills of these days are stored: from now on reads include the days (one write for all). */
  async register(days: DayKey[]): Promise<void> {
    const fresh = uniqueDays(days).filter((day) => !this.registered.has(dayId(day)));
    if (fresh.length === 0) return;
    const months = uniqueMonths(fresh).filter((day) => !this.registered.has(monthId(day)));
    const failures = await this.upsertEach(
      [...fresh.map(dayRecord), ...months.map(monthRecord)].map(({ _id, fields }) => ({
        _id,
        update: { $setOnInsert: fields },
      })),
      false,
    );
    // A duplicate is a day or month another writer registered meanwhile.
    const failed = failures.find((err) => !isDuplicateKeyError(err));
    if (failed) throw failed;
    for (const day of fresh) this.registered.add(dayId(day));
    for (const day of months) this.registered.add(monthId(day));
  }

  /**
   * After a write to bills of these days: new version tokens for each day and
   * then for each of their months (one ordered write for all), so that every
   * replica recomputes its totals. A failure is logged: the day's totals may
   * lag until its next write.
   */
  async bumpVersions(days: DayKey[]): Promise<void> {
    const touched = uniqueDays(days);
    for (const day of touched) this.cachedDays.delete(dayId(day));
    for (const day of uniqueMonths(touched)) this.cachedMonths.delete(monthId(day));
    if (touched.length > 0) await this.bumps.submit(touched);
  }

  /** The new tokens of the days bumped at about the same time, and of their months: one write for all. */
  private async newTokens(days: DayKey[]): Promise<void> {
    const touched = uniqueDays(days);
    const months = uniqueMonths(touched);
    try {
      const failures = await this.upsertEach(
        [...touched.map(dayRecord), ...months.map(monthRecord)].map(({ _id, fields }) => ({
          _id,
          update: { $set: fields },
        })),
        true,
      );
      for (const err of failures) this.log.error({ err }, 'bill day not marked changed; its totals may lag');
    } catch (err) {
      this.log.error({ err, days: touched.length }, 'bill days not marked changed; their totals may lag');
      return;
    }
    for (const day of touched) this.registered.add(dayId(day));
    for (const day of months) this.registered.add(monthId(day));
  }

  /**
   * One upsert per document, sent as one command (in order when `ordered`: a
   * month after its days); answers the errors of the ones refused.
   */
  private async upsertEach(
    updates: Array<{ _id: string; update: UpdateFilter<RegistryDoc> }>,
    ordered: boolean,
  ): Promise<unknown[]> {
    try {
      await this.registry.bulkWrite(
        updates.map(({ _id, update }) => ({ updateOne: { filter: { _id }, update, upsert: true } })),
        { ordered },
      );
      return [];
    } catch (err) {
      const refused = writeErrorsOf(err);
      if (!refused) throw err;
      return refused;
    }
  }

  /** The groups of live bills of a branch within a date range, summed over its days. */
  async groups(branchId: number, range: DateRange): Promise<BillGroup[]> {
    const whole = wholeMonthsOf(range);
    if (!whole) return sumGroups((await this.dayGroups(branchId, [dateCondition(range)])).map((d) => d.groups));
    const months = await this.months
      .find(
        { month_of_store: branchId, month: { $gte: whole.first, $lte: whole.last } },
        { projection: { month: 1, token: 1 } },
      )
      .hint(BILL_INDEXES.months)
      .toArray();
    const known: BillGroup[][] = [];
    const changed: MonthDoc[] = [];
    for (const month of months) {
      const cached = this.cachedMonths.get(month._id);
      if (cached?.token === month.token) known.push(cached.groups);
      else changed.push(month);
    }
    const days = await this.dayGroups(branchId, [
      ...outsideWholeMonths(range, whole),
      ...changed.map((m) => monthCondition(m.month)),
    ]);
    for (const month of changed) {
      const groups = sumGroups(days.filter((d) => monthOf(d.bill_date) === month.month).map((d) => d.groups));
      this.cachedMonths.set(month._id, { token: month.token, groups });
      known.push(groups);
    }
    const inChangedMonths = new Set(changed.map((m) => m.month));
    return sumGroups([
      ...known,
      ...days.filter((d) => !inChangedMonths.has(monthOf(d.bill_date))).map((d) => d.groups),
    ]);
  }

  /** The days of a branch within the date conditions, with their groups: recomputed where their token changed. */
  private async dayGroups(
    branchId: number,
    conditions: Array<Filter<DayDoc>>,
  ): Promise<Array<{ bill_date: string; groups: BillGroup[] }>> {
    const days = (
      await Promise.all(
        conditions.map((condition) =>
          this.days
            .find({ store_id: branchId, ...condition }, { projection: { bill_date: 1, token: 1 } })
            .hint(BILL_INDEXES.days)
            .toArray(),
        ),
      )
    ).flat();
    const stale = days.filter((day) => this.cachedDays.get(day._id)?.token !== day.token);
    const computed = new Map<string, BillGroup[]>();
    for (let i = 0; i < stale.length; i += DAYS_PER_QUERY) {
      for (const [id, groups] of await this.compute(branchId, stale.slice(i, i + DAYS_PER_QUERY)))
        computed.set(id, groups);
    }
    return days.map((day) => ({
      bill_date: day.bill_date,
      groups: computed.get(day._id) ?? this.cachedDays.get(day._id)?.groups ?? [],
    }));
  }

  private async compute(branchId: number, days: DayDoc[]): Promise<Map<string, BillGroup[]>> {
    const byDate = new Map<string, BillGroup[]>(days.map((d) => [d.bill_date, []]));
    const dates = days.map((d) => d.bill_date);
    for (const { bill_date, group } of await sumLiveBills(this.bills, branchId, dates, {}))
      byDate.get(bill_date)?.push(group);
    const computed = new Map<string, BillGroup[]>();
    for (const day of days) {
      const groups = byDate.get(day.bill_date) ?? [];
      computed.set(day._id, groups);
      this.cachedDays.delete(day._id);
      this.cachedDays.set(day._id, { token: day.token, groups });
    }
    while (this.cachedDays.size > CACHED_DAYS_MAX)
      this.cachedDays.delete(this.cachedDays.keys().next().value as string);
    return computed;
  }
}

/**
 * The `bill_days` document of a day, and of the day's month: its key and its
 * fields, with a fresh token (what registering or bumping it writes).
 */
export function dayRecord(day: DayKey): { _id: string; fields: Omit<DayDoc, '_id'> } {
  return { _id: dayId(day), fields: { store_id: day.store_id, bill_date: day.bill_date, token: randomUUID() } };
}

export function monthRecord(day: DayKey): { _id: string; fields: Omit<MonthDoc, '_id'> } {
  return {
    _id: monthId(day),
    fields: { month_of_store: day.store_id, month: monthOf(day.bill_date), token: randomUUID() },
  };
}

/** The distinct days of bills (or of day keys), as bare day keys. */
function uniqueDays(days: DayKey[]): DayKey[] {
  return [
    ...new Map(
      days.map(({ store_id, bill_date }) => [dayId({ store_id, bill_date }), { store_id, bill_date }]),
    ).values(),
  ];
}

/** One day key per distinct (branch, month) of the days. */
function uniqueMonths(days: DayKey[]): DayKey[] {
  return [...new Map(days.map((day) => [monthId(day), { store_id: day.store_id, bill_date: day.bill_date }])).values()];
}

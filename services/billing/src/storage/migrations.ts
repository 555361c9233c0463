/**
 * Data earlier versions did not keep, derived once from the bills: each
 * bill's search_text and the per-day and per-month registry of day-totals.ts. Each step is
 * idempotent and marked done only once complete, so replicas starting
 * together, or a start cut short, repeat it harmlessly.
 */
import type { Collection, Db, Document } from 'mongodb';
import type { Logger } from '@clinic/service-kit';
import { upsertOnce } from './database-quirks';
import { BILL_DAYS, dayRecord, monthRecord, type DayKey, type RegistryDoc } from './day-totals';
import type { BillDoc } from '../domain/bill';
import { BILL_INDEXES } from './indexes';
import { searchTextOf, SEARCH_FIELDS } from './search';

interface MigrationDoc {
  _id: string;
  done_at: Date;
}

export async function runMigrations(db: Db, bills: Collection<BillDoc>, log: Logger): Promise<void> {
  const done = db.collection<MigrationDoc>('migrations');
  const steps: Array<[string, () => Promise<number>]> = [
    ['bills.search_text', () => backfillSearchText(bills)],
    ['bills.days', () => registerBillDays(db, bills)],
    ['bills.months', () => registerBillMonths(db)],
  ];
  for (const [name, step] of steps) {
    if (await done.findOne({ _id: name })) continue;
    const started = Date.now();
    const changed = await step();
    await upsertOnce(() => done.updateOne({ _id: name }, { $set: { done_at: new Date() } }, { upsert: true }));
    log.info({ migration: name, changed, duration_ms: Date.now() - started }, 'migration done');
  }
}

async function backfillSearchText(bills: Collection<BillDoc>): Promise<number> {
  let changed = 0;
  const projection = Object.fromEntries([...SEARCH_FIELDS, 'search_text'].map((f) => [f, 1]));
  for await (const bill of bills.find({}, { projection })) {
    const searchText = searchTextOf(bill);
    if (bill.search_text === searchText) continue;
    await bills.updateOne({ _id: bill._id }, { $set: { search_text: searchText } });
    changed++;
  }
  return changed;
}

async function registerBillDays(db: Db, bills: Collection<BillDoc>): Promise<number> {
  const days = await bills
    .aggregate<{ _id: { s: number; d: string } }>(
      [{ $group: { _id: { s: '$store_id', d: '$bill_date' }, n: { $sum: 1 } } }],
      { hint: BILL_INDEXES.byDay },
    )
    .toArray();
  return registerOnce(
    db,
    days.map(({ _id: day }) => dayRecord({ store_id: day.s, bill_date: day.d })),
  );
}

/** The month of every registered day (days registered before months were). */
async function registerBillMonths(db: Db): Promise<number> {
  const days = await db
    .collection<DayKey>(BILL_DAYS)
    .find({ store_id: { $gte: 0 } }, { projection: { _id: 0, store_id: 1, bill_date: 1 } })
    .hint(BILL_INDEXES.days)
    .toArray();
  const months = new Map(days.map((day) => monthRecord(day)).map((record) => [record._id, record]));
  return registerOnce(db, [...months.values()]);
}

/** Inserts each day or month document unless it is there already. */
async function registerOnce(db: Db, records: Array<{ _id: string; fields: Document }>): Promise<number> {
  const registry = db.collection<RegistryDoc>(BILL_DAYS);
  for (const { _id, fields } of records) {
    await upsertOnce(() => registry.updateOne({ _id }, { $setOnInsert: fields }, { upsert: true }));
  }
  return records.length;
}

/**
 * What a fault under load is checked against for money: every
 * payment and refund the API acknowledged is on its bill exactly once, none
 * that was not acknowledged is, and every entry of the bills' ledgers (those
 * the spec's writes made too) has its record in bill_ledger and its event on
 * the stream, and no record stands without its entry.
 */
import { MongoClient } from 'mongodb';
import type { TestStack } from '../e2e/harness';
import type { MoneyOp } from './money-load';

interface StoredEntry {
  id: string;
  idempotency_key?: string;
}

export interface MoneyFigures {
  payments_acknowledged: number;
  refunds_acknowledged: number;
  money_ops_failed: number;
  /** The attempts the faults failed (retried with the same key): what the money met. */
  money_attempts_failed_by_status: Record<string, number>;
  money_lost: number;
  money_duplicated: number;
  money_stored_unacknowledged: number;
  ledger_entries: number;
  ledger_records_missing: number;
  ledger_records_without_entry: number;
  money_events_missing: number;
  /** Entries whose event the stream holds more than once (a redelivery to the reader counts once). */
  money_events_duplicated: number;
}

/** The ledgers of the bills of a date, and bill_ledger's records of those bills. */
async function storedMoney(t: TestStack, billDate: string) {
  const mongo = await MongoClient.connect(t.stack.infra.mongoUrl);
  try {
    const db = mongo.db('clinic_billing');
    const bills = (await db
      .collection('bills')
      .find({ bill_date: billDate }, { projection: { id: 1, ledger: 1 } })
      .toArray()) as unknown as Array<{ id: number; ledger?: StoredEntry[] }>;
    const records = await db
      .collection<{ _id: string; bill_id: number }>('bill_ledger')
      .find({ bill_id: { $in: bills.map((b) => b.id) } }, { projection: { bill_id: 1 } })
      .toArray();
    return { bills, records };
  } finally {
    await mongo.close();
  }
}

/** `sub`: the token's subject the load sends keys under (keys are scoped to the caller). */
export async function moneyFigures(
  t: TestStack,
  ops: MoneyOp[],
  billDate: string,
  moneyEvents: ReadonlyMap<string, ReadonlySet<number>>,
  sub: number,
): Promise<MoneyFigures> {
  const { bills, records } = await storedMoney(t, billDate);
  const entries = bills.flatMap((b) => (b.ledger ?? []).map((e) => ({ ...e, bill: b.id })));
  const byKey = new Map<string, number>();
  for (const e of entries) if (e.idempotency_key) byKey.set(e.idempotency_key, (byKey.get(e.idempotency_key) ?? 0) + 1);
  const ids = new Set(entries.map((e) => e.id));
  const keyOf = (op: MoneyOp) => `${sub}:${op.key}`;
  const acknowledged = ops.filter((op) => op.entryId);
  const recorded = new Set(records.map((r) => r._id));
  return {
    payments_acknowledged: acknowledged.filter((op) => op.kind === 'payment').length,
    refunds_acknowledged: acknowledged.filter((op) => op.kind === 'refund').length,
    money_ops_failed: ops.filter((op) => !op.entryId).length,
    money_attempts_failed_by_status: failedByStatus(ops),
    money_lost: acknowledged.filter((op) => !ids.has(op.entryId!)).length,
    money_duplicated: ops.filter((op) => (byKey.get(keyOf(op)) ?? 0) > 1).length,
    money_stored_unacknowledged: ops.filter((op) => !op.entryId && (byKey.get(keyOf(op)) ?? 0) > 0).length,
    ledger_entries: entries.length,
    ledger_records_missing: entries.filter((e) => !recorded.has(e.id)).length,
    ledger_records_without_entry: records.filter((r) => !ids.has(r._id)).length,
    money_events_missing: entries.filter((e) => !moneyEvents.has(e.id)).length,
    money_events_duplicated: entries.filter((e) => (moneyEvents.get(e.id)?.size ?? 0) > 1).length,
  };
}

/** Figures that must be 0 once the relay and the sweepers have done their work. */
export const MONEY_HEALTHY = {
  money_ops_failed: 0,
  money_lost: 0,
  money_duplicated: 0,
  money_stored_unacknowledged: 0,
  ledger_records_missing: 0,
  ledger_records_without_entry: 0,
  money_events_missing: 0,
  money_events_duplicated: 0,
};

export const moneySettled = (figures: MoneyFigures) =>
  Object.entries(MONEY_HEALTHY).every(([key, value]) => figures[key as keyof MoneyFigures] === value);

function failedByStatus(ops: MoneyOp[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const { status } of ops.flatMap((op) => op.attempts))
    if (status !== 201) counts[String(status)] = (counts[String(status)] ?? 0) + 1;
  return counts;
}

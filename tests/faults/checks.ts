/**
 * What every fault under load is checked against: the bills the API confirmed,
 * what the database stored, and the created events on the stream; plus the
 * table every fault file prints and writes to bench-results/.
 */
import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import { REPO_ROOT } from '@clinic/devstack';
import { eventually, type TestStack } from '../e2e/harness';
import { BillLoad, BillUpdates } from './load';
import { MONEY_HEALTHY, moneyFigures, moneySettled, type MoneyFigures } from './money-checks';
import { MoneyLoad } from './money-load';
import { errorSummary } from './reports';
import { storedTwice, streamEvents } from './stream-events';

export { writeReports } from './reports';

/** The token subject the money load sends its Idempotency-Keys under. */
export const MONEY_SUB = 9;

/**
 * 8 careful clients creating bills of one charge on `billDate` (a date no other
 * test uses), every other one Paid (its payment recorded with it), and updates
 * of the bills they create alongside, so that faults meet changes (and their
 * history entries) as well as creations; and payments of the Pending ones,
 * refunds of the Paid ones.
 */
export function billLoad(
  t: TestStack,
  chargeId: number,
  billDate: string,
): BillLoad & { updates: BillUpdates; money: MoneyLoad } {
  let created = 0;
  const run = new BillLoad({
    url: t.url,
    token: t.token('cashier', 5),
    concurrency: 8,
    body: () => ({
      patient_name: 'Load Patient',
      patient_contact: '0770000000',
      bill_date: billDate,
      payment_method: 'Card',
      payment_status: created++ % 2 ? 'Pending' : 'Paid',
      store_id: 1,
      items: [{ charge_id: chargeId, charge_name: 'CBC', unit_price: 850, qty: 1 }],
    }),
  });
  const updates = new BillUpdates(run, { url: t.url, token: t.token('cashier', 6) });
  const money = new MoneyLoad(run, { url: t.url, token: t.token('cashier', MONEY_SUB) });
  const start = run.start.bind(run);
  const stop = run.stop.bind(run);
  return Object.assign(run, {
    updates,
    money,
    start: () => {
      start();
      updates.start();
      money.start();
    },
    stop: async () => {
      await Promise.all([stop(), updates.stop(), money.stop()]);
    },
  });
}

export interface StoredBill {
  id: number;
  bill_number: string;
  bill_date: string;
  idempotency_key?: string;
  /** The events of the bill's writes: its creation and each change (the outbox's proof). */
  _event_ids: string[];
  notes?: string | null;
}

async function storedBills(t: TestStack): Promise<StoredBill[]> {
  const mongo = await MongoClient.connect(t.stack.infra.mongoUrl);
  try {
    return (await mongo
      .db('clinic_billing')
      .collection('bills')
      .find({}, { projection: { id: 1, bill_number: 1, bill_date: 1, idempotency_key: 1, _event_ids: 1, notes: 1 } })
      .toArray()) as never;
  } finally {
    await mongo.close();
  }
}

/**
 * Each stored change of a bill (an event id on the bill) against the bills'
 * history: entries missing for a change, and entries for a change the bill
 * does not hold. Entries are keyed by their change's event id.
 */
async function historyCheck(
  t: TestStack,
  bills: StoredBill[],
  billDate: string,
): Promise<{ changes: number; missing: string[]; withoutChange: string[] }> {
  const mongo = await MongoClient.connect(t.stack.infra.mongoUrl);
  try {
    const entries = await mongo
      .db('clinic_billing')
      .collection<{ _id: string; entity_id: number; action: string; at: Date; correlation_id: string }>('bill_history')
      .find({}, { projection: { entity_id: 1, action: 1, at: 1, correlation_id: 1 } })
      .toArray();
    const changes = new Map(bills.flatMap((b) => b._event_ids.map((eventId) => [eventId, b.id] as const)));
    const recorded = new Map(entries.map((e) => [e._id, e.entity_id]));
    return {
      changes: bills.filter((b) => b.bill_date === billDate).reduce((n, b) => n + b._event_ids.length, 0),
      missing: [...changes.keys()].filter((eventId) => recorded.get(eventId) !== changes.get(eventId)),
      withoutChange: entries
        .filter((e) => !changes.has(e._id))
        .map(
          (e) =>
            `${e._id} (bill ${e.entity_id} ${e.action} at ${e.at.toISOString()}, ${e.correlation_id}; the bill holds ${bills.find((b) => b.id === e.entity_id)?._event_ids.join(',')})`,
        ),
    };
  } finally {
    await mongo.close();
  }
}

/**
 * `recoverySince`: when service should resume (the kill for a replica, the
 * restart for a server); recovery is the time from then until a request
 * started after it succeeds.
 */
export async function verify(
  t: TestStack,
  reports: Record<string, unknown>[],
  fault: string,
  run: BillLoad,
  billDate: string,
  recoverySince: number,
): Promise<Record<string, any>> {
  await run.retryUnconfirmed();
  let bills = await storedBills(t);
  const byId = new Map(bills.map((b) => [b.id, b]));
  const confirmed = run.bills.filter((b) => b.created);
  const lost = confirmed.filter((b) => byId.get(b.created!.bill_id)?.bill_number !== b.created!.bill_number);
  const perKey = new Map<string, number>();
  for (const b of bills) if (b.idempotency_key) perKey.set(b.idempotency_key, (perKey.get(b.idempotency_key) ?? 0) + 1);
  const keyOf = (key: string) => `5:${key}`; // keys are scoped to the caller (sub 5)
  const duplicatedRequests = run.bills.filter((b) => (perKey.get(keyOf(b.key)) ?? 0) > 1).length;
  const duplicateNumbers = bills.length - new Set(bills.map((b) => b.bill_number)).size;
  const unconfirmedButStored = run.bills.filter((b) => !b.created && (perKey.get(keyOf(b.key)) ?? 0) > 0).length;
  const seqs = bills
    .filter((b) => b.bill_date === billDate)
    .map((b) => Number(b.bill_number.split('-')[2]))
    .sort((a, b) => a - b);
  const gaps = seqs.length === 0 ? 0 : seqs[seqs.length - 1]! - seqs.length;

  const readStatuses = await Promise.all(
    confirmed.map(async (b) => (await t.get(`/lab_bills/${b.created!.bill_id}`)).status),
  );
  const readable = readStatuses.map((status) => status === 200);
  if (readable.some((ok) => !ok)) {
    const counts: Record<number, number> = {};
    for (const status of readStatuses) counts[status] = (counts[status] ?? 0) + 1;
    process.stdout.write(`reads of confirmed bills after ${fault}: ${JSON.stringify(counts)}\n`);
  }
  const nc = await t.nats('hospital');
  const events = await eventually(
    async () => {
      // Right after a partition heals, JetStream's API may answer 503 while it elects leaders: ask again.
      const ids = (await streamEvents(t, nc).catch(() => undefined))?.createdBills;
      return ids && bills.every((b) => ids.has(b.id)) ? ids : undefined;
    },
    30_000,
    1_000,
  ).catch(async () => (await streamEvents(t, nc)).createdBills);
  const missing = bills.filter((b) => !events.has(b.id));
  const eventsMissing = missing.length;
  const eventsDuplicated = storedTwice(events);
  if (missing.length > 0) process.stdout.write(`bills without a created event: ${JSON.stringify(missing)}\n`);
  // Entries of changes whose process died are stored by another replica's sweeper (after its grace period).
  const history = await eventually(
    async () => {
      bills = await storedBills(t);
      const check = await historyCheck(t, bills, billDate);
      return check.missing.length === 0 && check.withoutChange.length === 0 ? check : undefined;
    },
    30_000,
    1_000,
  ).catch(async () => historyCheck(t, await storedBills(t), billDate));
  if (history.missing.length + history.withoutChange.length > 0) {
    process.stdout.write(
      `bill changes without a history entry: ${JSON.stringify(history.missing)}; entries without a change: ${JSON.stringify(history.withoutChange)}\n`,
    );
  }

  // Payments and refunds: entries of a dead process are completed by another replica's sweeper, as above.
  const ops = (run as Partial<ReturnType<typeof billLoad>>).money?.ops ?? [];
  const moneyNow = async () => moneyFigures(t, ops, billDate, (await streamEvents(t, nc)).money, MONEY_SUB);
  const money: MoneyFigures = await eventually(
    async () => {
      const figures = await moneyNow().catch(() => undefined);
      return figures && moneySettled(figures) ? figures : undefined;
    },
    30_000,
    1_000,
  ).catch(moneyNow);

  // Each bill gets one update at most, so an acknowledged one is what the bill holds.
  const updates = (run as Partial<ReturnType<typeof billLoad>>).updates;
  const updatesLost = (updates?.acknowledged ?? []).filter((u) => byId.get(u.billId)?.notes !== u.notes);
  if (updatesLost.length > 0)
    process.stdout.write(`acknowledged updates the bills do not hold: ${JSON.stringify(updatesLost)}\n`);

  const counts = run.statusCounts();
  const failed = Object.fromEntries(Object.entries(counts).filter(([status]) => status !== '201'));
  const report = {
    fault,
    attempts: Object.values(counts).reduce((a, b) => a + b, 0),
    logical_bills: run.bills.length,
    succeeded: counts['201'] ?? 0,
    failed_by_status: failed,
    hangs: counts.hang ?? 0,
    bills_lost: lost.length,
    unreadable: readable.filter((ok) => !ok).length,
    duplicates: duplicatedRequests + duplicateNumbers,
    gaps,
    unconfirmed_but_stored: unconfirmedButStored,
    events_missing: eventsMissing,
    events_duplicated: eventsDuplicated,
    bill_changes: history.changes,
    updates_sent: updates?.statuses.length ?? 0,
    updates_acknowledged: updates?.acknowledged.length ?? 0,
    updates_lost: updatesLost.length,
    history_missing: history.missing.length,
    history_without_change: history.withoutChange.length,
    ...money,
    failures_in_envelope: run.failuresInEnvelope(),
    recovery_ms: run.recoveryMs(recoverySince),
  };
  reports.push(report);
  return report;
}

export const HEALTHY = {
  hangs: 0,
  bills_lost: 0,
  unconfirmed_but_stored: 0,
  unreadable: 0,
  duplicates: 0,
  gaps: 0,
  events_missing: 0,
  events_duplicated: 0,
  history_missing: 0,
  history_without_change: 0,
  updates_lost: 0,
  ...MONEY_HEALTHY,
  failures_in_envelope: true,
};

export function expectHealthy(t: TestStack, report: Record<string, any>): void {
  if (Object.entries(HEALTHY).some(([key, value]) => report[key] !== value)) {
    // The stack's data folder is removed after the run: keep the logs of a failure to read.
    const dir = join(REPO_ROOT, 'bench-results', `faults-logs-${new Date().toISOString().replace(/[:.]/g, '-')}`);
    cpSync(t.stack.logDir, dir, { recursive: true });
    process.stdout.write(`logs of the failed check kept in ${dir}\n${errorSummary(t.stack.logDir)}`);
  }
  expect(report).toMatchObject(HEALTHY);
  expect(report.succeeded).toBeGreaterThan(0);
  // Updates met the fault too: the load's bills hold more changes than their creations.
  expect(report.bill_changes).toBeGreaterThan(report.succeeded);
  expect(report.updates_sent).toBeGreaterThan(0);
  // Otherwise "acknowledged updates lost: 0" would check nothing; nor would the money's figures.
  expect(report.updates_acknowledged).toBeGreaterThan(0);
  expect(report.payments_acknowledged).toBeGreaterThan(0);
  expect(report.refunds_acknowledged).toBeGreaterThan(0);
  expect(report.recovery_ms).not.toBeNull();
}

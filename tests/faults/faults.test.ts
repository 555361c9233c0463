/**
 * Faults under a steady load of bill creation through the gateway: a billing
 * replica killed with SIGKILL, NATS restarted, the database stopped, a service
 * stopped while reference records are published. After each: every bill the
 * API confirmed is stored and readable, no number is used twice or skipped,
 * no logical request created two bills, every bill has its created event,
 * and every change of a bill (its creation, and updates sent alongside the
 * load) has exactly one history entry: none missing, none without its change.
 * The figures are printed and written to bench-results/faults-latest.json.
 */
import { cpSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AckPolicy, DeliverPolicy, type NatsConnection } from 'nats';
import { MongoClient } from 'mongodb';
import { refSubject, SessionsSubjects } from '@clinic/contracts';
import { REPO_ROOT } from '@clinic/devstack';
import { eventually, sleep, startTestStack, type TestStack } from '../e2e/harness';
import { BillLoad, BillUpdates } from './load';

let t: TestStack;
let chargeId: number;
const reports: Record<string, unknown>[] = [];

beforeAll(async () => {
  t = await startTestStack({ replicas: { billing: 2 }, env: { REQUEST_TIMEOUT_MS: '3000' } });
  await t.seed({ stores: [{ id: 1, name: 'Main', status: 'active' }] });
  chargeId = (await t.post('/hospital_charges', { store_id: 1, charge_name: 'CBC', charge_type: 'Lab', amount: 850 })).body.charge_id;
});

afterAll(async () => {
  await t?.stop();
  const dir = join(REPO_ROOT, 'bench-results');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'faults-latest.json'), `${JSON.stringify({ date: new Date().toISOString(), reports }, null, 2)}\n`);
  const table = reports.map((r) =>
    [r.fault, r.attempts, r.succeeded, JSON.stringify(r.failed_by_status), r.hangs, r.bills_lost, r.duplicates, r.gaps, r.unconfirmed_but_stored, r.events_missing, r.bill_changes, r.history_missing, r.history_without_change, r.recovery_ms].join(' | '),
  );
  process.stdout.write(
    ['', 'fault | attempts | succeeded | failed by status | hangs | bills lost | duplicates | gaps | stored without a 201 | events missing | bill changes | history missing | history without change | recovery ms', ...table, ''].join('\n'),
  );
});

/** The bill load of a fault, with updates of the bills it creates alongside. */
function load(billDate: string): BillLoad & { updates: BillUpdates } {
  const run = new BillLoad({
    url: t.url,
    token: t.token('cashier', 5),
    concurrency: 8,
    body: () => ({
      patient_name: 'Load Patient', patient_contact: '0770000000', bill_date: billDate, payment_method: 'Card', store_id: 1,
      items: [{ charge_id: chargeId, charge_name: 'CBC', unit_price: 850, qty: 1 }],
    }),
  });
  const updates = new BillUpdates(run, { url: t.url, token: t.token('cashier', 6) });
  const start = run.start.bind(run);
  const stop = run.stop.bind(run);
  return Object.assign(run, {
    updates,
    start: () => {
      start();
      updates.start();
    },
    stop: async () => {
      await Promise.all([stop(), updates.stop()]);
    },
  });
}

interface StoredBill {
  id: number;
  bill_number: string;
  bill_date: string;
  idempotency_key?: string;
  /** The events of the bill's writes: its creation and each change (the outbox's proof). */
  _event_ids: string[];
}

async function storedBills(): Promise<StoredBill[]> {
  const mongo = await MongoClient.connect(t.stack.infra.mongoUrl);
  try {
    return (await mongo.db('clinic_billing').collection('bills').find({}, { projection: { id: 1, bill_number: 1, bill_date: 1, idempotency_key: 1, _event_ids: 1 } }).toArray()) as never;
  } finally {
    await mongo.close();
  }
}

/**
 * Each stored change of a bill (an event id on the bill) against the bills'
 * history: entries missing for a change, and entries for a change the bill
 * does not hold. Entries are keyed by their change's event id.
 */
async function historyCheck(bills: StoredBill[], billDate: string): Promise<{ changes: number; missing: string[]; withoutChange: string[] }> {
  const mongo = await MongoClient.connect(t.stack.infra.mongoUrl);
  try {
    const entries = await mongo.db('clinic_billing').collection<{ _id: string; entity_id: number }>('bill_history').find({}, { projection: { entity_id: 1 } }).toArray();
    const changes = new Map(bills.flatMap((b) => b._event_ids.map((eventId) => [eventId, b.id] as const)));
    const recorded = new Map(entries.map((e) => [e._id, e.entity_id]));
    return {
      changes: bills.filter((b) => b.bill_date === billDate).reduce((n, b) => n + b._event_ids.length, 0),
      missing: [...changes.keys()].filter((eventId) => recorded.get(eventId) !== changes.get(eventId)),
      withoutChange: [...recorded.keys()].filter((eventId) => !changes.has(eventId)),
    };
  } finally {
    await mongo.close();
  }
}

/** Bill ids with a billing.bill.created event on the stream. */
async function createdEvents(nc: NatsConnection): Promise<Set<number>> {
  const jsm = await nc.jetstreamManager();
  const durable = `faults-${Math.random().toString(36).slice(2)}`;
  await jsm.consumers.add('BILLING_EVENTS', { durable_name: durable, ack_policy: AckPolicy.None, deliver_policy: DeliverPolicy.All, filter_subject: 'billing.bill.created' });
  const consumer = await nc.jetstream().consumers.get('BILLING_EVENTS', durable);
  const ids = new Set<number>();
  for (let pending = (await consumer.info()).num_pending; pending > 0; pending = (await consumer.info()).num_pending) {
    const batch = await consumer.fetch({ max_messages: Math.min(pending, 500), expires: 2000 });
    for await (const m of batch) ids.add(m.json<{ data: { bill: { id: number } } }>().data.bill.id);
  }
  await jsm.consumers.delete('BILLING_EVENTS', durable);
  return ids;
}

/** Checks a load's outcome against what is stored, and records the figures. */
/**
 * `recoverySince`: when service should resume (the kill for a replica, the
 * restart for a server); recovery is the time from then until a request
 * started after it succeeds.
 */
async function verify(fault: string, run: BillLoad, billDate: string, recoverySince: number): Promise<Record<string, any>> {
  let bills = await storedBills();
  const byId = new Map(bills.map((b) => [b.id, b]));
  const confirmed = run.bills.filter((b) => b.created);
  const lost = confirmed.filter((b) => byId.get(b.created!.bill_id)?.bill_number !== b.created!.bill_number);
  const perKey = new Map<string, number>();
  for (const b of bills) if (b.idempotency_key) perKey.set(b.idempotency_key, (perKey.get(b.idempotency_key) ?? 0) + 1);
  const keyOf = (key: string) => `5:${key}`; // keys are scoped to the caller (sub 5)
  const duplicatedRequests = run.bills.filter((b) => (perKey.get(keyOf(b.key)) ?? 0) > 1).length;
  const duplicateNumbers = bills.length - new Set(bills.map((b) => b.bill_number)).size;
  const unconfirmedButStored = run.bills.filter((b) => !b.created && (perKey.get(keyOf(b.key)) ?? 0) > 0).length;
  const seqs = bills.filter((b) => b.bill_date === billDate).map((b) => Number(b.bill_number.split('-')[2])).sort((a, b) => a - b);
  const gaps = seqs.length === 0 ? 0 : seqs[seqs.length - 1] - seqs.length;

  const readStatuses = await Promise.all(confirmed.map(async (b) => (await t.get(`/lab_bills/${b.created!.bill_id}`)).status));
  const readable = readStatuses.map((status) => status === 200);
  if (readable.some((ok) => !ok)) {
    const counts: Record<number, number> = {};
    for (const status of readStatuses) counts[status] = (counts[status] ?? 0) + 1;
    process.stdout.write(`reads of confirmed bills after ${fault}: ${JSON.stringify(counts)}\n`);
  }
  const nc = await t.nats('hospital');
  const events = await eventually(async () => {
    const ids = await createdEvents(nc);
    return bills.every((b) => ids.has(b.id)) ? ids : undefined;
  }, 30_000, 1_000).catch(() => createdEvents(nc));
  const missing = bills.filter((b) => !events.has(b.id));
  const eventsMissing = missing.length;
  if (missing.length > 0) process.stdout.write(`bills without a created event: ${JSON.stringify(missing)}\n`);
  // Entries of changes whose process died are stored by another replica's sweeper (after its grace period).
  const history = await eventually(async () => {
    bills = await storedBills();
    const check = await historyCheck(bills, billDate);
    return check.missing.length === 0 && check.withoutChange.length === 0 ? check : undefined;
  }, 30_000, 1_000).catch(async () => historyCheck(await storedBills(), billDate));
  if (history.missing.length + history.withoutChange.length > 0) {
    process.stdout.write(`bill changes without a history entry: ${JSON.stringify(history.missing)}; entries without a change: ${JSON.stringify(history.withoutChange)}\n`);
  }

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
    bill_changes: history.changes,
    updates_sent: (run as ReturnType<typeof load>).updates?.statuses.length ?? 0,
    history_missing: history.missing.length,
    history_without_change: history.withoutChange.length,
    failures_in_envelope: run.failuresInEnvelope(),
    recovery_ms: run.recoveryMs(recoverySince),
  };
  reports.push(report);
  return report;
}

const HEALTHY = {
  hangs: 0, bills_lost: 0, unreadable: 0, duplicates: 0, gaps: 0, events_missing: 0, history_missing: 0, history_without_change: 0, failures_in_envelope: true,
};

/** The services' error lines grouped by log file and cause, so a failure in CI explains itself in the output. */
function errorSummary(logDir: string): string {
  const counts = new Map<string, number>();
  for (const file of readdirSync(logDir).filter((f) => /^(billing|catalogue|sessions|gateway)/.test(f))) {
    for (const line of readFileSync(join(logDir, file), 'utf8').split('\n')) {
      if (!line.includes('"level":"error"') && !line.includes('"level":"warn"')) continue;
      try {
        const entry = JSON.parse(line) as { pid?: number; msg?: string; err?: { type?: string; message?: string } | string };
        const cause = typeof entry.err === 'string' ? entry.err : entry.err ? `${entry.err.type}: ${entry.err.message}` : '';
        const key = `${file} pid ${entry.pid} ${entry.msg} ${cause}`.slice(0, 300);
        counts.set(key, (counts.get(key) ?? 0) + 1);
      } catch {
        // not a JSON line
      }
    }
  }
  return [...counts].map(([key, n]) => `  ${n} x ${key}\n`).join('');
}

function expectHealthy(report: Record<string, any>): void {
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
  expect(report.recovery_ms).not.toBeNull();
}

it('kill -9 one billing replica of two: the other keeps answering', async () => {
  const date = '2032-01-01';
  const run = load(date);
  run.start();
  await sleep(2_000);
  const faultAt = run.now();
  t.stack.replica('billing', 0).signal('SIGKILL');
  await sleep(5_000);
  await run.stop();
  const report = await verify('kill -9 billing replica 1 of 2', run, date, faultAt);
  expectHealthy(report);
  // Requests in flight to the killed replica end in 503/504, never in a hang.
  for (const status of Object.keys(report.failed_by_status)) expect(['503', '504']).toContain(status);
  t.stack.replica('billing', 0).start();
  await t.stack.waitHealthy(30_000);
});

it('restart NATS: everything reconnects by itself and no recorded event is lost', async () => {
  const date = '2032-01-02';
  const run = load(date);
  run.start();
  await sleep(2_000);
  await t.stack.infra.nats!.stop();
  await sleep(1_500);
  await t.stack.infra.startNats();
  const restartedAt = run.now();
  await sleep(6_000);
  await run.stop();
  const report = await verify('restart NATS (down 1.5 s)', run, date, restartedAt);
  expectHealthy(report);
  for (const status of Object.keys(report.failed_by_status)) expect(['503', '504', 'network']).toContain(status);
  expect(report.recovery_ms).toBeLessThan(10_000);
});

it('stop the database for a few seconds: 500s in the envelope, then recovery by itself', async () => {
  const date = '2032-01-03';
  const run = load(date);
  run.start();
  await sleep(2_000);
  await t.stack.infra.db!.stop();
  await sleep(3_000);
  await t.stack.infra.startDb();
  const restartedAt = run.now();
  await sleep(8_000);
  await run.stop();
  const report = await verify('stop the database (down 3 s)', run, date, restartedAt);
  expectHealthy(report);
  expect(report.failed_by_status['500']).toBeGreaterThan(0);
  expect(report.recovery_ms).toBeLessThan(10_000);
  for (const status of Object.keys(report.failed_by_status)) expect(['500', '503', '504']).toContain(status);
  const bodies = run.bills.flatMap((b) => b.attempts).filter((a) => a.status === 500).map((a) => a.body);
  for (const body of bodies) expect(body).toEqual({ success: false, error: 'Internal server error.' });
});

it('stop a service while reference records are published: it catches up after its restart', async () => {
  const sessions = t.stack.replica('sessions');
  await sessions.stop();
  const nc = await t.nats('hospital');
  const js = nc.jetstream();
  const stoppedAt = Date.now();
  let last = 0;
  for (let id = 1; id <= 200; id++) {
    const ack = await js.publish(refSubject('doctor'), JSON.stringify({
      id: 5000 + id, name: `Dr. Late ${id}`, reg_no: `L${id}`, specialization: 'GP', channeling_fee: 100, status: 'Active', store_id: 1,
      schedule: [{ day: 'Monday', session_no: 1, start_time: '08:00', end_time: '09:00', max_patients: null }],
    }));
    last = ack.seq;
  }
  const restartedAt = Date.now();
  sessions.start();
  await t.stack.waitHealthy(30_000);
  const ops = await t.nats('ops');
  await eventually(async () => {
    const reply = JSON.parse(new TextDecoder().decode((await ops.request(SessionsSubjects.refStatus, '{}', { timeout: 2000 })).data));
    return reply.body.applied_seq >= last ? true : undefined;
  }, 30_000, 100);
  const caughtUpAt = Date.now();
  const preview = await t.get('/preview_auto_sessions?doctor_id=5200&month=2099-02');
  expect(preview.body.preview[0]).toMatchObject({ doctor_name: 'Dr. Late 200' });
  reports.push({
    fault: 'stop sessions while 200 reference records are published',
    attempts: 0, succeeded: 0, failed_by_status: {}, hangs: 0, bills_lost: 0, duplicates: 0, gaps: 0, unconfirmed_but_stored: 0, events_missing: 0,
    bill_changes: 0, history_missing: 0, history_without_change: 0,
    records_published_while_down: 200,
    down_ms: restartedAt - stoppedAt,
    recovery_ms: caughtUpAt - restartedAt,
  });
});

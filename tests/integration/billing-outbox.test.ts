/**
 * Billing's writes and the outbox entries they store ahead of themselves,
 * against the real servers, with billing's storage layer run twice on one
 * database as two replicas would: a check that fails between storing the
 * entries and writing lets their fences go at once; a write that comes too
 * late for the sweeper of another replica is never sent; a payment whose
 * process died before storing its record is proven by its ledger entry,
 * however many writes of the bill followed; and a read after the write that
 * fails does not turn a stored payment into an error.
 */
import type { NatsConnection } from 'nats';
import { MongoNetworkError, type Db } from 'mongodb';
import { REF_KINDS_BY_SERVICE } from '@clinic/contracts';
import {
  ClinicClock,
  createLogger,
  IdAllocator,
  Outbox,
  ReferenceData,
  VersionedCache,
  WRITE_TOO_LATE_MESSAGE,
  type HandlerContext,
  type OutboxOptions,
  ScopeVersions,
  newEventId,
} from '@clinic/service-kit/internal';
import { startLocalParts, stopLocalParts, type LocalParts } from './local-parts';
import { entriesOnCreate } from '../../services/billing/src/domain/money-rules';
import { BillViews } from '../../services/billing/src/views/bill-views';
import { PaymentOperations } from '../../services/billing/src/operations/payments';
import { BillingReferences } from '../../services/billing/src/references';
import { NO_CONTROLS } from '../../services/billing/src/domain/approvals';
import { ApprovalOperations } from '../../services/billing/src/operations/approvals';
import { CashOffice } from '../../services/billing/src/operations/cash-office';
import { computeTotals, parseNewBill } from '../../services/billing/src/domain/rules';
import { BillStorage } from '../../services/billing/src/storage';
import { BILL_PAYLOADS } from '../../services/billing/src/events/bill-events';
import { fenceOf } from '../../services/billing/src/storage/day-closings';

const log = createLogger('billing-outbox-test', 'silent');
const clock = new ClinicClock('Asia/Colombo');
let parts: LocalParts;
let nc: NatsConnection;
let versions: ScopeVersions;
let db: Db;
const started: Outbox[] = [];

beforeAll(async () => {
  parts = await startLocalParts('billing-outbox', 'billing', 'clinic_billing', log);
  ({ nc, db } = parts);
  versions = new ScopeVersions(nc, 'billing', log);
  await new BillStorage(replicaDeps(), log, BILL_PAYLOADS).prepare();
}, 120_000);
// A replica's sweeper goes with its test: another test's entries are not its to settle.
afterEach(async () => {
  for (const outbox of started.splice(0)) await outbox.stop(100);
});
afterAll(async () => {
  await stopLocalParts(parts);
});

/** What one replica's storage stands on; its outbox sweeps only when `sweeping`. */
function replicaDeps(options: OutboxOptions & { sweeping?: boolean } = {}) {
  const outbox = new Outbox(db, nc.jetstream(), log, { graceMs: 60_000, ...options });
  if (options.sweeping) {
    outbox.start();
    started.push(outbox);
  }
  return { db, ids: new IdAllocator(db), outbox, cache: new VersionedCache(versions), clock };
}

function replica(options: OutboxOptions & { sweeping?: boolean } = {}) {
  const deps = replicaDeps(options);
  const storage = new BillStorage(deps, log, BILL_PAYLOADS);
  const refs = new ReferenceData(db, REF_KINDS_BY_SERVICE.billing);
  const references = new BillingReferences(refs, deps.cache);
  const views = new BillViews(references, clock);
  const office = new CashOffice(storage, references, clock, { shifts: false, moneyNeedsStaff: false });
  const approvals = new ApprovalOperations(storage, references, clock);
  const payments = new PaymentOperations(
    storage,
    views,
    clock,
    { refundRoles: ['admin', 'cashier'] },
    {
      office,
      approvals,
      controls: NO_CONTROLS,
    },
  );
  return { storage, outbox: deps.outbox, refs, payments };
}

const cashier = { sub: 7, role: 'cashier' } as const;
const ctx = (idempotencyKey: string | null = null): HandlerContext => ({
  caller: cashier,
  token: null,
  correlationId: 'billing-outbox-test',
  idempotencyKey,
  ifMatch: null,
  share: () => undefined,
  log,
});
const today = () => (clock.timestamp(new Date()) as string).slice(0, 10);

async function newBill(storage: BillStorage, storeId: number, payment_status = 'Pending'): Promise<number> {
  const input = parseNewBill(
    {
      patient_name: 'Nimal',
      patient_contact: '0771234567',
      bill_date: '2091-04-01',
      payment_method: 'Cash',
      payment_status,
      store_id: storeId,
      items: [{ charge_id: 1, charge_name: 'CBC', unit_price: 850, qty: 2 }],
    },
    cashier,
  );
  const totals = computeTotals(input.items, input.discount_type, input.discount_value);
  const { doc } = await storage.newBills.create(input, totals, {
    correlationId: 'billing-outbox-test',
    actor: cashier,
    idempotency: null,
    entries: entriesOnCreate(
      { ...input, grand_total_cents: totals.grand_total },
      {
        by: cashier,
        day: today(),
        at: new Date(),
        newId: newEventId,
        drawer: { user: cashier.sub, shift_id: null },
      },
    ),
  });
  return doc.id;
}

const pay = (payments: PaymentOperations, billId: number, amount: number, key: string | null = null) =>
  payments.pay({ params: { bill_id: String(billId) }, body: { amount, method: 'Cash' } }, ctx(key));

const storedOutbox = () => db.collection('outbox').countDocuments({});
/** Entries fenced with a day of this branch: the bills' date or today. */
const fencedEntries = (storeId: number) =>
  db
    .collection('outbox')
    .countDocuments({ fences: { $in: [fenceOf(storeId, '2091-04-01'), fenceOf(storeId, today())] } });
const ledgerOf = async (billId: number) =>
  ((await db.collection('bills').findOne({ id: billId }))?.ledger ?? []) as Array<{ id: string }>;
const networkError = () => new MongoNetworkError('connection reset while reading the day closings');

async function until(check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('a check between the outbox entries and the write fails', () => {
  it('bill creation: the entries and their day fences go at once, not at the next restart', async () => {
    const { storage, outbox } = replica();
    const closedAmong = storage.closings.closedAmong.bind(storage.closings);
    storage.closings.closedAmong = async () => {
      throw networkError();
    };
    await expect(newBill(storage, 11, 'Paid')).rejects.toThrow('connection reset');
    // This process owns the entries, so no sweeper of its own would ever drop them; a close of either day
    // would wait for them until it timed out.
    expect(await outbox.holdsFence(fenceOf(11, '2091-04-01'))).toBe(false);
    expect(await outbox.holdsFence(fenceOf(11, today()))).toBe(false);
    expect(await fencedEntries(11)).toBe(0);
    storage.closings.closedAmong = closedAmong;
    expect(await newBill(storage, 11)).toEqual(expect.any(Number));
  });

  it('a payment: its entry and the fence of today go at once', async () => {
    const { storage, outbox, payments } = replica();
    const billId = await newBill(storage, 12);
    storage.closings.assertOpen = async () => {
      throw networkError();
    };
    await expect(pay(payments, billId, 100)).rejects.toThrow('connection reset');
    expect(await outbox.holdsFence(fenceOf(12, today()))).toBe(false);
    expect(await db.collection('outbox').countDocuments({ fences: fenceOf(12, today()) })).toBe(0);
    expect(await ledgerOf(billId)).toEqual([]);
  });
});

it('never sends a write once the sweeper of another replica may have given up on its entry', async () => {
  // Replica A records a payment and is held up before writing it (its guard takes 1.5 s) while replica B's
  // sweeper, with a grace period of 1 s, finds A's entry and no payment on the bill, and drops it. Were A's
  // write sent then, the payment would be on the bill without its drawer record and without its event.
  const a = replica({ graceMs: 1_000 });
  replica({ graceMs: 1_000, sweepIntervalMs: 100, sweeping: true });
  const billId = await newBill(replica().storage, 13);
  const assertOpen = a.storage.closings.assertOpen.bind(a.storage.closings);
  a.storage.closings.assertOpen = async (storeId, dates) => {
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    return assertOpen(storeId, dates);
  };
  await expect(pay(a.payments, billId, 100)).rejects.toMatchObject({ status: 503, message: WRITE_TOO_LATE_MESSAGE });
  await new Promise((resolve) => setTimeout(resolve, 500));
  expect(await ledgerOf(billId)).toEqual([]);
  expect(await db.collection('bill_ledger').countDocuments({ bill_id: billId })).toBe(0);
});

it('proves a payment by its ledger entry when its process died before storing its record, 20 writes later', async () => {
  // Replica A's payment lands, but its drawer record cannot be stored (a unique index refuses it for now), so it
  // stays in the outbox, unpublished, when A dies. Replica B then pays the same bill 21 times, which pushes the
  // payment's event id out of the ids the bill keeps (EVENT_IDS_KEPT). The sweeper must still find it landed.
  const a = replica();
  const b = replica();
  const billId = await newBill(b.storage, 14);
  const records = db.collection('bill_ledger');
  await records.createIndex({ amount_cents: 1 }, { unique: true, name: 'refuse_for_now' });
  await records.insertOne({ _id: 'blocker' as never, amount_cents: 123 });
  try {
    const paid = await pay(a.payments, billId, 1.23);
    expect(paid.status).toBe(201);
    // Dead: what it holds stays in the database (its relay gives up while the record is still refused).
    await a.outbox.stop(5_000);
  } finally {
    await records.deleteOne({ _id: 'blocker' as never });
    await records.dropIndex('refuse_for_now');
  }
  const [first] = await ledgerOf(billId);
  expect(await records.findOne({ _id: first!.id as never })).toBeNull();
  for (let i = 0; i < 21; i++) expect((await pay(b.payments, billId, 0.01)).status).toBe(201);
  const bill = await db.collection('bills').findOne({ id: billId });
  expect(bill?._event_ids).not.toContain(first!.id);

  replica({ graceMs: 500, sweepIntervalMs: 100, sweeping: true });
  await until(async () => (await storedOutbox()) === 0);
  expect(await records.findOne({ _id: first!.id as never })).toMatchObject({ bill_id: billId, amount_cents: 123 });
  expect(await records.countDocuments({ bill_id: billId })).toBe(22);
});

it('answers a stored payment 201 when the names read after it fails', async () => {
  const { storage, refs, payments } = replica();
  const billId = await newBill(storage, 15);
  refs.many = async () => {
    throw networkError();
  };
  const res = await pay(payments, billId, 100, 'names-key');
  expect(res.status).toBe(201);
  expect(res.body).toMatchObject({ success: true, bill: { id: billId, billed_by_name: null } });
  expect(await ledgerOf(billId)).toHaveLength(1);
});

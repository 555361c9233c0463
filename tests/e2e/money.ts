/**
 * What the tests of a bill's money share: a stack seeded with
 * branches that each test may own (the drawer is per branch and day, and the
 * day money moves on is today), bills, payments and refunds through the
 * gateway, and the clinic's today.
 */
import dayjs from 'dayjs';
import timezone from 'dayjs/plugin/timezone';
import utc from 'dayjs/plugin/utc';
import { MongoClient } from 'mongodb';
import { EventReader } from './events';
import { ADMIN_USER, cbcIn, DILANI, KASUN } from './fixtures';
import { sleep, startTestStack, TEST_TZ, type RequestOptions, type TestStack, type TestStackOptions } from './harness';

dayjs.extend(utc);
dayjs.extend(timezone);

export interface MoneyStack {
  t: TestStack;
  /** The charge billed in each branch (850 in the catalogue). */
  charge(store: number): number;
  /** A branch no other test of the file uses. */
  freshStore(): number;
}

export const USERS = [ADMIN_USER, KASUN, DILANI];

export async function startMoneyStack(stores = 40, options: TestStackOptions = {}): Promise<MoneyStack> {
  const t = await startTestStack(options);
  const ids = Array.from({ length: stores }, (_, i) => i + 1);
  await t.seed({ stores: ids.map((id) => ({ id, name: `Branch ${id}`, status: 'active' })), users: USERS });
  const charges = new Map<number, number>();
  for (const store of ids) charges.set(store, await cbcIn(t, store));
  let next = 0;
  return {
    t,
    charge: (store) => charges.get(store)!,
    freshStore: () => {
      next++;
      if (next > stores) throw new Error('no branch left for this test');
      return next;
    },
  };
}

/**
 * The file's stack, started before its tests and stopped after them, with a
 * reader of billing's events when `withEvents`: read them once beforeAll has run.
 */
export function moneyStackOfFile(
  stores: number,
  options: TestStackOptions & { withEvents?: boolean } = {},
): { stack(): MoneyStack; events(): EventReader } {
  let m: MoneyStack | undefined;
  let events: EventReader | undefined;
  beforeAll(async () => {
    m = await startMoneyStack(stores, options);
    if (options.withEvents) events = await EventReader.start(await m.t.nats('hospital'), 'BILLING_EVENTS');
  }, 120_000);
  afterAll(async () => {
    events?.stop();
    await m?.t.stop();
  });
  return { stack: () => m!, events: () => events! };
}

/** A bill of `qty` CBCs at 850 (so its total is 850 x qty unless `overrides` say otherwise). */
export async function createBill(
  m: MoneyStack,
  store: number,
  overrides: Record<string, unknown> = {},
  options: RequestOptions = {},
  qty = 1,
): Promise<number> {
  const res = await m.t.post(
    '/lab_bills',
    {
      patient_name: 'Nimal Fernando',
      patient_contact: '0771234567',
      bill_date: '2096-03-01',
      payment_method: 'Cash',
      payment_status: 'Pending',
      store_id: store,
      items: [{ charge_id: m.charge(store), charge_name: 'CBC', unit_price: 850, qty }],
      ...overrides,
    },
    options,
  );
  if (res.status !== 201) throw new Error(`bill not created: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.bill_id;
}

export const pay = (m: MoneyStack, billId: number, body: unknown, options: RequestOptions = {}) =>
  m.t.post(`/lab_bills/${billId}/payments`, body, options);

export const refund = (m: MoneyStack, billId: number, body: unknown, options: RequestOptions = {}) =>
  m.t.post(`/lab_bills/${billId}/refunds`, body, options);

export async function readBill(m: MoneyStack, billId: number) {
  const res = await m.t.get(`/lab_bills/${billId}`);
  if (res.status !== 200) throw new Error(`bill ${billId} not read: ${res.status}`);
  return res.body.bill;
}

export async function ledgerOf(m: MoneyStack, billId: number) {
  const res = await m.t.get(`/lab_bills/${billId}/payments`);
  if (res.status !== 200) throw new Error(`ledger of ${billId} not read: ${res.status}`);
  return res.body;
}

export async function dayEnd(m: MoneyStack, store: number, date: string) {
  const res = await m.t.get(`/lab_bills/day_end?store_id=${store}&date=${date}`);
  if (res.status !== 200) throw new Error(`day-end not read: ${res.status}`);
  return res.body.report;
}

/** The clinic's clock, read independently of the services' (as the receipt tests read it). */
const clinicTime = () => dayjs().tz(TEST_TZ).format('YYYY-MM-DD HH:mm:ss');

/** The clinic's today (the day money moves on), as the services' clock sees it. */
export const clinicToday = (): string => clinicTime().slice(0, 10);

/**
 * Waits, if the clinic's clock is within `marginS` of midnight, until the next
 * day has begun: a test that closes today and then moves money must not see
 * today change between the two.
 */
export async function awayFromMidnight(marginS = 90): Promise<void> {
  const [h, min, s] = clinicTime().slice(11).split(':').map(Number) as [number, number, number];
  const left = 86_400 - (h * 3600 + min * 60 + s);
  if (left <= marginS) await sleep((left + 2) * 1000);
}

/** The records billing keeps of the bills' money for the drawer (bill_ledger), read from the database. */
export async function ledgerRecords(t: TestStack, filter: Record<string, unknown>) {
  const mongo = await MongoClient.connect(t.stack.infra.mongoUrl);
  try {
    return await mongo.db('clinic_billing').collection('bill_ledger').find(filter).toArray();
  } finally {
    await mongo.close();
  }
}

/** The sum of amounts in cents of entries matching `pick`, money given back counted negative. */
export const netCents = (entries: Array<{ kind: string; amount: number }>) =>
  entries.reduce((sum, e) => sum + (e.kind === 'payment' ? 1 : -1) * Math.round(e.amount * 100), 0);

/**
 * Issue 44: the clinic's own clock. With every process of the stack at 23:30
 * UTC (libfaketime; nats-server and the database keep the real clock), a
 * clinic in Colombo is at 05:00 the next day: what it bills, takes and prints
 * carries Colombo's date and time, its "today" is Colombo's (the day can be
 * closed, yesterday's session is past), never UTC's.
 */
import { existsSync } from 'node:fs';
import { DILANI, doctor } from './fixtures';
import { fileStack, type RequestOptions } from './harness';
import { PdfTools } from './pdf-tools';

/** 23:30 UTC on a day no other test uses: 05:00 in Colombo (UTC+05:30) on the next. */
const FAKE_NOW = Date.parse('2093-03-14T23:30:00Z');
const UTC_DAY = '2093-03-14';
const COLOMBO_DAY = '2093-03-15';
const LIBFAKETIME = [
  '/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1',
  '/usr/lib/aarch64-linux-gnu/faketime/libfaketime.so.1',
  '/usr/lib/faketime/libfaketime.so.1',
  '/usr/local/lib/faketime/libfaketime.so.1',
].find((path) => existsSync(path));
if (!LIBFAKETIME) throw new Error('libfaketime is needed: apt-get install faketime (scripts/bootstrap.sh does)');

/**
 * One offset for every process, this one's Date included, so that their clocks agree with each other: a
 * request's deadline, a token's times, a seed's.
 */
const offsetSeconds = Math.round((FAKE_NOW - Date.now()) / 1000);
jest.useFakeTimers({
  now: Date.now() + offsetSeconds * 1000,
  advanceTimers: true,
  doNotFake: [
    'hrtime',
    'nextTick',
    'performance',
    'queueMicrotask',
    'setImmediate',
    'clearImmediate',
    'setInterval',
    'clearInterval',
    'setTimeout',
    'clearTimeout',
  ],
});
const t = fileStack(
  {
    stores: [{ id: 1, name: 'Colombo', status: 'active' }],
    users: [DILANI],
    doctors: [doctor(5, { store_id: 1 })],
  },
  {
    env: {
      CLINIC_TZ: 'Asia/Colombo',
      LD_PRELOAD: LIBFAKETIME,
      FAKETIME: `${offsetSeconds >= 0 ? '+' : ''}${offsetSeconds}s`,
    },
  },
);

/** A token of this role, signed on the stack's clock (this process's Date is on it). */
const as = (role: string, sub: number): RequestOptions => ({ token: t.token(role, sub) });

let tools: PdfTools;
beforeAll(() => {
  tools = new PdfTools();
});
afterAll(() => tools?.remove());

describe('a clinic in Colombo at 23:30 UTC', () => {
  it('dates what it bills, takes and prints by Colombo’s clock', async () => {
    const admin = as('admin', 1);
    const charge = await t.post(
      '/hospital_charges',
      { store_id: 1, charge_name: 'CBC', charge_type: 'Lab', amount: 850 },
      admin,
    );
    expect(charge.status).toBe(201);
    const created = await t.post(
      '/lab_bills',
      {
        patient_name: 'Nimal Fernando',
        patient_contact: '0771234567',
        bill_date: COLOMBO_DAY,
        store_id: 1,
        payment_method: 'Cash',
        items: [{ charge_id: charge.body.charge_id, charge_name: 'CBC', unit_price: 850, qty: 1 }],
      },
      as('cashier', DILANI.id),
    );
    expect(created.status).toBe(201);
    const id = created.body.bill_id;
    const bill = (await t.get(`/lab_bills/${id}`, admin)).body.bill;
    expect(bill.created_at).toMatch(new RegExp(`^${COLOMBO_DAY} 0[5-6]:`));
    const payment = (await t.get(`/lab_bills/${id}/payments`, admin)).body.ledger[0];
    expect(payment.day).toBe(COLOMBO_DAY);
    expect(payment.at.slice(0, 10)).toBe(COLOMBO_DAY);

    const res = await fetch(`${t.url}/lab_bills/${id}/receipt`, {
      headers: { authorization: `Bearer ${as('cashier', 8).token}` },
    });
    expect(res.status).toBe(200);
    const lines = tools.text(Buffer.from(await res.arrayBuffer()), '-layout').split('\n');
    expect(lines).toContain(`Billed at ${bill.created_at}`);
    expect(lines.find((line) => line.startsWith('Printed '))).toMatch(new RegExp(`^Printed ${COLOMBO_DAY} 0[5-6]:`));

    // The day's money is Colombo's day's; today (Colombo's) can be closed, UTC's date is yesterday there.
    const report = (await t.get(`/lab_bills/day_end?store_id=1&date=${COLOMBO_DAY}`, admin)).body.report;
    expect(report.drawer).toEqual([expect.objectContaining({ user_id: DILANI.id, cash_in_drawer: 850 })]);
    expect((await t.get(`/lab_bills/day_end?store_id=1&date=${UTC_DAY}`, admin)).body.report.drawer).toBeUndefined();
    const closed = await t.post('/lab_bills/day_close', { store_id: 1, date: COLOMBO_DAY }, admin);
    expect({ status: closed.status, closed_at: closed.body.closing?.closed_at?.slice(0, 10) }).toEqual({
      status: 201,
      closed_at: COLOMBO_DAY,
    });
  });

  it('takes Colombo’s today for sessions: UTC’s date is a day in the past', async () => {
    const admin = as('admin', 1);
    const session = (date: string) =>
      t.post(
        '/add_session',
        { doctor_id: 5, session_date: date, session_no: 1, start_time: '18:00', end_time: '20:00' },
        admin,
      );
    expect((await session(UTC_DAY)).status).toBe(422);
    expect((await session(COLOMBO_DAY)).status).toBe(201);
  });
});

/**
 * Closing a branch's day (point 6): expected against counted cash
 * per user, then bills dated that day and money moving on it refused with
 * 409; reading and reopening the day; every role and refusal; the events. The
 * stack narrows REFUND_ROLES and PRICE_OVERRIDE_ROLES, which are checked here too.
 */
import { EventSubjects } from '@clinic/contracts';
import type { EventReader } from './events';
import {
  awayFromMidnight,
  clinicToday,
  createBill,
  pay,
  readBill,
  refund,
  moneyStackOfFile,
  type MoneyStack,
} from './money';
import { failureOf, expectRefusals } from './harness';

const file = moneyStackOfFile(12, {
  env: { REFUND_ROLES: 'admin', PRICE_OVERRIDE_ROLES: 'admin,cashier' },
  withEvents: true,
});
let m: MoneyStack;
let events: EventReader;
beforeAll(() => {
  m = file.stack();
  events = file.events();
});

const close = (body: unknown, options = {}) => m.t.post('/lab_bills/day_close', body, options);
const closing = (store: number, date: string, options = {}) =>
  m.t.get(`/lab_bills/day_close?store_id=${store}&date=${date}`, options);
const reopen = (store: number, date: string, body: unknown, options = {}) =>
  m.t.request('DELETE', `/lab_bills/day_close?store_id=${store}&date=${date}`, body, options);
const closedError = (date: string, store: number) => ({
  success: false,
  error: `Day ${date} is closed for store ${store}.`,
  code: 'DAY_CLOSED',
});

describe('POST /lab_bills/day_close', () => {
  it('closes today: expected against counted cash per user; money moving today is refused until it reopens', async () => {
    await awayFromMidnight();
    const store = m.freshStore();
    const today = clinicToday();
    const kasun = { role: 'cashier', sub: 7 };
    const dilani = { role: 'receptionist', sub: 8 };
    await createBill(m, store, { payment_status: 'Paid' }, kasun); // Kasun: cash 850
    const pending = await createBill(m, store, {}, {}, 2); // 1700
    await pay(m, pending, { amount: 1000, method: 'Cash', received_amount: 1000 }, dilani); // Dilani: cash 1000
    await pay(m, pending, { amount: 200, method: 'Card' }, kasun);
    const open = await createBill(m, store, {}, {}, 1);

    const res = await close({
      store_id: store,
      date: today,
      counted_cash: [
        { user_id: 7, amount: 800 },
        { user_id: 8, amount: 1000 },
      ],
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      success: true,
      message: 'Day closed successfully.',
      closing: {
        store_id: store,
        date: today,
        status: 'closed',
        closed_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/),
        closed_by: { sub: 1, role: 'admin' },
        cash: [
          { user_id: 7, user_name: 'Kasun Silva', expected: 850, counted: 800, difference: -50, outcome: 'short' },
          { user_id: 8, user_name: 'Dilani Perera', expected: 1000, counted: 1000, difference: 0, outcome: 'balanced' },
        ],
        history: [{ action: 'closed', at: expect.any(String), by: { sub: 1, role: 'admin' }, cash: expect.any(Array) }],
      },
    });
    expect((await closing(store, today, { role: 'cashier' })).body.closing).toEqual(res.body.closing);

    // Money moving today, in every way, is refused and changes nothing.
    const refusals = [
      await pay(m, pending, { amount: 100, method: 'Cash' }),
      await refund(m, pending, { amount: 100, method: 'Cash', reason: 'r' }),
      await m.t.put(`/lab_bills/${open}`, { payment_status: 'Paid' }),
      await m.t.del(`/lab_bills/${pending}`),
      await m.t.post('/lab_bills', {
        patient_name: 'P',
        patient_contact: 'C',
        bill_date: '2096-07-01',
        payment_method: 'Cash',
        store_id: store,
        items: [{ charge_id: m.charge(store), charge_name: 'CBC', unit_price: 850, qty: 1 }],
      }),
    ];
    for (const r of refusals)
      expect({ status: r.status, body: r.body }).toEqual({ status: 409, body: closedError(today, store) });
    expect(await readBill(m, pending)).toMatchObject({ paid_amount: 1200, refunded_amount: 0, status: 'active' });
    expect(await readBill(m, open)).toMatchObject({ payment_status: 'Pending', paid_amount: 0 });
    // What moves no money today, on another day's bill, still goes through.
    expect((await m.t.put(`/lab_bills/${open}`, { notes: 'call back' })).status).toBe(200);
    expect(await createBill(m, store, { bill_date: '2096-07-02' })).toEqual(expect.any(Number));
    // Another branch's today is open.
    expect((await pay(m, await createBill(m, m.freshStore()), { amount: 10, method: 'Cash' })).status).toBe(201);

    expect((await close({ store_id: store, date: today })).body).toEqual({
      success: false,
      error: `Day ${today} is already closed for store ${store}.`,
      code: 'DAY_ALREADY_CLOSED',
    });
    const reopened = await reopen(store, today, { reason: ' Counted before the last patient paid ' });
    expect(reopened.status).toBe(200);
    expect(reopened.body.closing).toMatchObject({ status: 'open', closed_at: null, closed_by: null, cash: [] });
    expect(reopened.body.closing.history.map((h: any) => [h.action, h.reason])).toEqual([
      ['closed', undefined],
      ['reopened', 'Counted before the last patient paid'],
    ]);
    expect((await pay(m, pending, { amount: 100, method: 'Cash' })).status).toBe(201);
    // Closed again, it counts what moved since.
    const again = await close({ store_id: store, date: today });
    expect(again.body.closing.cash.map((c: any) => [c.user_id, c.expected, c.outcome])).toEqual([
      [1, 100, 'not counted'],
      [7, 850, 'not counted'],
      [8, 1000, 'not counted'],
    ]);
    const published = await events.waitFor(
      (e) => e.subject.startsWith('billing.day.') && e.event.data.closing.store_id === store,
      3,
    );
    expect(published.map((e) => [e.subject, e.event.data.closing.status])).toEqual([
      [EventSubjects.dayClosed, 'closed'],
      [EventSubjects.dayReopened, 'open'],
      [EventSubjects.dayClosed, 'closed'],
    ]);
  });

  it('closes a past day: its bills can no longer be created, changed or cancelled; their debts can still be paid today', async () => {
    const store = m.freshStore();
    const past = '2001-05-10';
    const owed = await createBill(m, store, { bill_date: past }); // back-dated before the close: allowed
    const other = await createBill(m, store, { bill_date: past });
    expect((await close({ store_id: store, date: past })).status).toBe(201);
    const refusals = [
      await m.t.post('/lab_bills', {
        patient_name: 'P',
        patient_contact: 'C',
        bill_date: past,
        payment_method: 'Card',
        payment_status: 'Pending',
        store_id: store,
        items: [{ charge_id: m.charge(store), charge_name: 'CBC', unit_price: 850, qty: 1 }],
      }),
      await m.t.put(`/lab_bills/${other}`, { notes: 'late' }),
      await m.t.del(`/lab_bills/${other}`),
    ];
    for (const r of refusals)
      expect({ status: r.status, body: r.body }).toEqual({ status: 409, body: closedError(past, store) });
    expect((await m.t.get(`/lab_bills?store_id=${store}&date=${past}`)).body.total).toBe(2);
    // Money moves today, which is open: an old debt is paid.
    expect((await pay(m, owed, { amount: 850, method: 'Cash' })).status).toBe(201);
    expect((await closing(store, past)).body.closing).toMatchObject({ status: 'closed', cash: [] });
  });

  it('refuses what cannot be closed, and is for admins; reading is for staff', async () => {
    await awayFromMidnight();
    const store = m.freshStore();
    const today = clinicToday();
    const cases: Array<[unknown, number, string]> = [
      [undefined, 400, 'Request body must be a JSON object.'],
      [{ date: today }, 400, 'store_id is required.'],
      [{ store_id: store }, 400, 'date is required.'],
      [{ store_id: store, date: '2001-02-30' }, 400, 'date must be a date in YYYY-MM-DD format.'],
      [
        { store_id: store, date: '2099-12-31' },
        400,
        `date must not be after today, ${today}: a day is closed once it has begun.`,
      ],
      [{ store_id: store, date: today, counted_cash: 'x' }, 400, 'counted_cash must be a list.'],
      [{ store_id: store, date: today, counted_cash: [{ user_id: 7 }] }, 400, 'counted_cash[0].amount is required.'],
      [
        { store_id: store, date: today, counted_cash: [{ user_id: 7, amount: -1 }] },
        400,
        'counted_cash[0].amount must be a number greater than or equal to 0.',
      ],
      [
        { store_id: store, date: today, counted_cash: [{ user_id: true, amount: 1 }] },
        400,
        'counted_cash[0].user_id must be an integer or a text of 1 to 200 characters.',
      ],
      [
        {
          store_id: store,
          date: today,
          counted_cash: [
            { user_id: 7, amount: 1 },
            { user_id: 7, amount: 2 },
          ],
        },
        400,
        'counted_cash lists user 7 more than once.',
      ],
      [{ store_id: 987, date: today }, 404, 'Store not found or inactive.'],
    ];
    await expectRefusals(cases, close);
    expect((await closing(store, today)).body.closing).toEqual({
      store_id: store,
      date: today,
      status: 'open',
      closed_at: null,
      closed_by: null,
      cash: [],
      history: [],
    });
    const forbidden = {
      success: false,
      error: 'You do not have permission to perform this action.',
      code: 'FORBIDDEN',
    };
    for (const role of ['cashier', 'receptionist', 'doctor']) {
      expect((await close({ store_id: store, date: today }, { role })).body).toEqual(forbidden);
      expect((await reopen(store, today, { reason: 'r' }, { role })).body).toEqual(forbidden);
    }
    for (const role of ['admin', 'cashier', 'receptionist'])
      expect((await closing(store, today, { role })).status).toBe(200);
    expect((await closing(store, today, { role: 'doctor' })).status).toBe(403);
    expect((await m.t.get('/lab_bills/day_close?store_id=1')).body).toEqual(failureOf('date is required.'));
    expect((await reopen(store, '2001-01-01', { reason: 'r' })).body).toEqual({
      success: false,
      error: `Day 2001-01-01 is not closed for store ${store}.`,
      code: 'DAY_NOT_CLOSED',
    });
    expect((await reopen(store, '2001-01-01', {})).body).toEqual(
      failureOf('reason is required: give the reason for reopening the day.'),
    );
  });
});

describe('REFUND_ROLES and PRICE_OVERRIDE_ROLES', () => {
  it('narrow who may give money back and who may bill at another price than the catalogue’s', async () => {
    const store = m.freshStore();
    const id = await createBill(m, store, { payment_status: 'Paid' });
    const forbidden = {
      success: false,
      error: 'You do not have permission to perform this action.',
      code: 'FORBIDDEN',
    };
    expect((await refund(m, id, { amount: 1, method: 'Cash', reason: 'r' }, { role: 'cashier' })).body).toEqual(
      forbidden,
    );
    expect((await refund(m, id, { amount: 1, method: 'Cash', reason: 'r' }, { role: 'admin' })).status).toBe(201);
    const body = (unit_price: number) => ({
      patient_name: 'P',
      patient_contact: 'C',
      bill_date: '2096-08-01',
      payment_method: 'Card',
      store_id: store,
      items: [{ charge_id: m.charge(store), charge_name: 'CBC', unit_price, qty: 1 }],
    });
    const overridden = await m.t.post('/lab_bills', body(800), { role: 'receptionist' });
    expect({ status: overridden.status, body: overridden.body }).toEqual({
      status: 403,
      body: {
        success: false,
        error: `You may not bill charge(s) ${m.charge(store)} at a price other than the catalogue's.`,
        code: 'PRICE_OVERRIDE_FORBIDDEN',
        field: 'items',
      },
    });
    expect((await m.t.post('/lab_bills', body(850), { role: 'receptionist' })).status).toBe(201);
    expect((await m.t.post('/lab_bills', body(800), { role: 'cashier' })).status).toBe(201);
    expect((await m.t.get(`/lab_bills?store_id=${store}`)).body.total).toBe(3);
  });
});

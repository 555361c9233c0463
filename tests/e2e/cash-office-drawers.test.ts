/**
 * Every money move has a drawer, shifts off: a cancellation's
 * refund comes out of the cashier's drawer that took the money, not the
 * admin's who cancelled (the Admin -1,200 / Dilani +1,200); closing
 * counts only known staff who handled the branch's cash that day (user 7,
 * unknown, used to read "over 50"); with MONEY_NEEDS_STAFF a token whose
 * subject maps to no staff user reads but moves no money.
 */
import { chargeIn } from './fixtures';
import { answerOf, failureOf } from './harness';
import { awayFromMidnight, clinicToday, createBill, dayEnd, ledgerOf, pay, readBill, type MoneyStack } from './money';
import {
  ADMIN,
  answer,
  cashOfficeStackOfFile,
  DILANI_CASHIER,
  KASUN_CASHIER,
  NIMALI,
  NIMALI_CASHIER,
  refusal,
  STRANGER,
} from './cash-office-stack';

const file = cashOfficeStackOfFile(4, { MONEY_NEEDS_STAFF: 'true' });
let m: MoneyStack;
beforeAll(() => {
  m = file.stack();
});

const close = (body: unknown) => m.t.post('/lab_bills/day_close', body);
const unknownCounter = (i: number) =>
  failureOf(
    `counted_cash[${i}].user_id must name a known staff user who handled the branch's cash that day (a shift, or money moved).`,
  );

it('refunds a cancellation out of the drawer that took the money, so both drawers balance at the close', async () => {
  await awayFromMidnight();
  const store = m.freshStore();
  const ecg = await chargeIn(m.t, store, 'ECG', 1200);
  const bill = await createBill(
    m,
    store,
    { bill_date: clinicToday(), items: [{ charge_id: ecg, charge_name: 'ECG', unit_price: 1200, qty: 1 }] },
    DILANI_CASHIER,
  );
  expect((await pay(m, bill, { amount: 1200, method: 'Cash' }, DILANI_CASHIER)).status).toBe(201);
  expect((await m.t.request('DELETE', `/lab_bills/${bill}`, { reason: 'Wrong patient' }, ADMIN)).status).toBe(200);
  const given = (await m.t.get(`/lab_bills/${bill}/history`)).body.history.at(-1).ledger[0];
  expect(given).toMatchObject({ kind: 'refund', amount: 1200, by: { sub: 1 }, drawer: { user_id: 8, shift_id: null } });

  const report = await dayEnd(m, store, clinicToday());
  expect(report.drawer).toEqual([
    {
      user_id: 8,
      user_name: 'Dilani Perera',
      collected: { Cash: 1200, Card: 0, Online: 0 },
      refunded: { Cash: 1200, Card: 0, Online: 0 },
      cash_in_drawer: 0,
    },
  ]);
  // Counts of somebody who handled no cash of the branch that day, or of nobody the directory knows, are refused.
  const today = clinicToday();
  expect(answer(await close({ store_id: store, date: today, counted_cash: [{ user_id: 1, amount: 0 }] }))).toEqual({
    status: 400,
    body: unknownCounter(0),
  });
  const stranger = [
    { user_id: 8, amount: 0 },
    { user_id: 7, amount: 50 },
  ];
  expect((await close({ store_id: store, date: today, counted_cash: stranger })).body).toEqual(unknownCounter(1));
  expect((await m.t.get(`/lab_bills/day_close?store_id=${store}&date=${today}`)).body.closing.status).toBe('open');
  const closed = await close({ store_id: store, date: today, counted_cash: [{ user_id: 8, amount: 0 }] });
  expect(closed.body.closing.cash).toEqual([
    { user_id: 8, user_name: 'Dilani Perera', expected: 0, counted: 0, difference: 0, outcome: 'balanced' },
  ]);
});

it('sets a bill back to Pending out of the drawer that took its payment', async () => {
  await awayFromMidnight();
  const store = m.freshStore();
  const bill = await createBill(m, store, { payment_status: 'Paid' }, KASUN_CASHIER);
  expect((await m.t.put(`/lab_bills/${bill}`, { payment_status: 'Pending' }, DILANI_CASHIER)).status).toBe(200);
  const [payment, reversal] = (await ledgerOf(m, bill)).ledger;
  expect([payment.drawer, reversal.drawer, reversal.by.sub]).toEqual([
    { user_id: 7, shift_id: null },
    { user_id: 7, shift_id: null },
    8,
  ]);
  const report = await dayEnd(m, store, clinicToday());
  expect(report.drawer.map((d: any) => [d.user_id, d.cash_in_drawer])).toEqual([[7, 0]]);
});

it('moves money only for staff: a subject a user record carries is that user; one none carries reads only', async () => {
  await awayFromMidnight();
  const store = m.freshStore();
  // A Pending bill moves no money: anybody staff may make it, as the spec has it.
  const pending = await createBill(m, store, {}, STRANGER);
  expect(await readBill(m, pending)).toMatchObject({ billed_by: null, billed_by_name: null });
  const staffOnly = refusal('STAFF_UNKNOWN', 'Your sign-in maps to no staff user: you may read, not move money.');
  expect(answer(await pay(m, pending, { amount: 10, method: 'Cash' }, STRANGER))).toEqual({
    status: 403,
    body: staffOnly,
  });
  const paidNew = await m.t.post(
    '/lab_bills',
    {
      patient_name: 'Nimal Fernando',
      patient_contact: '0771234567',
      bill_date: clinicToday(),
      payment_method: 'Cash',
      payment_status: 'Paid',
      store_id: store,
      items: [{ charge_id: m.charge(store), charge_name: 'CBC', unit_price: 850, qty: 1 }],
    },
    STRANGER,
  );
  expect(answer(paidNew)).toEqual({ status: 403, body: staffOnly });
  expect((await m.t.get(`/lab_bills?store_id=${store}`)).body.total).toBe(1);
  expect(await readBill(m, pending)).toMatchObject({ paid_amount: 0 });

  // Through the typed client, as a front end signed in at the identity provider pays.
  const paid = await answerOf(
    m.t.api(NIMALI_CASHIER).POST('/lab_bills/{bill_id}/payments', {
      params: { path: { bill_id: pending } },
      body: { amount: 850, method: 'Cash' },
    }),
  );
  expect(paid.status).toBe(201);
  expect(paid.body.payment).toMatchObject({ by: { sub: NIMALI.subject }, drawer: { user_id: NIMALI.id } });
  const report = await dayEnd(m, store, clinicToday());
  expect(report.drawer.map((d: any) => [d.user_id, d.user_name, d.cash_in_drawer])).toEqual([
    [NIMALI.id, NIMALI.name, 850],
  ]);
});

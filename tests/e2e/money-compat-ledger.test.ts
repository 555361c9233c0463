/**
 * What the spec's own writes mean for the ledger (points 4 and 5):
 * a bill created Paid, a PUT of payment_status or payment_method, a
 * cancellation; the edge cases docs/api.md lists; and the day-end report's
 * drawer (money by the day it moved and by who took it, owed amounts apart),
 * which agrees with the old API over random sequences of its calls.
 */
import { awayFromMidnight, clinicToday, createBill, ledgerOf, ledgerRecords, pay, readBill, refund } from './money';
import { m, entries, put } from './money-compat-stack';

describe('the spec’s writes in the ledger', () => {
  it('records a payment of its total by the caller when a bill is created Paid, and none when it is Pending', async () => {
    await awayFromMidnight();
    await awayFromMidnight();
    const store = m.freshStore();
    const paid = await createBill(
      m,
      store,
      { payment_status: 'Paid', received_amount: 1000, balance_amount: 150 },
      { role: 'cashier', sub: 7 },
    );
    const [entry] = (await ledgerOf(m, paid)).ledger;
    expect(entry).toMatchObject({
      kind: 'payment',
      amount: 850,
      method: 'Cash',
      received_amount: 1000,
      change_amount: 150,
      by: { sub: 7, role: 'cashier' },
      day: clinicToday(),
    });
    expect(await readBill(m, paid)).toMatchObject({
      payment_status: 'Paid',
      paid_amount: 850,
      due_amount: 0,
      received_amount: 1000,
      balance_amount: 150,
    });
    // The payment is listed in the creation's history entry, which stays one entry.
    const history = (await m.t.get(`/lab_bills/${paid}/history`)).body.history;
    expect(history.map((e: any) => e.action)).toEqual(['created']);
    expect(history[0].ledger).toEqual([entry]);
    expect(history[0].changes).not.toHaveProperty('paid_amount');

    const pending = await createBill(m, store);
    expect(await entries(pending)).toEqual([]);
    expect(await readBill(m, pending)).toMatchObject({ payment_status: 'Pending', paid_amount: 0, due_amount: 850 });
  });

  it('keeps a bill of total 0 as the client set it: Pending with nothing due, Paid without a payment', async () => {
    const store = m.freshStore();
    const free = { discount_type: 'flat', discount_value: 850 };
    const pending = await createBill(m, store, free);
    expect(await readBill(m, pending)).toMatchObject({
      grand_total: 0,
      payment_status: 'Pending',
      due_amount: 0,
      paid_amount: 0,
    });
    expect((await put(pending, { payment_status: 'Paid' })).status).toBe(200);
    expect(await readBill(m, pending)).toMatchObject({ payment_status: 'Paid', paid_amount: 0 });
    const paid = await createBill(m, store, { ...free, payment_status: 'Paid' });
    expect(await entries(paid)).toEqual([]);
    expect(await entries(pending)).toEqual([]);
  });

  it('records the amount due on a PUT from Pending to Paid, and the reversal of every payment on a PUT back to Pending', async () => {
    const store = m.freshStore();
    const id = await createBill(m, store, {}, {}, 2); // 1700, Cash, Pending
    await pay(m, id, { amount: 500, method: 'Card' }, { role: 'cashier', sub: 7 });
    expect((await put(id, { payment_status: 'Paid' }, { role: 'receptionist', sub: 8 })).status).toBe(200);
    expect(await entries(id)).toEqual([
      ['payment', 'Card', 500, 7],
      ['payment', 'Cash', 1200, 8],
    ]);
    expect(await readBill(m, id)).toMatchObject({ payment_status: 'Paid', paid_amount: 1700, due_amount: 0 });
    // Paid again: nothing more is due, nothing is recorded.
    expect((await put(id, { payment_status: 'Paid' })).status).toBe(200);
    expect(
      (await put(id, { payment_status: 'Pending', notes: 'card declined' }, { role: 'cashier', sub: 7 })).status,
    ).toBe(200);
    const ledger = (await ledgerOf(m, id)).ledger;
    expect(ledger.slice(2).map((e: any) => [e.kind, e.method, e.amount, e.by.sub, e.reason])).toEqual([
      ['reversal', 'Cash', 1200, 7, 'Payment status set back to Pending.'],
      ['reversal', 'Card', 500, 7, 'Payment status set back to Pending.'],
    ]);
    expect(await readBill(m, id)).toMatchObject({
      payment_status: 'Pending',
      paid_amount: 0,
      due_amount: 1700,
      refunded_amount: 0,
      notes: 'card declined',
    });
    const history = (await m.t.get(`/lab_bills/${id}/history`)).body.history;
    expect(history.map((e: any) => [e.action, e.ledger?.length ?? 0])).toEqual([
      ['created', 0],
      ['payment', 1],
      ['updated', 1],
      ['updated', 0],
      ['updated', 2],
    ]);
    expect(history[4].changes).toEqual({
      payment_status: { before: 'Paid', after: 'Pending' },
      notes: { before: null, after: 'card declined' },
    });
  });

  it('moves a paid bill’s money to its new payment_method, and clears the cash fields a PUT away from Cash does not give', async () => {
    const store = m.freshStore();
    const id = await createBill(m, store, { payment_status: 'Paid', received_amount: 1000, balance_amount: 150 });
    expect((await put(id, { payment_method: 'Card' }, { role: 'cashier', sub: 7 })).status).toBe(200);
    expect(await entries(id)).toEqual([
      ['payment', 'Cash', 850, 1],
      ['reversal', 'Cash', 850, 7],
      ['payment', 'Card', 850, 7],
    ]);
    expect(await readBill(m, id)).toMatchObject({
      payment_method: 'Card',
      payment_status: 'Paid',
      paid_amount: 850,
      received_amount: null,
      balance_amount: null,
    });
    // Given in the same PUT, a cash field is stored as the spec says.
    const given = await createBill(m, store, { received_amount: 1000, balance_amount: 150 });
    expect((await put(given, { payment_method: 'Online', balance_amount: 10 })).status).toBe(200);
    expect(await readBill(m, given)).toMatchObject({
      payment_method: 'Online',
      received_amount: null,
      balance_amount: 10,
    });
    // Money taken in another method than the bill's stays where it is.
    const card = await createBill(m, store);
    await pay(m, card, { amount: 850, method: 'Card' });
    expect((await put(card, { payment_method: 'Online' })).status).toBe(200);
    expect(await entries(card)).toEqual([['payment', 'Card', 850, 1]]);
  });

  it('gives back what a cancelled bill holds, per method, with the cancellation’s reason, by whoever cancelled it', async () => {
    const store = m.freshStore();
    const id = await createBill(m, store, {}, {}, 2); // 1700
    await pay(m, id, { amount: 500, method: 'Cash' });
    await pay(m, id, { amount: 700, method: 'Card' });
    await refund(m, id, { amount: 100, method: 'Cash', reason: 'Test not done' });
    expect((await m.t.request('DELETE', `/lab_bills/${id}`, { reason: 'Billed twice' }, { sub: 3 })).status).toBe(200);
    const history = (await m.t.get(`/lab_bills/${id}/history`)).body.history;
    const cancellation = history.at(-1);
    expect(cancellation).toMatchObject({ action: 'cancelled', reason: 'Billed twice' });
    expect(cancellation.ledger.map((e: any) => [e.kind, e.method, e.amount, e.by, e.reason])).toEqual([
      ['refund', 'Card', 700, { sub: 3, role: 'admin' }, 'Billed twice'],
      ['refund', 'Cash', 400, { sub: 3, role: 'admin' }, 'Billed twice'],
    ]);
    // The ledger's records of the bill balance out.
    const records = await ledgerRecords(m.t, { bill_id: id });
    expect(records).toHaveLength(5);
    expect(records.reduce((sum, r) => sum + (r.kind === 'payment' ? 1 : -1) * r.amount_cents, 0)).toBe(0);
    // Nothing held, nothing given back; no reason given, a reason still stands on the refund.
    const none = await createBill(m, store);
    expect((await m.t.del(`/lab_bills/${none}`)).status).toBe(200);
    expect((await m.t.get(`/lab_bills/${none}/history`)).body.history.at(-1)).not.toHaveProperty('ledger');
    const unexplained = await createBill(m, store, { payment_status: 'Paid' });
    expect((await m.t.del(`/lab_bills/${unexplained}`)).status).toBe(200);
    expect((await m.t.get(`/lab_bills/${unexplained}/history`)).body.history.at(-1).ledger[0]).toMatchObject({
      kind: 'refund',
      amount: 850,
      reason: 'Bill cancelled.',
    });
  });
});

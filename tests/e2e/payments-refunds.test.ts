/**
 * A bill's payments and refunds through the gateway (points 1 to 3,
 * 7 to 9): split payments taken by the caller, refunds with a reason, the
 * ledger and the amount due on every read, Idempotency-Key, every refusal and
 * role, the events, the receipt, negative money, price overrides.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { EventSubjects } from '@clinic/contracts';
import { awayFromMidnight, clinicToday, createBill, ledgerOf, pay, readBill, refund } from './money';
import { failureOf, expectRefusals } from './harness';
import { m, events, dir, cashier } from './payments-stack';
import { expectPrinted, layoutLines } from './pdf-tools';

describe('POST /lab_bills/{id}/refunds', () => {
  it('gives back part of what was paid, of an item or not, with a reason; the bill stays as it is', async () => {
    await awayFromMidnight();
    const store = m.freshStore();
    // Paid: 2550 taken by the creator.
    const id = await createBill(m, store, {
      patient_name: 'Ayesha',
      payment_status: 'Paid',
      items: [
        { charge_id: m.charge(store), charge_name: 'CBC', unit_price: 850, qty: 1 },
        { charge_id: m.charge(store), charge_name: 'CBC again', unit_price: 850, qty: 2 },
      ],
    });
    const items = (await readBill(m, id)).items;
    const first = await refund(
      m,
      id,
      { amount: 850, method: 'Cash', reason: '  Test not done ', item_id: items[0].id },
      cashier,
    );
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({
      message: 'Refund recorded successfully.',
      refund: {
        kind: 'refund',
        amount: 850,
        method: 'Cash',
        reason: 'Test not done',
        item_id: items[0].id,
        by: { sub: 7, role: 'cashier' },
        day: clinicToday(),
      },
      bill: { paid_amount: 2550, refunded_amount: 850, due_amount: 0, payment_status: 'Paid', status: 'active' },
    });
    const cases: Array<[unknown, number, string]> = [
      [{ amount: 1, method: 'Cash' }, 400, 'reason is required.'],
      [{ amount: 1, method: 'Cash', reason: '   ' }, 400, 'reason is required.'],
      [{ amount: 1, method: 'Cash', reason: 'x'.repeat(501) }, 400, 'reason must be at most 500 characters.'],
      [{ amount: 1, method: 'Cash', reason: 7 }, 400, 'reason must be a string.'],
      [{ amount: -1, method: 'Cash', reason: 'r' }, 400, 'amount must be a number greater than 0.'],
      [{ amount: 1, method: 'Cash', reason: 'r', item_id: 0 }, 400, 'item_id must be a positive integer.'],
      [{ amount: 1, method: 'Cash', reason: 'r', item_id: 999_999 }, 400, 'item_id must be an item of this bill.'],
      [
        { amount: 0.01, method: 'Cash', reason: 'r', item_id: items[0].id },
        400,
        'amount must be at most what is left to refund of that item, 0.',
      ],
      [
        { amount: 1700.01, method: 'Card', reason: 'r' },
        400,
        'amount must be at most what was paid and not yet refunded, 1700.',
      ],
    ];
    await expectRefusals(cases, (body) => refund(m, id, body));
    // Idempotency-Key on refunds too: the same refund, given once.
    const keyed = { headers: { 'idempotency-key': 'refund-once' } };
    const goodwill = { amount: 1700, method: 'Card', reason: 'Goodwill' };
    const [once, twice] = await Promise.all([refund(m, id, goodwill, keyed), refund(m, id, goodwill, keyed)]);
    expect([once.status, twice.status]).toEqual([201, 201]);
    expect(twice.body.refund.id).toBe(once.body.refund.id);
    expect(await readBill(m, id)).toMatchObject({
      paid_amount: 2550,
      refunded_amount: 2550,
      due_amount: 0,
      payment_status: 'Paid',
    });
    expect((await refund(m, id, { amount: 0.01, method: 'Cash', reason: 'r' })).body.error).toBe(
      'amount must be at most what was paid and not yet refunded, 0.',
    );
    expect((await ledgerOf(m, id)).ledger.map((e: any) => [e.kind, e.amount])).toEqual([
      ['payment', 2550],
      ['refund', 850],
      ['refund', 1700],
    ]);
    expect((await m.t.get(`/lab_bills/${id}/history`)).body.history.map((e: any) => e.action)).toEqual([
      'created',
      'refund',
      'refund',
    ]);
  });

  it('is for admins and cashiers; a receptionist or a doctor gets 403; a cancelled bill 404', async () => {
    const id = await createBill(m, m.freshStore(), { payment_status: 'Paid' });
    for (const role of ['receptionist', 'doctor']) {
      const res = await refund(m, id, { amount: 1, method: 'Cash', reason: 'r' }, { role });
      expect({ role, status: res.status, body: res.body }).toEqual({
        role,
        status: 403,
        body: { success: false, error: 'You do not have permission to perform this action.', code: 'FORBIDDEN' },
      });
    }
    expect((await refund(m, id, { amount: 1, method: 'Cash', reason: 'r' }, { role: 'admin' })).status).toBe(201);
    expect((await m.t.del(`/lab_bills/${id}`)).status).toBe(200);
    expect((await refund(m, id, { amount: 1, method: 'Cash', reason: 'r' })).status).toBe(404);
  });
});

describe('events, receipts, negative money and prices', () => {
  it('publishes payment_recorded and refunded through the outbox, each with its entry and the bill’s money', async () => {
    const id = await createBill(m, m.freshStore(), {}, {}, 2);
    const paid = (await pay(m, id, { amount: 1000, method: 'Online', reference: 'T-1' }, cashier)).body.payment;
    const back = (
      await refund(m, id, { amount: 200, method: 'Online', reason: 'Overcharged' }, { role: 'admin', sub: 1 })
    ).body.refund;
    const published = await events.waitFor((e) => [paid.id, back.id].includes(e.event.event_id), 2);
    expect(published.map((e) => [e.subject, e.msgId])).toEqual([
      [EventSubjects.billPaymentRecorded, paid.id],
      [EventSubjects.billRefunded, back.id],
    ]);
    expect(published[0]!.event.data).toEqual({
      payment: paid,
      bill: expect.objectContaining({
        bill_id: id,
        paid_amount: 1000,
        due_amount: 700,
        refunded_amount: 0,
        payment_status: 'Pending',
      }),
    });
    expect(published[1]!.event.data).toEqual({
      refund: back,
      bill: expect.objectContaining({ bill_id: id, refunded_amount: 200 }),
    });
  });

  it('prints payments, refunds and the amount due on the receipt', async () => {
    await awayFromMidnight();
    const id = await createBill(m, m.freshStore(), { payment_method: 'Card' }, {}, 3); // 2550
    await pay(m, id, { amount: 1000, method: 'Cash', received_amount: 1500 });
    await pay(m, id, { amount: 500, method: 'Card' });
    await refund(m, id, { amount: 200, method: 'Cash', reason: 'Test not done' });
    const response = await fetch(`${m.t.url}/lab_bills/${id}/receipt`, {
      headers: { authorization: `Bearer ${m.t.token('cashier', 7)}` },
    });
    expect(response.status).toBe(200);
    const file = join(dir, 'receipt.pdf');
    writeFileSync(file, Buffer.from(await response.arrayBuffer()));
    const today = clinicToday();
    expectPrinted(layoutLines(file), [
      `Payment ${today} Cash 1,000.00`,
      'Change given 500.00',
      `Payment ${today} Card 500.00`,
      `Refund ${today} Cash -200.00`,
      'Total paid 1,500.00',
      'Total refunded 200.00',
      'Amount due 1,050.00',
    ]);
  });

  it('refuses negative money on a bill, as on a payment', async () => {
    const store = m.freshStore();
    const base = {
      patient_name: 'P',
      patient_contact: 'C',
      bill_date: '2096-05-01',
      payment_method: 'Cash',
      store_id: store,
      items: [{ charge_id: m.charge(store), charge_name: 'CBC', unit_price: 850, qty: 1 }],
    };
    for (const field of ['received_amount', 'balance_amount']) {
      const res = await m.t.post('/lab_bills', { ...base, [field]: -500 });
      expect({ field, status: res.status, body: res.body }).toEqual({
        field,
        status: 400,
        body: failureOf(`${field} must be greater than or equal to 0.`),
      });
    }
    expect((await m.t.get(`/lab_bills?store_id=${store}`)).body.total).toBe(0);
    const id = await createBill(m, store);
    const put = await m.t.put(`/lab_bills/${id}`, { received_amount: -1 });
    expect(put.body).toEqual(failureOf('received_amount must be greater than or equal to 0.'));
    expect((await readBill(m, id)).received_amount).toBeNull();
  });

  it('records a unit_price other than the catalogue’s in the creation’s history, with who set it', async () => {
    const store = m.freshStore();
    const items = [
      { charge_id: m.charge(store), charge_name: 'CBC', unit_price: 850, qty: 1 },
      { charge_id: m.charge(store), charge_name: 'CBC discounted', unit_price: 700.5, qty: 1 },
    ];
    const id = await createBill(
      m,
      store,
      { payment_method: 'Card', payment_status: 'Paid', items },
      { role: 'receptionist', sub: 8 },
    );
    const [created] = (await m.t.get(`/lab_bills/${id}/history`)).body.history;
    expect(created).toMatchObject({
      action: 'created',
      by: { sub: 8, role: 'receptionist' },
      price_overrides: [{ charge_id: m.charge(store), catalogue_price: 850, unit_price: 700.5 }],
    });
    // At the catalogue's price: no override recorded.
    const plain = await createBill(m, store);
    expect((await m.t.get(`/lab_bills/${plain}/history`)).body.history[0]).not.toHaveProperty('price_overrides');
  });
});

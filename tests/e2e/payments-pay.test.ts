/**
 * A bill's payments and refunds through the gateway (points 1 to 3,
 * 7 to 9): split payments taken by the caller, refunds with a reason, the
 * ledger and the amount due on every read, Idempotency-Key, every refusal and
 * role, the events, the receipt, negative money, price overrides.
 */
import { awayFromMidnight, clinicToday, createBill, ledgerOf, ledgerRecords, pay, readBill } from './money';
import { failureOf, expectRefusals } from './harness';
import { m, TIMESTAMP, cashier } from './payments-stack';

describe('POST /lab_bills/{id}/payments', () => {
  it('names the biller as HOSPITAL_REF names them now, and refuses a new bill as soon as its branch is inactive', async () => {
    const store = m.freshStore();
    const id = await createBill(m, store, { billed_by: 8 });
    const billerOf = async () => (await pay(m, id, { amount: 100, method: 'Card' }, cashier)).body.bill.billed_by_name;
    expect(await billerOf()).toBe('Dilani Perera');
    expect(await billerOf()).toBe('Dilani Perera');
    await m.t.seed({ users: [{ id: 8, name: 'Dilani Fernando' }] });
    expect(await billerOf()).toBe('Dilani Fernando');
    expect((await readBill(m, id)).billed_by_name).toBe('Dilani Fernando');

    await createBill(m, store);
    await m.t.seed({ stores: [{ id: store, name: `Branch ${store}`, status: 'inactive' }] });
    await expect(createBill(m, store)).rejects.toThrow(/not created: 404 .*Store not found/);
    await m.t.seed({ stores: [{ id: store, name: `Branch ${store}`, status: 'active' }] });
    expect(await createBill(m, store)).toEqual(expect.any(Number));
  });

  it('records a split payment: each taken by its caller, the bill Pending until nothing is due, on every read', async () => {
    await awayFromMidnight();
    const store = m.freshStore();
    const id = await createBill(m, store, {}, {}, 2); // 1700, Pending
    // The collector is the caller: a body naming another is refused (a field the route does not take).
    const naming = await pay(m, id, { amount: 500, method: 'Cash', received_amount: 1000, by: 99 }, cashier);
    expect({ status: naming.status, body: naming.body }).toEqual({
      status: 400,
      body: failureOf('Unknown field: by.'),
    });
    const first = await pay(m, id, { amount: 500, method: 'Cash', received_amount: 1000 }, cashier);
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({
      success: true,
      message: 'Payment recorded successfully.',
      payment: {
        id: expect.any(String),
        kind: 'payment',
        amount: 500,
        method: 'Cash',
        received_amount: 1000,
        change_amount: 500,
        reference: null,
        reason: null,
        item_id: null,
        day: clinicToday(),
        at: expect.stringMatching(TIMESTAMP),
        // The collector is the caller, never a body field.
        by: { sub: 7, role: 'cashier' },
      },
      bill: {
        id,
        paid_amount: 500,
        due_amount: 1200,
        refunded_amount: 0,
        payment_status: 'Pending',
        grand_total: 1700,
      },
    });
    expect(first.body.bill.items).toHaveLength(1);
    const second = await pay(
      m,
      id,
      { amount: 1200, method: 'Card', reference: ' slip-42 ' },
      { role: 'receptionist', sub: 8 },
    );
    expect(second.status).toBe(201);
    expect(second.body.payment).toMatchObject({
      amount: 1200,
      method: 'Card',
      reference: 'slip-42',
      received_amount: null,
      by: { sub: 8, role: 'receptionist' },
    });
    expect(second.body.bill).toMatchObject({ paid_amount: 1700, due_amount: 0, payment_status: 'Paid' });

    // Every read shows it: the bill, the list, the ledger, the history.
    expect(await readBill(m, id)).toMatchObject({
      paid_amount: 1700,
      due_amount: 0,
      refunded_amount: 0,
      payment_status: 'Paid',
    });
    const listed = (await m.t.get(`/lab_bills?store_id=${store}`)).body.bills;
    expect(listed).toEqual([
      expect.objectContaining({ id, paid_amount: 1700, due_amount: 0, refunded_amount: 0, payment_status: 'Paid' }),
    ]);
    const ledger = await ledgerOf(m, id);
    expect(ledger).toMatchObject({
      success: true,
      bill_id: id,
      grand_total: 1700,
      paid_amount: 1700,
      due_amount: 0,
      refunded_amount: 0,
      payment_status: 'Paid',
    });
    expect(ledger.ledger).toEqual([first.body.payment, second.body.payment]);
    const history = (await m.t.get(`/lab_bills/${id}/history`)).body.history;
    expect(history.map((e: any) => e.action)).toEqual(['created', 'payment', 'payment']);
    expect(history[1]).toMatchObject({
      event_id: first.body.payment.id,
      by: { sub: 7, role: 'cashier' },
      ledger: [first.body.payment],
    });
    expect(history[2].changes).toEqual({ payment_status: { before: 'Pending', after: 'Paid' } });
    // The drawer's records: one per payment, under its id.
    expect(
      (await ledgerRecords(m.t, { bill_id: id })).map((r) => [r._id, r.collector, r.method, r.amount_cents]).sort(),
    ).toEqual(
      [
        [first.body.payment.id, 7, 'Cash', 50_000],
        [second.body.payment.id, 8, 'Card', 120_000],
      ].sort(),
    );
  });

  it('refuses a payment that is not one, more than is due, or on a bill that is not live, storing nothing', async () => {
    const store = m.freshStore();
    const id = await createBill(m, store); // 850 due
    const cases: Array<[unknown, number, string]> = [
      [[500], 400, 'Request body must be a JSON object.'],
      [{ method: 'Cash' }, 400, 'amount is required.'],
      [{ amount: 100 }, 400, 'method is required.'],
      [{ amount: 0, method: 'Cash' }, 400, 'amount must be a number greater than 0.'],
      [{ amount: -5, method: 'Cash' }, 400, 'amount must be a number greater than 0.'],
      [{ amount: '5', method: 'Cash' }, 400, 'amount must be a number greater than 0.'],
      [{ amount: 5, method: 'Gold' }, 400, 'method must be one of Cash, Card, Online.'],
      [{ amount: 500, method: 'Cash', received_amount: 100 }, 400, 'received_amount must be at least the amount.'],
      [
        { amount: 500, method: 'Cash', received_amount: -1 },
        400,
        'received_amount must be a number greater than or equal to 0.',
      ],
      [{ amount: 5, method: 'Card', reference: 'x'.repeat(101) }, 400, 'reference must be at most 100 characters.'],
      [{ amount: 5, method: 'Card', reference: { $ne: null } }, 400, 'reference must be a string.'],
      [{ amount: 850.01, method: 'Card' }, 400, 'amount must be at most the amount due, 850.'],
    ];
    await expectRefusals(cases, (body) => pay(m, id, body));
    // Another method's received_amount is not checked, like a bill's.
    expect((await pay(m, id, { amount: 850, method: 'Card', received_amount: 'n/a' })).status).toBe(201);
    expect((await pay(m, id, { amount: 0.01, method: 'Card' })).body).toEqual(
      failureOf('amount must be at most the amount due, 0.'),
    );
    expect((await ledgerOf(m, id)).ledger).toHaveLength(1);

    expect((await m.t.del(`/lab_bills/${id}`)).status).toBe(200);
    for (const path of [`/lab_bills/${id}/payments`, '/lab_bills/987654/payments', '/lab_bills/abc/payments']) {
      const res = await m.t.post(path, { amount: 1, method: 'Cash' });
      expect({ path, status: res.status, body: res.body }).toEqual({
        path,
        status: 404,
        body: { success: false, error: 'Bill not found.', code: 'BILL_NOT_FOUND' },
      });
      // A cancelled bill's payments stay readable (its credit note lists them); no other is there.
      expect((await m.t.get(path)).status).toBe(path === `/lab_bills/${id}/payments` ? 200 : 404);
    }
    for (const role of ['doctor', 'patient'])
      expect((await pay(m, id, { amount: 1, method: 'Cash' }, { role })).status).toBe(403);
    for (const role of ['admin', 'receptionist', 'cashier'])
      expect((await m.t.get(`/lab_bills/${await createBill(m, store)}/payments`, { role })).status).toBe(200);
  });

  it('answers a repeated Idempotency-Key with the same payment, stored once, even racing the first; another body is a 422', async () => {
    const store = m.freshStore();
    const id = await createBill(m, store, {}, {}, 4); // 3400
    const headers = { 'idempotency-key': 'pay-once-1' };
    const body = { amount: 1000, method: 'Card', reference: 'r1' };
    const racing = await Promise.all(Array.from({ length: 6 }, () => pay(m, id, body, { ...cashier, headers })));
    expect(racing.map((r) => r.status)).toEqual(Array(6).fill(201));
    expect(new Set(racing.map((r) => r.body.payment.id)).size).toBe(1);
    // Key order does not make another request.
    const again = await pay(m, id, { reference: 'r1', method: 'Card', amount: 1000 }, { ...cashier, headers });
    expect(again.body.payment.id).toBe(racing[0]!.body.payment.id);
    const other = await pay(m, id, { ...body, amount: 999 }, { ...cashier, headers });
    expect(other.status).toBe(422);
    expect(other.body).toEqual({
      success: false,
      error: 'This Idempotency-Key was already used for a different request.',
      code: 'IDEMPOTENCY_KEY_REUSED',
    });
    // Keys are the caller's own: another caller's same key is another payment.
    expect((await pay(m, id, body, { role: 'cashier', sub: 8, headers })).body.payment.id).not.toBe(
      racing[0]!.body.payment.id,
    );
    expect((await ledgerOf(m, id)).ledger).toHaveLength(2);
    expect(await readBill(m, id)).toMatchObject({ paid_amount: 2000, due_amount: 1400 });
    expect(await ledgerRecords(m.t, { bill_id: id })).toHaveLength(2);
    // After a cancellation the retry still gets its payment, not a 404.
    expect((await m.t.del(`/lab_bills/${id}`)).status).toBe(200);
    const afterCancel = await pay(m, id, body, { ...cashier, headers });
    expect(afterCancel.status).toBe(201);
    expect(afterCancel.body.payment.id).toBe(racing[0]!.body.payment.id);
  });
});

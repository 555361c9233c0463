/** Bills through the gateway (setup in billing-stack.ts): updates, cancellations, and updates racing a cancel. */
import { answerOf, failureOf, refused } from './harness';
import { t, LIST_STORES, createBill, readBill, countBills, updateBill } from './billing-stack';

/** A bill paid in cash, 1,000 received and 150 given back, with `notes`. */
const cashBill = (notes: string) =>
  createBill({ payment_method: 'Cash', received_amount: 1000, balance_amount: 150, notes });

describe('PUT /lab_bills/{id}', () => {
  it('takes back the whole bill a read returned, changing only the five updatable fields', async () => {
    const created = await cashBill('before');
    const read = await readBill(created.bill_id);
    const res = await updateBill(created.bill_id, {
      ...read,
      notes: 'after',
      grand_total: 0,
      status: 'cancelled',
      store_id: 2,
      bill_number: 'X',
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, message: 'Lab bill updated successfully.' });
    const after = await readBill(created.bill_id);
    expect(after).toEqual({
      ...read,
      notes: 'after',
      updated_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/),
    });
  });

  it('updates only the supplied fields and updated_at', async () => {
    const created = await cashBill('keep');
    const res = await updateBill(created.bill_id, {
      payment_status: 'Pending',
      received_amount: null,
      notes: '   ',
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, message: 'Lab bill updated successfully.' });
    const stored = await readBill(created.bill_id);
    expect(stored).toMatchObject({
      payment_status: 'Pending',
      payment_method: 'Cash',
      received_amount: null,
      balance_amount: 150,
      notes: null,
    });
    expect(stored.updated_at).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    await updateBill(created.bill_id, {
      payment_method: 'Online',
      payment_status: '',
      balance_amount: 10.005,
      notes: ' paid online ',
    });
    expect(await readBill(created.bill_id)).toMatchObject({
      payment_status: 'Pending',
      payment_method: 'Online',
      balance_amount: 10.01,
      notes: 'paid online',
      grand_total: 850,
    });
    // A null enum counts as not supplied, like a blank one; null notes clear them.
    const nulls = await updateBill(created.bill_id, { payment_status: null, notes: null });
    expect(nulls.status).toBe(200);
    expect(await readBill(created.bill_id)).toMatchObject({ payment_status: 'Pending', notes: null });
  });

  it.each([
    ['no body', undefined, 400, 'Request body must be a JSON object.'],
    ['an invalid payment_status', { payment_status: 'Done' }, 400, 'payment_status must be one of Paid, Pending.'],
    ['an invalid payment_method', { payment_method: 'Gold' }, 400, 'payment_method must be one of Cash, Card, Online.'],
    ['a text received_amount', { received_amount: '12' }, 400, 'received_amount must be a number.'],
    ['only blank enums', { payment_status: '', payment_method: '  ' }, 400, 'No updatable fields provided.'],
    ['only null enums', { payment_status: null, payment_method: null }, 400, 'No updatable fields provided.'],
    ['no updatable field', { grand_total: 0 }, 400, 'No updatable fields provided.'],
    ['an empty object', {}, 400, 'No updatable fields provided.'],
  ])('answers %s with the spec status and leaves the bill as it was', async (_name, body, status, error) => {
    const created = await createBill({ notes: 'original' });
    const res = await updateBill(created.bill_id, refused(body));
    expect(res.status).toBe(status);
    expect(res.body).toEqual(failureOf(error));
    expect(await readBill(created.bill_id)).toMatchObject({
      notes: 'original',
      updated_at: null,
      payment_status: 'Paid',
    });
  });

  it('checks the body before the bill, and answers 404 for a missing or cancelled bill', async () => {
    expect((await updateBill(99999999, { payment_status: refused('x') })).status).toBe(400);
    const missing = await updateBill(99999999, { payment_status: 'Paid' });
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ success: false, error: 'Bill not found.', code: 'BILL_NOT_FOUND' });
    const created = await createBill();
    await answerOf(t.api().DELETE('/lab_bills/{bill_id}', { params: { path: { bill_id: created.bill_id } } }));
    const cancelled = await updateBill(created.bill_id, { payment_status: 'Pending' });
    expect(cancelled.status).toBe(404);
  });
});

describe('DELETE /lab_bills/{id}', () => {
  it('is for admins only', async () => {
    const created = await createBill();
    for (const role of ['cashier', 'receptionist']) {
      const res = await answerOf(
        t.api({ role }).DELETE('/lab_bills/{bill_id}', { params: { path: { bill_id: created.bill_id } } }),
      );
      expect(res.status).toBe(403);
      expect(res.body).toEqual(failureOf('You do not have permission to perform this action.'));
    }
    expect((await readBill(created.bill_id)).status).toBe('active');
  });

  it('cancels: the bill disappears from every read', async () => {
    const store = LIST_STORES[3]!;
    const created = await createBill({}, {}, store);
    const res = await answerOf(
      t.api().DELETE('/lab_bills/{bill_id}', { params: { path: { bill_id: created.bill_id } } }),
    );
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, message: 'Lab bill cancelled successfully.' });
    expect(
      (await answerOf(t.api().GET('/lab_bills/{bill_id}', { params: { path: { bill_id: created.bill_id } } }))).status,
    ).toBe(404);
    expect((await answerOf(t.api().GET('/lab_bills', { params: { query: { store_id: store } } }))).body.total).toBe(0);
    expect(
      (await answerOf(t.api().GET('/lab_bills/summary', { params: { query: { store_id: store } } }))).body.summary
        .total_bills,
    ).toBe(0);
    const again = await answerOf(
      t.api().DELETE('/lab_bills/{bill_id}', { params: { path: { bill_id: created.bill_id } } }),
    );
    expect(again.status).toBe(404);
    expect(again.body).toEqual({ success: false, error: 'Bill not found.', code: 'BILL_NOT_FOUND' });
  });
});

describe('updates racing a cancel', () => {
  it('leave every cancelled bill cancelled, and every update that answered 200 applied', async () => {
    const store = LIST_STORES[5]!;
    const created = await Promise.all(
      Array.from({ length: 12 }, () => createBill({ payment_method: 'Cash' }, {}, store)),
    );
    const outcomes = await Promise.all(
      created.map(async ({ bill_id }) => {
        const [status, cancel, notes] = await Promise.all([
          updateBill(bill_id, { payment_status: 'Pending' }),
          answerOf(t.api().DELETE('/lab_bills/{bill_id}', { params: { path: { bill_id: bill_id } } })),
          updateBill(bill_id, { notes: 'raced' }),
        ]);
        return { bill_id, statuses: [status.status, cancel.status, notes.status] };
      }),
    );
    for (const { bill_id, statuses } of outcomes) {
      expect(statuses[1]).toBe(200); // nothing else cancels these bills
      // Each update came either before the cancel (200) or after it (404).
      for (const status of [statuses[0], statuses[2]]) expect([200, 404]).toContain(status);
      expect(
        (await answerOf(t.api().GET('/lab_bills/{bill_id}', { params: { path: { bill_id: bill_id } } }))).status,
      ).toBe(404);
    }
    expect(await countBills(store)).toBe(0);
    expect(
      (await answerOf(t.api().GET('/lab_bills/summary', { params: { query: { store_id: store } } }))).body.summary
        .total_bills,
    ).toBe(0);
  });

  it('keep both of two concurrent updates to different fields', async () => {
    const created = await Promise.all(Array.from({ length: 8 }, () => createBill({ payment_method: 'Cash' })));
    await Promise.all(
      created.flatMap(({ bill_id }) => [
        updateBill(bill_id, { payment_status: 'Pending' }),
        updateBill(bill_id, { notes: 'both kept' }),
      ]),
    );
    for (const { bill_id } of created)
      expect(await readBill(bill_id)).toMatchObject({ payment_status: 'Pending', notes: 'both kept' });
  });
});

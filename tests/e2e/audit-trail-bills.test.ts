/**
 * The audit trail of bills and charges, through the gateway: every create,
 * update and cancel of a bill, and every create, update and delete of a
 * charge, with who (the token's sub and role), when, the correlation id and
 * the fields before and after; a cancellation's reason; the history of a
 * cancelled bill or a deleted charge still answers.
 */
import { EventSubjects } from '@clinic/contracts';
import { failureOf, expectRefusals } from './harness';
import { t, charge, events, TIMESTAMP, bill, createBill, cancel, historyOf } from './audit-trail-stack';

describe('GET /lab_bills/{id}/history', () => {
  it('records who created, updated and cancelled a bill, when, with which correlation id, and each changed field before and after', async () => {
    const created = await t.post('/lab_bills', bill(), {
      role: 'cashier',
      sub: 7,
      headers: { 'x-correlation-id': 'audit-create-1' },
    });
    expect(created.status).toBe(201);
    const id = created.body.bill_id;
    const updated = await t.put(
      `/lab_bills/${id}`,
      { payment_status: 'Pending', notes: '  call back  ', payment_method: 'Cash' },
      {
        role: 'receptionist',
        sub: 'nurse-ann',
        headers: { 'x-correlation-id': 'audit-update-1' },
      },
    );
    expect(updated.status).toBe(200);
    const cancelled = await cancel(id, { reason: '  Billed twice  ' }, { 'x-correlation-id': 'audit-cancel-1' });
    expect(cancelled.body).toEqual({ success: true, message: 'Lab bill cancelled successfully.' });

    // The bill is gone from the spec's reads; its history is not.
    expect((await t.get(`/lab_bills/${id}`)).status).toBe(404);
    const res = await t.get(`/lab_bills/${id}/history`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, bill_id: id, bill_number: created.body.bill_number });
    const [create, update, cancellation, ...rest] = res.body.history;
    expect(rest).toEqual([]);

    expect(create).toMatchObject({
      action: 'created',
      by: { sub: 7, role: 'cashier' },
      correlation_id: 'audit-create-1',
    });
    expect(create.changes).toMatchObject({
      bill_number: { before: null, after: created.body.bill_number },
      patient_name: { before: null, after: 'Nimal Fernando' },
      billed_by: { before: null, after: 7 },
      payment_method: { before: null, after: 'Cash' },
      payment_status: { before: null, after: 'Paid' },
      subtotal: { before: null, after: 1700 },
      discount_amount: { before: null, after: 170 },
      grand_total: { before: null, after: 1530 },
      received_amount: { before: null, after: 2000 },
      status: { before: null, after: 'active' },
      items: {
        before: null,
        after: [
          { id: expect.any(Number), charge_id: charge, charge_name: 'CBC', unit_price: 850, qty: 2, line_total: 1700 },
        ],
      },
    });
    expect(create).not.toHaveProperty('reason');

    // Only what changed: payment_method was sent with the value it had.
    expect(update).toMatchObject({
      action: 'updated',
      by: { sub: 'nurse-ann', role: 'receptionist' },
      correlation_id: 'audit-update-1',
    });
    expect(update.changes).toEqual({
      payment_status: { before: 'Paid', after: 'Pending' },
      notes: { before: null, after: 'call back' },
    });

    expect(cancellation).toMatchObject({
      action: 'cancelled',
      by: { sub: 1, role: 'admin' },
      correlation_id: 'audit-cancel-1',
      changes: { status: { before: 'active', after: 'cancelled' } },
      reason: 'Billed twice',
    });

    for (const entry of res.body.history) expect(entry.at).toMatch(TIMESTAMP);
    const times = res.body.history.map((e: any) => e.at);
    expect([...times].sort()).toEqual(times);
    // Each entry is the record of one event: same id.
    const published = await events.waitFor((e) => e.event.data.bill.id === id, 3);
    expect(published.map((e) => [e.subject, e.event.event_id])).toEqual([
      [EventSubjects.billCreated, create.event_id],
      [EventSubjects.billUpdated, update.event_id],
      [EventSubjects.billCancelled, cancellation.event_id],
    ]);
  });

  it('answers 404 for a bill that never existed, and only to admins', async () => {
    for (const path of ['/lab_bills/987654/history', '/lab_bills/0/history', '/lab_bills/abc/history']) {
      const res = await t.get(path);
      expect({ path, status: res.status, body: res.body }).toEqual({
        path,
        status: 404,
        body: { success: false, error: 'Bill not found.', code: 'BILL_NOT_FOUND' },
      });
    }
    const { bill_id } = await createBill();
    for (const role of ['cashier', 'receptionist', 'doctor']) {
      const res = await t.get(`/lab_bills/${bill_id}/history`, { role });
      expect(res.status).toBe(403);
      expect(res.body).toEqual({
        success: false,
        error: 'You do not have permission to perform this action.',
        code: 'FORBIDDEN',
      });
    }
  });

  it('keeps an update that changes no value as an entry with no changed fields', async () => {
    const { bill_id } = await createBill();
    expect((await t.put(`/lab_bills/${bill_id}`, { payment_status: 'Paid' })).status).toBe(200);
    const history = await historyOf(bill_id);
    expect(history.map((e) => [e.action, e.changes])).toEqual([
      ['created', expect.any(Object)],
      ['updated', {}],
    ]);
  });
});

describe('DELETE /lab_bills/{id} with a reason', () => {
  it('refuses a reason that is not a string, longer than 500 characters, or a body that is not an object, changing nothing', async () => {
    const { bill_id } = await createBill();
    const refusals: Array<[unknown, number, string]> = [
      [{ reason: 42 }, 400, 'reason must be a string.'],
      [{ reason: { $ne: null } }, 400, 'reason must be a string.'],
      [{ reason: 'x'.repeat(501) }, 400, 'reason must be at most 500 characters.'],
      [['Billed twice'], 400, 'Request body must be a JSON object.'],
      ['Billed twice', 400, 'Request body must be a JSON object.'],
    ];
    await expectRefusals(refusals, (body) => cancel(bill_id, body));
    expect((await t.get(`/lab_bills/${bill_id}`)).body.bill.status).toBe('active');
    expect((await historyOf(bill_id)).map((e) => e.action)).toEqual(['created']);
  });

  it('stores the reason trimmed, a blank one as none, and 500 characters in full', async () => {
    const cases: Array<[unknown, string | null]> = [
      [undefined, null],
      [{}, null],
      [{ reason: '   ' }, null],
      [{ reason: null }, null],
      [{ reason: ` ${'r'.repeat(498)} ` }, 'r'.repeat(498)],
      [{ reason: 'é'.repeat(500) }, 'é'.repeat(500)],
    ];
    for (const [body, reason] of cases) {
      const { bill_id } = await createBill();
      expect((await cancel(bill_id, body)).status).toBe(200);
      const entry = (await historyOf(bill_id)).find((e) => e.action === 'cancelled');
      expect({ body, reason: entry.reason }).toEqual({ body, reason });
    }
  });

  it('checks the reason before the bill: 404 and 409 still come after it', async () => {
    expect((await cancel(987654, { reason: 7 })).status).toBe(400);
    expect((await cancel(987654, { reason: 'gone' })).body).toEqual({
      success: false,
      error: 'Bill not found.',
      code: 'BILL_NOT_FOUND',
    });
  });

  it('makes the reason mandatory with CANCEL_REASON_REQUIRED=true', async () => {
    const { bill_id } = await createBill();
    const plain = t.stack.replica('billing', 0);
    await plain.stop();
    const strict = await t.stack.addReplica('billing', { CANCEL_REASON_REQUIRED: 'true' });
    try {
      await t.stack.waitHealthy(30_000);
      for (const body of [undefined, {}, { reason: '  ' }, { reason: null }]) {
        const res = await cancel(bill_id, body);
        expect({ body, status: res.status, answer: res.body }).toEqual({
          body,
          status: 400,
          answer: failureOf('reason is required: give the reason for the cancellation.'),
        });
      }
      expect((await t.get(`/lab_bills/${bill_id}`)).status).toBe(200);
      expect((await cancel(bill_id, { reason: 'Wrong patient' })).status).toBe(200);
      expect((await historyOf(bill_id)).at(-1)).toMatchObject({ action: 'cancelled', reason: 'Wrong patient' });
    } finally {
      await strict.stop();
      plain.start();
      await t.stack.waitHealthy(30_000);
    }
  });
});

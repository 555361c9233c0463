/**
 * The audit trail of bills and charges, through the gateway: every create,
 * update and cancel of a bill, and every create, update and delete of a
 * charge, with who (the token's sub and role), when, the correlation id and
 * the fields before and after; a cancellation's reason; the history of a
 * cancelled bill or a deleted charge still answers.
 */
import { EventSubjects } from '@clinic/contracts';
import { EventReader } from './events';
import { failureOf, startTestStack, type TestStack } from './harness';

let t: TestStack;
let charge: number;
let events: EventReader;

beforeAll(async () => {
  t = await startTestStack();
  await t.seed({
    stores: [{ id: 1, name: 'Main', status: 'active' }],
    users: [{ id: 7, name: 'Kasun Silva' }],
  });
  charge = (await t.post('/hospital_charges', { store_id: 1, charge_name: 'CBC', charge_type: 'Lab', amount: 850 }))
    .body.charge_id;
  events = await EventReader.start(await t.nats('hospital'), 'BILLING_EVENTS');
});
afterAll(async () => {
  events?.stop();
  await t?.stop();
});

const TIMESTAMP = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;

function bill(overrides: Record<string, unknown> = {}) {
  return {
    patient_name: 'Nimal Fernando',
    patient_contact: '0771234567',
    bill_date: '2093-05-14',
    payment_method: 'Cash',
    store_id: 1,
    items: [{ charge_id: charge, charge_name: 'CBC', unit_price: 850, qty: 2 }],
    discount_type: 'pct',
    discount_value: 10,
    received_amount: 2000,
    balance_amount: 470,
    ...overrides,
  };
}

async function createBill(overrides: Record<string, unknown> = {}): Promise<{ bill_id: number; bill_number: string }> {
  const res = await t.post('/lab_bills', bill(overrides));
  expect(res.status).toBe(201);
  return res.body;
}

const cancel = (id: number, body?: unknown, headers: Record<string, string> = {}) =>
  t.request('DELETE', `/lab_bills/${id}`, body, { headers });
const historyOf = async (id: number) => {
  const res = await t.get(`/lab_bills/${id}/history`);
  expect(res.status).toBe(200);
  return res.body.history as any[];
};

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
    const refusals: Array<[unknown, string]> = [
      [{ reason: 42 }, 'reason must be a string.'],
      [{ reason: { $ne: null } }, 'reason must be a string.'],
      [{ reason: 'x'.repeat(501) }, 'reason must be at most 500 characters.'],
      [['Billed twice'], 'Request body must be a JSON object.'],
      ['Billed twice', 'Request body must be a JSON object.'],
    ];
    for (const [body, error] of refusals) {
      const res = await cancel(bill_id, body);
      expect({ body, status: res.status, answer: res.body }).toEqual({
        body,
        status: 400,
        answer: failureOf(error),
      });
    }
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
          answer: {
            success: false,
            error: 'reason is required: give the reason for the cancellation.',
            code: 'VALIDATION_FAILED',
            field: 'reason',
          },
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

describe('GET /hospital_charges/{id}/history', () => {
  it('lists every change of name, amount and status, oldest first, with who made it, also after a delete', async () => {
    const created = await t.post(
      '/hospital_charges',
      { store_id: 1, charge_name: 'Vitamin D', charge_type: 'Lab', amount: 3500, notes: 'fasting' },
      {
        sub: 'lab-head',
        headers: { 'x-correlation-id': 'charge-create-1' },
      },
    );
    const id = created.body.charge_id;
    const base = { charge_name: 'Vitamin D', charge_type: 'Lab', notes: 'fasting' };
    expect(
      (await t.put(`/hospital_charges/${id}`, { ...base, amount: 3750 }, { role: 'cashier', sub: 7 })).body.success,
    ).toBe(true);
    // Nothing changes: 200 with success false, and no entry.
    expect((await t.put(`/hospital_charges/${id}`, { ...base, amount: 3750 })).body).toEqual({
      success: false,
      error: 'No changes were made.',
      code: 'CHARGE_UNCHANGED',
    });
    expect(
      (
        await t.put(
          `/hospital_charges/${id}`,
          { ...base, amount: 3750, status: 'Inactive' },
          { role: 'receptionist', sub: 9 },
        )
      ).status,
    ).toBe(200);
    expect(
      (await t.put(`/hospital_charges/${id}`, { ...base, charge_name: 'Vitamin D3', amount: 3750, status: 'Active' }))
        .status,
    ).toBe(200);
    expect(
      (
        await t.del(`/hospital_charges/${id}`, {
          role: 'cashier',
          sub: 7,
          headers: { 'x-correlation-id': 'charge-delete-1' },
        })
      ).status,
    ).toBe(200);
    expect((await t.get(`/hospital_charges/${id}`)).status).toBe(404);

    const res = await t.get(`/hospital_charges/${id}/history`, { role: 'cashier' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, charge_id: id });
    expect(res.body.history.map((e: any) => ({ action: e.action, by: e.by, changes: e.changes }))).toEqual([
      {
        action: 'created',
        by: { sub: 'lab-head', role: 'admin' },
        changes: {
          charge_name: { before: null, after: 'Vitamin D' },
          charge_type: { before: null, after: 'Lab' },
          amount: { before: null, after: 3500 },
          status: { before: null, after: 'Active' },
          notes: { before: null, after: 'fasting' },
          store_id: { before: null, after: 1 },
        },
      },
      { action: 'updated', by: { sub: 7, role: 'cashier' }, changes: { amount: { before: 3500, after: 3750 } } },
      {
        action: 'updated',
        by: { sub: 9, role: 'receptionist' },
        changes: { status: { before: 'Active', after: 'Inactive' } },
      },
      {
        action: 'updated',
        by: { sub: 1, role: 'admin' },
        changes: {
          charge_name: { before: 'Vitamin D', after: 'Vitamin D3' },
          status: { before: 'Inactive', after: 'Active' },
        },
      },
      { action: 'deleted', by: { sub: 7, role: 'cashier' }, changes: {} },
    ]);
    expect(res.body.history[0].correlation_id).toBe('charge-create-1');
    expect(res.body.history[4].correlation_id).toBe('charge-delete-1');
    for (const entry of res.body.history) expect(entry.at).toMatch(TIMESTAMP);
  });

  it('answers 404 for a charge that never existed, and 403 to roles without charge access', async () => {
    const res = await t.get('/hospital_charges/987654/history');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ success: false, error: 'Charge not found.', code: 'CHARGE_NOT_FOUND' });
    for (const role of ['admin', 'receptionist', 'cashier'])
      expect((await t.get(`/hospital_charges/${charge}/history`, { role })).status).toBe(200);
    expect((await t.get(`/hospital_charges/${charge}/history`, { role: 'doctor' })).status).toBe(403);
  });
});

describe('paging the history', () => {
  /** Every page of a history at `perPage` entries, as the client reads it, and the first page's paging fields. */
  async function pages(path: string, perPage?: number) {
    const query = (page: number) => `?page=${page}${perPage ? `&per_page=${perPage}` : ''}`;
    const first = await t.get(`${path}${query(1)}`);
    expect(first.status).toBe(200);
    const all = [...first.body.history];
    for (let page = 2; page <= first.body.pages; page++) {
      const next = await t.get(`${path}${query(page)}`);
      expect(next.body).toMatchObject({ success: true, page, count: next.body.history.length });
      all.push(...next.body.history);
    }
    const { history: _history, ...paging } = first.body;
    return { paging, all };
  }

  it("pages a bill's history as the bill list is paged, oldest first, every entry once", async () => {
    const { bill_id } = await createBill({ bill_date: '2093-05-20' });
    for (let i = 1; i <= 24; i++)
      expect((await t.put(`/lab_bills/${bill_id}`, { notes: `call ${i}` })).status).toBe(200);
    const byDefault = await pages(`/lab_bills/${bill_id}/history`);
    expect(byDefault.paging).toEqual({
      success: true,
      bill_id,
      bill_number: expect.any(String),
      count: 20,
      total: 25,
      page: 1,
      per_page: 20,
      pages: 2,
    });
    expect(byDefault.all.map((e) => e.changes.notes?.after ?? e.action)).toEqual([
      'created',
      ...Array.from({ length: 24 }, (_, i) => `call ${i + 1}`),
    ]);
    const bySeven = await pages(`/lab_bills/${bill_id}/history`, 7);
    expect(bySeven.paging).toMatchObject({ count: 7, total: 25, per_page: 7, pages: 4 });
    expect(bySeven.all.map((e) => e.event_id)).toEqual(byDefault.all.map((e) => e.event_id));
    // Past the last page: empty; out of range sizes are clamped; a page that is not an integer is 400.
    expect((await t.get(`/lab_bills/${bill_id}/history?page=9`)).body).toMatchObject({
      count: 0,
      history: [],
      page: 9,
    });
    expect((await t.get(`/lab_bills/${bill_id}/history?per_page=1000`)).body).toMatchObject({
      per_page: 100,
      count: 25,
    });
    expect((await t.get(`/lab_bills/${bill_id}/history?page=x`)).body).toEqual({
      success: false,
      error: 'page must be an integer.',
      code: 'VALIDATION_FAILED',
      field: 'page',
    });
  });

  it("pages a charge's history the same way", async () => {
    const id = (await t.post('/hospital_charges', { store_id: 1, charge_name: 'Paged', charge_type: 'Lab', amount: 1 }))
      .body.charge_id;
    for (let amount = 2; amount <= 22; amount++)
      expect(
        (await t.put(`/hospital_charges/${id}`, { charge_name: 'Paged', charge_type: 'Lab', amount })).status,
      ).toBe(200);
    const read = await pages(`/hospital_charges/${id}/history`, 10);
    expect(read.paging).toEqual({
      success: true,
      charge_id: id,
      count: 10,
      total: 22,
      page: 1,
      per_page: 10,
      pages: 3,
    });
    expect(read.all.map((e) => e.changes.amount.after)).toEqual(Array.from({ length: 22 }, (_, i) => i + 1));
    expect((await t.get(`/hospital_charges/${id}/history?per_page=x`)).status).toBe(400);
  });
});

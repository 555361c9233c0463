/**
 * The audit trail of bills and charges, through the gateway: every create,
 * update and cancel of a bill, and every create, update and delete of a
 * charge, with who (the token's sub and role), when, the correlation id and
 * the fields before and after; a cancellation's reason; the history of a
 * cancelled bill or a deleted charge still answers.
 */
import { failureOf } from './harness';
import { t, charge, TIMESTAMP, createBill } from './audit-trail-stack';

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
    expect((await t.get(`/lab_bills/${bill_id}/history?page=x`)).body).toEqual(failureOf('page must be an integer.'));
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

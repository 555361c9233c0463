/** Charges through the gateway (setup in catalogue-stack.ts): updates, deletes, and updates racing a delete. */
import { answerOf, failureOf, refused } from './harness';
import { t, freshStore, valid, create, readCharge, listAll, updateCharge, deleteCharge } from './catalogue-stack';

describe('PUT /hospital_charges/{id}', () => {
  it('replaces the fields, records who and when, and treats an omitted status as Active', async () => {
    const store = freshStore();
    const { body } = await create(valid(store, { status: 'Inactive', notes: 'old' }));
    const res = await updateCharge(
      body.charge_id,
      { charge_name: 'FBC', charge_type: 'General', amount: 99.999 },
      { sub: 42, role: 'cashier' },
    );
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, message: 'Charge updated successfully.' });
    const { charge } = (await readCharge(body.charge_id)).body;
    expect(charge).toMatchObject({
      charge_name: 'FBC',
      charge_type: 'General',
      amount: 100,
      status: 'Active',
      notes: null,
      store_id: store,
      updated_by: 42,
    });
    expect(charge.updated_at).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
  });

  it('answers 200 with success false when nothing changes, and leaves the charge untouched', async () => {
    const store = freshStore();
    const { body } = await create(valid(store, { notes: 'n' }));
    const res = await updateCharge(body.charge_id, {
      charge_name: ' Full Blood Count ',
      charge_type: 'Lab',
      amount: 850.0,
      notes: 'n',
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: false, error: 'No changes were made.', code: 'CHARGE_UNCHANGED' });
    const { charge } = (await readCharge(body.charge_id)).body;
    expect(charge.updated_at).toBeNull();
    expect(charge.updated_by).toBeNull();
  });

  it('checks fields before existence, existence before duplicates', async () => {
    const store = freshStore();
    const a = await create(valid(store, { charge_name: 'A' }));
    await create(valid(store, { charge_name: 'B' }));
    const invalid = await updateCharge(999999, { charge_name: 'A', charge_type: 'Lab', amount: -5 });
    expect(invalid.status).toBe(400);
    expect(invalid.body.error).toBe('amount must be a number greater than or equal to 0.');
    const missing = await updateCharge(999999, { charge_name: 'B', charge_type: 'Lab', amount: 5 });
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ success: false, error: 'Charge not found.', code: 'CHARGE_NOT_FOUND' });
    const dup = await updateCharge(a.body.charge_id, { charge_name: 'b', charge_type: 'Lab', amount: 5 });
    expect(dup.status).toBe(409);
    expect(dup.body).toEqual(failureOf('A charge with this name already exists in this store.'));
    expect((await readCharge(a.body.charge_id)).body.charge.charge_name).toBe('A');
  });

  it('takes back the whole charge a read returned, one field changed, and changes only that field', async () => {
    const store = freshStore();
    const { body } = await create(valid(store, { notes: 'fasting' }), { sub: 3 });
    const read = (await readCharge(body.charge_id)).body.charge;
    const res = await updateCharge(body.charge_id, { ...read, amount: 900 }, { sub: 5 });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, message: 'Charge updated successfully.' });
    const after = (await readCharge(body.charge_id)).body.charge;
    expect(after).toEqual({
      ...read,
      amount: 900,
      updated_by: 5,
      updated_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/),
    });
  });

  it('ignores store_id and the other read-only fields: a charge stays in its store', async () => {
    const store = freshStore();
    const { body } = await create(valid(store));
    // Beyond what the document lists (its types refuse them), sent back as a front end may send what it read.
    const readBack = {
      charge_name: 'X',
      charge_type: 'Lab',
      amount: 1,
      store_id: store + 1000,
      id: 1,
      created_by: 99,
      created_at: '2000-01-01 00:00:00',
      is_deleted: true,
    };
    const res = await updateCharge(body.charge_id, refused(readBack));
    expect(res.status).toBe(200);
    const after = (await readCharge(body.charge_id)).body.charge;
    expect(after).toMatchObject({ id: body.charge_id, charge_name: 'X', store_id: store, created_by: 1 });
    expect(after.created_at).not.toBe('2000-01-01 00:00:00');
    expect(await listAll(store + 1000)).toEqual([]);
    expect((await listAll(store)).map((c) => c.id)).toEqual([body.charge_id]);
  });

  it.each([
    ['missing charge_name', { charge_type: 'Lab', amount: 1 }, 'charge_name is required.'],
    ['missing charge_type', { charge_name: 'X', amount: 1 }, 'charge_type is required.'],
    ['missing amount', { charge_name: 'X', charge_type: 'Lab' }, 'amount is required.'],
    [
      'text amount',
      { charge_name: 'X', charge_type: 'Lab', amount: '5' },
      'amount must be a number greater than or equal to 0.',
    ],
    [
      'unknown charge_type',
      { charge_name: 'X', charge_type: 'Radiology', amount: 1 },
      'charge_type must be General or Lab.',
    ],
    [
      'unknown status',
      { charge_name: 'X', charge_type: 'Lab', amount: 1, status: 'Archived' },
      'status must be Active or Inactive.',
    ],
  ])('answers 400 for %s and changes nothing', async (_name, update, error) => {
    const store = freshStore();
    const { body } = await create(valid(store, { notes: 'kept' }));
    const before = (await readCharge(body.charge_id)).body.charge;
    const res = await updateCharge(body.charge_id, refused(update));
    expect(res.status).toBe(400);
    expect(res.body).toEqual(failureOf(error));
    expect((await readCharge(body.charge_id)).body.charge).toEqual(before);
  });

  it('trims notes and stores blank notes as null', async () => {
    const { body } = await create(valid(freshStore(), { notes: 'old' }));
    const path = { charge_id: body.charge_id };
    for (const [notes, stored] of [
      ['  fasting  ', 'fasting'],
      ['   ', null],
    ] as const) {
      const put = await answerOf(
        t.api().PUT('/hospital_charges/{charge_id}', {
          params: { path },
          body: { charge_name: 'X', charge_type: 'Lab', amount: 1, notes },
        }),
      );
      expect(put.status).toBe(200);
      const read = await answerOf(t.api().GET('/hospital_charges/{charge_id}', { params: { path } }));
      expect(read.body.charge.notes).toBe(stored);
    }
  });

  it('answers 400 for a missing body', async () => {
    const { body } = await create(valid(freshStore()));
    const res = await updateCharge(body.charge_id, refused(undefined));
    expect(res.status).toBe(400);
    expect(res.body).toEqual(failureOf('Request body must be a JSON object.'));
  });
});

describe('DELETE /hospital_charges/{id}', () => {
  it('soft-deletes: the charge disappears from every read and cannot be changed or deleted again', async () => {
    const store = freshStore();
    const { body } = await create(valid(store));
    const res = await deleteCharge(body.charge_id, { sub: 9 });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, message: 'Charge deleted successfully.' });
    expect((await readCharge(body.charge_id)).status).toBe(404);
    expect(await listAll(store)).toEqual([]);
    const update = await updateCharge(body.charge_id, { charge_name: 'X', charge_type: 'Lab', amount: 1 });
    expect(update.status).toBe(404);
    const again = await deleteCharge(body.charge_id);
    expect(again.status).toBe(404);
    expect(again.body).toEqual({ success: false, error: 'Charge not found.', code: 'CHARGE_NOT_FOUND' });
  });
});

describe('updates racing a delete', () => {
  it('never bring a deleted charge back', async () => {
    const store = freshStore();
    const created = await Promise.all(
      Array.from({ length: 10 }, (_, i) => create(valid(store, { charge_name: `Raced ${i}` }))),
    );
    const outcomes = await Promise.all(
      created.map(async ({ body }, i) => {
        const update = { charge_name: `Raced ${i} renamed`, charge_type: 'General' as const, amount: 5 };
        const [before, del, after] = await Promise.all([
          updateCharge(body.charge_id, update),
          deleteCharge(body.charge_id),
          updateCharge(body.charge_id, { ...update, amount: 6 }),
        ]);
        return [before.status, del.status, after.status];
      }),
    );
    for (const [update1, del, update2] of outcomes) {
      expect(del).toBe(200);
      expect([200, 404]).toContain(update1);
      expect([200, 404]).toContain(update2);
    }
    for (const { body } of created) expect((await readCharge(body.charge_id)).status).toBe(404);
    expect(await listAll(store)).toEqual([]);
  });
});

/** Bills through the gateway (setup in billing-stack.ts): the creates the spec refuses, and hostile input. */
import { MongoClient } from 'mongodb';
import { answerOf, failureOf, refused } from './harness';
import { branch, chargeIn } from './fixtures';
import { t, chargesOf, inactiveCharge, deletedCharge, bill, readBill, countBills } from './billing-stack';

describe('POST /lab_bills', () => {
  it('answers 400 without a body', async () => {
    const res = await answerOf(t.api().POST('/lab_bills', { body: refused(undefined) }));
    expect(res.status).toBe(400);
    expect(res.body).toEqual(failureOf('Request body must be a JSON object.'));
  });

  it('answers 404 for a missing or inactive store and an unknown patient (rules 7 and 8)', async () => {
    for (const store_id of [999, 3]) {
      const res = await answerOf(t.api().POST('/lab_bills', { body: { ...bill(), store_id } }));
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ success: false, error: 'Store not found or inactive.', code: 'STORE_NOT_FOUND' });
    }
    const res = await answerOf(t.api().POST('/lab_bills', { body: bill({ patient_id: 4242 }) }));
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ success: false, error: 'Patient not found.', code: 'PATIENT_NOT_FOUND' });
    // A store problem is reported before a patient problem.
    const both = await answerOf(t.api().POST('/lab_bills', { body: { ...bill({ patient_id: 4242 }), store_id: 3 } }));
    expect(both.body.error).toBe('Store not found or inactive.');
  });

  it('answers 400 listing every charge that cannot be billed in the store (rule 9)', async () => {
    const before = await countBills(1);
    const line = (charge_id: number) => ({ charge_id, charge_name: 'x', unit_price: 1, qty: 1 });
    const res = await answerOf(
      t.api().POST('/lab_bills', {
        body: bill({
          items: [
            line(chargesOf(1).active),
            line(inactiveCharge),
            line(deletedCharge),
            line(chargesOf(2).active),
            line(987654),
          ],
        }),
      }),
    );
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      success: false,
      error: `Invalid charge_id(s) for store 1: ${inactiveCharge}, ${deletedCharge}, ${chargesOf(2).active}, 987654. Each charge must be Active and belong to the bill's store.`,
      code: 'BILL_CHARGES_INVALID',
      field: 'items',
    });
    expect(await countBills(1)).toBe(before);
  });

  it('sees reference data as soon as it is published: a store opened later can bill', async () => {
    const res = await answerOf(t.api().POST('/lab_bills', { body: { ...bill(), store_id: 3 } }));
    expect(res.status).toBe(404);
    await t.seed({ stores: [branch(3, 'Closed branch')] });
    const chargeId = await chargeIn(t, 3, 'CBC', 1);
    const created = await answerOf(
      t.api().POST('/lab_bills', {
        body: {
          ...bill(),
          store_id: 3,
          items: [{ charge_id: chargeId, charge_name: 'CBC', unit_price: 1, qty: 1 }],
        },
      }),
    );
    expect(created.status).toBe(201);
    await t.seed({ stores: [{ id: 3, name: 'Closed branch', status: 'inactive' }] });
  });
});

describe('hostile input', () => {
  it.each([
    ['an operator as patient_name', { patient_name: { $ne: null } }, 'patient_name must be a string.'],
    ['an operator as store_id', { store_id: { $gt: 0 } }, 'store_id must be a positive integer.'],
    [
      'an operator as a charge id',
      { items: [{ charge_id: { $in: [1] }, charge_name: 'x', unit_price: 1, qty: 1 }] },
      'items[0].charge_id must be a positive integer.',
    ],
    ['a huge patient name', { patient_name: 'x'.repeat(100_000) }, 'patient_name must be at most 200 characters.'],
    [
      'a price beyond the money range',
      { items: [{ charge_id: 1, charge_name: 'x', unit_price: 1e12, qty: 1 }] },
      'items[0].unit_price must be at most 999999999.99 in size.',
    ],
    [
      '101 items',
      { items: Array.from({ length: 101 }, () => ({ charge_id: 1, charge_name: 'x', unit_price: 1, qty: 1 })) },
      'items must have at most 100 elements.',
    ],
  ])('answers 400 for %s and stores nothing', async (_name, overrides, error) => {
    const before = await countBills(2);
    const res = await answerOf(t.api().POST('/lab_bills', { body: refused({ ...bill({}, 2), ...overrides }) }));
    expect(res.status).toBe(400);
    expect(res.body).toEqual(failureOf(error));
    expect(await countBills(2)).toBe(before);
  });

  it('ignores fields it does not take, storing and echoing none of them, even fields a read shows', async () => {
    const res = await answerOf(
      t.api().POST('/lab_bills', {
        body: {
          ...bill({}, 2),
          patient_email: 'a@b.c',
          id: 1,
          bill_number: 'LB-FORGED-0001',
          status: 'cancelled',
          is_deleted: true,
          billed_by_name: 'Someone',
          created_at: '2000-01-01 00:00:00',
          updated_at: '2000-01-01 00:00:00',
          $where: 'sleep(1000)',
          nested: { $gt: '' },
          items: [
            {
              charge_id: chargesOf(2).active,
              charge_name: 'CBC',
              unit_price: 850,
              qty: 2,
              line_total: 1,
              id: 9,
              bill_id: 9,
            },
          ],
        },
      }),
    );
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      success: true,
      message: 'Lab bill created successfully.',
      bill_id: expect.any(Number),
      bill_number: expect.stringMatching(/^LB-\d{8}-\d{4}$/),
      grand_total: 1700,
    });
    const stored = await readBill(res.body.bill_id);
    expect(stored).toMatchObject({
      id: res.body.bill_id,
      bill_number: res.body.bill_number,
      status: 'active',
      is_deleted: false,
      billed_by_name: 'Admin User',
      updated_at: null,
    });
    expect(stored).not.toHaveProperty('patient_email');
    expect(stored.created_at).not.toBe('2000-01-01 00:00:00');
    expect(stored.items).toEqual([
      {
        id: expect.any(Number),
        bill_id: res.body.bill_id,
        charge_id: chargesOf(2).active,
        charge_name: 'CBC',
        unit_price: 850,
        qty: 2,
        line_total: 1700,
      },
    ]);
    const listed = (
      await answerOf(t.api().GET('/lab_bills', { params: { query: { store_id: 2, search: res.body.bill_number } } }))
    ).body.bills;
    expect(listed.map((b: any) => b.id)).toEqual([res.body.bill_id]);
    expect(listed[0]).not.toHaveProperty('patient_email');
    // Nor does the database hold them.
    const mongo = await MongoClient.connect(t.stack.infra.mongoUrl);
    try {
      const doc = await mongo.db('clinic_billing').collection('bills').findOne({ id: res.body.bill_id });
      expect(doc).not.toBeNull();
      for (const field of ['patient_email', '$where', 'nested', 'billed_by_name'])
        expect(doc).not.toHaveProperty(field);
      expect(doc!.items[0]).not.toHaveProperty('bill_id');
    } finally {
      await mongo.close();
    }
  });

  it('answers 413 for 10,000 items or a multi-megabyte string', async () => {
    const before = await countBills(2);
    const many = await answerOf(
      t.api().POST('/lab_bills', {
        body: bill(
          {
            items: Array.from({ length: 10_000 }, () => ({
              charge_id: 1,
              charge_name: 'CBC',
              unit_price: 1,
              qty: 1,
            })),
          },
          2,
        ),
      }),
    );
    expect(many.status).toBe(413);
    expect(many.body).toEqual({ success: false, error: 'Request body is too large.', code: 'BODY_TOO_LARGE' });
    const huge = await answerOf(t.api().POST('/lab_bills', { body: bill({ notes: 'x'.repeat(3 * 1024 * 1024) }, 2) }));
    expect(huge.status).toBe(413);
    expect(await countBills(2)).toBe(before);
  });
});

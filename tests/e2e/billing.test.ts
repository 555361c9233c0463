import { MongoClient } from 'mongodb';
import { EventSubjects } from '@clinic/contracts';
import { EventReader } from './events';
import type { operations } from '@clinic/client';
import { answerOf, failureOf, refused, startTestStack, type TestStack } from './harness';
import { ADMIN_USER, KASUN, MAIN_BRANCH, PATIENTS, SECOND_BRANCH } from './fixtures';

type NewBill = operations['createLabBill']['requestBody']['content']['application/json'];

let t: TestStack;
/** Charge ids by store: `chargesOf(store).active` may be billed there. */
const charges: Record<number, { active: number; second: number }> = {};
function chargesOf(store: number): { active: number; second: number } {
  const made = charges[store];
  if (!made) throw new Error(`no charges were made in store ${store}`);
  return made;
}
let inactiveCharge: number;
let deletedCharge: number;

const LIST_STORES = Array.from({ length: 12 }, (_, i) => 10 + i);

beforeAll(async () => {
  t = await startTestStack();
  await t.seed({
    stores: [
      MAIN_BRANCH,
      SECOND_BRANCH,
      { id: 3, name: 'Closed branch', status: 'inactive' },
      ...LIST_STORES.map((id) => ({ id, name: `Store ${id}`, status: 'active' })),
    ],
    users: [ADMIN_USER, KASUN],
    patients: PATIENTS,
  });
  for (const store of [1, 2, ...LIST_STORES]) {
    const active = await answerOf(
      t.api().POST('/hospital_charges', {
        body: {
          store_id: store,
          charge_name: 'CBC',
          charge_type: 'Lab',
          amount: 850,
        },
      }),
    );
    const second = await answerOf(
      t.api().POST('/hospital_charges', {
        body: {
          store_id: store,
          charge_name: 'Lipid',
          charge_type: 'Lab',
          amount: 2400,
        },
      }),
    );
    charges[store] = { active: active.body.charge_id, second: second.body.charge_id };
  }
  inactiveCharge = (
    await answerOf(
      t.api().POST('/hospital_charges', {
        body: {
          store_id: 1,
          charge_name: 'Old',
          charge_type: 'Lab',
          amount: 1,
          status: 'Inactive',
        },
      }),
    )
  ).body.charge_id;
  deletedCharge = (
    await answerOf(
      t.api().POST('/hospital_charges', { body: { store_id: 1, charge_name: 'Gone', charge_type: 'Lab', amount: 1 } }),
    )
  ).body.charge_id;
  await answerOf(t.api().DELETE('/hospital_charges/{charge_id}', { params: { path: { charge_id: deletedCharge } } }));
});
afterAll(async () => {
  await t?.stop();
});

let dateCounter = 0;
/** A bill date no other test uses, so numbering starts at 0001. */
function freshDate(): string {
  dateCounter++;
  const d = new Date(Date.UTC(2091, 0, 1) + dateCounter * 86_400_000);
  return d.toISOString().slice(0, 10);
}

/** A valid new bill, as the typed client takes one; `overrides` may make it invalid (the tests of refusals). */
function bill(overrides: Record<string, unknown> = {}, store = 1): NewBill {
  return {
    patient_name: 'Nimal Fernando',
    patient_contact: '0771234567',
    bill_date: '2090-11-21',
    payment_method: 'Card',
    store_id: store,
    items: [{ charge_id: chargesOf(store).active, charge_name: 'CBC', unit_price: 850, qty: 1 }],
    ...overrides,
  };
}

async function createBill(
  overrides: Record<string, unknown> = {},
  options: Parameters<TestStack['post']>[2] = {},
  store = 1,
) {
  const res = await answerOf(t.api(options).POST('/lab_bills', { body: bill(overrides, store) }));
  expect(res.status).toBe(201);
  return res.body as { bill_id: number; bill_number: string; grand_total: number };
}

async function readBill(id: number) {
  const res = await answerOf(t.api().GET('/lab_bills/{bill_id}', { params: { path: { bill_id: id } } }));
  expect(res.status).toBe(200);
  return res.body.bill;
}

async function countBills(store: number) {
  return (await answerOf(t.api().GET('/lab_bills', { params: { query: { store_id: store, per_page: 100 } } }))).body
    .total as number;
}

describe('POST /lab_bills', () => {
  it('creates a bill with its items, computing totals and numbering it by date', async () => {
    const date = freshDate();
    const res = await answerOf(
      t.api({ sub: 7, role: 'cashier' }).POST('/lab_bills', {
        body: bill({
          bill_date: date,
          patient_id: 1,
          patient_nic: '  901234567V ',
          patient_age: 42,
          payment_method: 'Cash',
          discount_type: 'pct',
          discount_value: 10,
          received_amount: 10000,
          balance_amount: 3535.5,
          notes: '  urgent ',
          subtotal: 1,
          grand_total: 1,
          discount_amount: 999,
          items: [
            { charge_id: chargesOf(1).active, charge_name: '  Full Blood Count ', unit_price: 850, qty: 2 },
            { charge_id: chargesOf(1).second, charge_name: 'Lipid', unit_price: 1.005, qty: 3 },
          ],
        }),
      }),
    );
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      success: true,
      message: 'Lab bill created successfully.',
      bill_id: expect.any(Number),
      bill_number: `LB-${date.replaceAll('-', '')}-0001`,
      grand_total: 1532.73,
    });
    const stored = await readBill(res.body.bill_id);
    expect(stored).toEqual({
      id: res.body.bill_id,
      bill_number: res.body.bill_number,
      store_id: 1,
      patient_id: 1,
      patient_name: 'Nimal Fernando',
      patient_contact: '0771234567',
      patient_nic: '901234567V',
      patient_age: 42,
      bill_date: date,
      billed_by: 7,
      billed_by_name: 'Kasun Silva',
      payment_method: 'Cash',
      payment_status: 'Paid',
      discount_type: 'pct',
      discount_value: 10,
      discount_amount: 170.3, // 10% of 1703.03 = 170.303
      subtotal: 1703.03, // 1700 + 3 x 1.01
      grand_total: 1532.73,
      received_amount: 10000,
      balance_amount: 3535.5,
      notes: 'urgent',
      status: 'active',
      is_deleted: false,
      created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/),
      updated_at: null,
      // Issue 25: every read shows the bill's money; created Paid, it was paid its total.
      paid_amount: 1532.73,
      refunded_amount: 0,
      due_amount: 0,
      items: [
        {
          id: expect.any(Number),
          bill_id: res.body.bill_id,
          charge_id: chargesOf(1).active,
          charge_name: 'Full Blood Count',
          unit_price: 850,
          qty: 2,
          line_total: 1700,
        },
        {
          id: expect.any(Number),
          bill_id: res.body.bill_id,
          charge_id: chargesOf(1).second,
          charge_name: 'Lipid',
          unit_price: 1.01,
          qty: 3,
          line_total: 3.03,
        },
      ],
    });
    expect(stored.items[0].id).toBeLessThan(stored.items[1].id);

    const second = await createBill({ bill_date: date });
    expect(second.bill_number).toBe(`LB-${date.replaceAll('-', '')}-0002`);
    const otherDate = await createBill({ bill_date: freshDate() });
    expect(otherDate.bill_number).toMatch(/-0001$/);
  });

  it('stores cash amounts only on Cash bills and defaults the optional fields', async () => {
    const card = await createBill(
      { payment_method: 'Online', received_amount: 'not checked on card bills', balance_amount: 5 },
      { sub: 'svc-lab', role: 'receptionist' },
    );
    expect(await readBill(card.bill_id)).toMatchObject({
      received_amount: null,
      balance_amount: null,
      billed_by: null, // the caller identity is not an integer
      billed_by_name: null,
      payment_status: 'Paid',
      discount_type: 'flat',
      discount_value: 0,
      discount_amount: 0,
      patient_id: null,
      patient_nic: null,
      patient_age: null,
      notes: null,
    });
    for (const age of ['', 0, null]) {
      const created = await createBill(
        { patient_age: age, patient_nic: '   ', billed_by: 1 },
        { sub: 7, role: 'cashier' },
      );
      expect(await readBill(created.bill_id)).toMatchObject({
        patient_age: null,
        patient_nic: null,
        billed_by: 1,
        billed_by_name: 'Admin User',
      });
    }
  });

  it('caps a flat discount at the subtotal', async () => {
    const created = await createBill({ discount_type: 'flat', discount_value: 5000, payment_status: 'Pending' });
    expect(created.grand_total).toBe(0);
    expect(await readBill(created.bill_id)).toMatchObject({
      discount_amount: 850,
      subtotal: 850,
      grand_total: 0,
      payment_status: 'Pending',
    });
  });

  const item = (overrides: Record<string, unknown>) => ({
    charge_id: 1,
    charge_name: 'CBC',
    unit_price: 1,
    qty: 1,
    ...overrides,
  });
  it.each([
    // Rule 1
    ['an array body', ['not a bill'], 'Request body must be a JSON object.'],
    // Rule 2, in field order
    ['no patient_name', { patient_name: undefined }, 'patient_name is required.'],
    ['a blank patient_name', { patient_name: '   ' }, 'patient_name is required.'],
    ['no patient_contact', { patient_contact: '' }, 'patient_contact is required.'],
    ['no bill_date', { bill_date: undefined }, 'bill_date is required.'],
    ['no payment_method', { payment_method: null }, 'payment_method is required.'],
    ['no store_id', { store_id: undefined }, 'store_id is required.'],
    ['no items', { items: undefined }, 'items must contain at least one item.'],
    ['empty items', { items: [] }, 'items must contain at least one item.'],
    [
      'an item without charge_id',
      { items: [item({}), item({ charge_id: undefined })] },
      'items[1].charge_id is required.',
    ],
    ['a text charge_id', { items: [item({ charge_id: '5' })] }, 'items[0].charge_id must be a positive integer.'],
    ['an item without charge_name', { items: [item({ charge_name: ' ' })] }, 'items[0].charge_name is required.'],
    ['an item without unit_price', { items: [item({ unit_price: undefined })] }, 'items[0].unit_price is required.'],
    [
      'a negative unit_price',
      { items: [item({ unit_price: -1 })] },
      'items[0].unit_price must be a number greater than or equal to 0.',
    ],
    [
      'a text unit_price',
      { items: [item({ unit_price: 'ten' })] },
      'items[0].unit_price must be a number greater than or equal to 0.',
    ],
    ['qty 0', { items: [item({ qty: 0 })] }, 'items[0].qty must be an integer from 1 to 99.'],
    ['qty 100', { items: [item({ qty: 100 })] }, 'items[0].qty must be an integer from 1 to 99.'],
    ['a fractional qty', { items: [item({ qty: 1.5 })] }, 'items[0].qty must be an integer from 1 to 99.'],
    ['an item that is not an object', { items: ['CBC'] }, 'items[0] must be an object.'],
    // Rule 3
    ['an unknown payment_method', { payment_method: 'Cheque' }, 'payment_method must be one of Cash, Card, Online.'],
    ['an unknown payment_status', { payment_status: 'paid' }, 'payment_status must be one of Paid, Pending.'],
    ['an unknown discount_type', { discount_type: 'percent' }, 'discount_type must be one of flat, pct.'],
    // Rule 4
    ['a text store_id', { store_id: 'one' }, 'store_id must be a positive integer.'],
    ['a text patient_age', { patient_age: 'forty' }, 'patient_age must be an integer from 0 to 150.'],
    ['a text billed_by', { billed_by: 'me' }, 'billed_by must be a positive integer.'],
    ['a text patient_id', { patient_id: 'p1' }, 'patient_id must be a positive integer.'],
    ['a text discount_value', { discount_value: '10' }, 'discount_value must be a number greater than or equal to 0.'],
    [
      'a negative discount_value',
      { discount_value: -5 },
      'discount_value must be a number greater than or equal to 0.',
    ],
    ['a text discount_amount', { discount_amount: 'x' }, 'discount_amount must be a number.'],
    ['a text subtotal', { subtotal: 'x' }, 'subtotal must be a number.'],
    ['a text grand_total', { grand_total: {} }, 'grand_total must be a number.'],
    // Rule 5
    [
      'a text received_amount on a Cash bill',
      { payment_method: 'Cash', received_amount: 'lots' },
      'received_amount must be a number.',
    ],
    [
      'a text balance_amount on a Cash bill',
      { payment_method: 'Cash', balance_amount: true },
      'balance_amount must be a number.',
    ],
    // Rule 6
    ['a slashed bill_date', { bill_date: '2090/11/21' }, 'bill_date must be a date in YYYY-MM-DD format.'],
    ['an impossible bill_date', { bill_date: '2090-02-30' }, 'bill_date must be a date in YYYY-MM-DD format.'],
    // The order holds when several rules are broken at once.
    ['rules 2 and 3 broken', { patient_contact: ' ', payment_method: 'Cheque' }, 'patient_contact is required.'],
    ['rules 3 and 4 broken', { payment_status: 'x', store_id: 'x' }, 'payment_status must be one of Paid, Pending.'],
    ['rules 4 and 6 broken', { bill_date: 'soon', patient_age: -1 }, 'patient_age must be an integer from 0 to 150.'],
    [
      'rules 5 and 6 broken',
      { payment_method: 'Cash', bill_date: 'x', received_amount: 'x' },
      'received_amount must be a number.',
    ],
    [
      'rule 6 and a missing store',
      { bill_date: '2090-13-01', store_id: 999 },
      'bill_date must be a date in YYYY-MM-DD format.',
    ],
  ])('answers 400 for %s and stores nothing', async (_name, overrides, error) => {
    const store = 2;
    const before = await countBills(store);
    const body = Array.isArray(overrides) ? overrides : { ...bill({}, store), ...overrides };
    const res = await answerOf(t.api().POST('/lab_bills', { body: refused(body) }));
    expect(res.status).toBe(400);
    expect(res.body).toEqual(failureOf(error));
    expect(await countBills(store)).toBe(before);
  });

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
    await t.seed({ stores: [{ id: 3, name: 'Closed branch', status: 'active' }] });
    const charge = await answerOf(
      t.api().POST('/hospital_charges', {
        body: {
          store_id: 3,
          charge_name: 'CBC',
          charge_type: 'Lab',
          amount: 1,
        },
      }),
    );
    const created = await answerOf(
      t.api().POST('/lab_bills', {
        body: {
          ...bill(),
          store_id: 3,
          items: [{ charge_id: charge.body.charge_id, charge_name: 'CBC', unit_price: 1, qty: 1 }],
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

describe('bill numbers under concurrency', () => {
  it('gives 50 concurrent creates for one date the numbers 0001..0050, every time', async () => {
    for (let round = 0; round < 3; round++) {
      const date = freshDate();
      const results = await Promise.all(
        Array.from({ length: 50 }, () => answerOf(t.api().POST('/lab_bills', { body: bill({ bill_date: date }) }))),
      );
      expect(results.map((r) => r.status)).toEqual(Array(50).fill(201));
      const numbers = results.map((r) => r.body.bill_number as string).sort();
      const expected = Array.from(
        { length: 50 },
        (_, i) => `LB-${date.replaceAll('-', '')}-${String(i + 1).padStart(4, '0')}`,
      );
      expect(numbers).toEqual(expected);
      // Read back: the stored bills carry exactly these numbers.
      const listed = await answerOf(
        t.api().GET('/lab_bills', { params: { query: { store_id: 1, date: date, per_page: 100 } } }),
      );
      expect(listed.body.total).toBe(50);
      expect(listed.body.bills.map((b: any) => b.bill_number).sort()).toEqual(expected);
    }
  });

  it('answers 409 "Bill number conflict" only once its retries are used up, storing nothing', async () => {
    // Another writer (not a billing replica, so invisible to the highest-number lookup) holds the
    // first 40 numbers of the date: every number billing tries collides, up to its retry limit.
    const date = '2099-12-31';
    const mongo = await MongoClient.connect(t.stack.infra.mongoUrl);
    try {
      await mongo
        .db('clinic_billing')
        .collection('bills')
        .insertMany(
          Array.from({ length: 40 }, (_, i) => ({
            _id: `foreign-${i}`,
            bill_number: `LB-20991231-${String(i + 1).padStart(4, '0')}`,
            bill_date: 'elsewhere',
          })) as never[],
        );
    } finally {
      await mongo.close();
    }
    const res = await answerOf(t.api().POST('/lab_bills', { body: bill({ bill_date: date }) }));
    expect(res.status).toBe(409);
    expect(res.body).toEqual(failureOf('Bill number conflict. Please retry.'));
    expect(
      (await answerOf(t.api().GET('/lab_bills', { params: { query: { store_id: 1, date: date } } }))).body.total,
    ).toBe(0);
  });
});

describe('Idempotency-Key', () => {
  it('returns the first bill again for a repeated create, and creates nothing more', async () => {
    const date = freshDate();
    const headers = { 'idempotency-key': `retry-${date}` };
    const first = await answerOf(t.api({ headers }).POST('/lab_bills', { body: bill({ bill_date: date }) }));
    const again = await answerOf(t.api({ headers }).POST('/lab_bills', { body: bill({ bill_date: date }) }));
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(
      (await answerOf(t.api().GET('/lab_bills', { params: { query: { store_id: 1, date: date } } }))).body.total,
    ).toBe(1);
  });

  it('creates one bill when the same key races', async () => {
    const date = freshDate();
    const headers = { 'idempotency-key': `race-${date}` };
    const results = await Promise.all(
      Array.from({ length: 8 }, () =>
        answerOf(t.api({ headers }).POST('/lab_bills', { body: bill({ bill_date: date }) })),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(Array(8).fill(201));
    expect(new Set(results.map((r) => r.body.bill_id)).size).toBe(1);
    expect(
      (await answerOf(t.api().GET('/lab_bills', { params: { query: { store_id: 1, date: date } } }))).body.total,
    ).toBe(1);
  });

  it('refuses a key reused for a different bill, and keeps keys of different callers apart', async () => {
    const date = freshDate();
    const headers = { 'idempotency-key': `reuse-${date}` };
    await answerOf(t.api({ headers }).POST('/lab_bills', { body: bill({ bill_date: date }) }));
    const different = await answerOf(
      t.api({ headers }).POST('/lab_bills', { body: bill({ bill_date: date, patient_name: 'Someone Else' }) }),
    );
    expect(different.status).toBe(422);
    expect(different.body).toEqual(failureOf('This Idempotency-Key was already used for a different request.'));
    const otherCaller = await answerOf(
      t.api({ headers, sub: 99 }).POST('/lab_bills', { body: bill({ bill_date: date }) }),
    );
    expect(otherCaller.status).toBe(201);
    expect(
      (await answerOf(t.api().GET('/lab_bills', { params: { query: { store_id: 1, date: date } } }))).body.total,
    ).toBe(2);
    const bad = await answerOf(
      t.api({ headers: { 'idempotency-key': 'x'.repeat(101) } }).POST('/lab_bills', { body: bill() }),
    );
    expect(bad.status).toBe(400);
  });
});

describe('GET /lab_bills', () => {
  it('requires store_id', async () => {
    const res = await answerOf(t.api().GET('/lab_bills', { params: { query: refused({}) } }));
    expect(res.status).toBe(400);
    expect(res.body).toEqual(failureOf('store_id is required.'));
    const bad = await answerOf(t.api().GET('/lab_bills', { params: { query: { store_id: refused('x') } } }));
    expect(bad.body).toEqual(failureOf('store_id must be a positive integer.'));
    const badDate = await answerOf(
      t.api().GET('/lab_bills', { params: { query: { store_id: 1, from_date: 'yesterday' } } }),
    );
    expect(badDate.status).toBe(400);
    expect(badDate.body).toEqual(failureOf('from_date must be a date in YYYY-MM-DD format.'));
  });

  it('filters by date, range, method, status and search; ignores unknown filter values', async () => {
    const store = LIST_STORES[0]!;
    const mk = (overrides: Record<string, unknown>) => createBill(overrides, { sub: 7, role: 'cashier' }, store);
    const a = await mk({
      bill_date: '2090-03-01',
      payment_method: 'Cash',
      patient_name: 'Alpha Perera',
      patient_nic: '850001111V',
    });
    const b = await mk({
      bill_date: '2090-03-02',
      payment_method: 'Card',
      payment_status: 'Pending',
      patient_contact: '011-2(34)',
    });
    const c = await mk({ bill_date: '2090-03-03', payment_method: 'Online', patient_name: 'Gamma Silva' });
    const d = await mk({ bill_date: '2090-03-04', payment_method: 'Card' });
    await answerOf(t.api().DELETE('/lab_bills/{bill_id}', { params: { path: { bill_id: d.bill_id } } }));

    const ids = async (query: string) =>
      (await t.get(`/lab_bills?store_id=${store}${query}`)).body.bills
        .map((x: any) => x.id)
        .sort((x: number, y: number) => x - y);
    expect(await ids('')).toEqual([a.bill_id, b.bill_id, c.bill_id]);
    expect(await ids('&date=2090-03-02')).toEqual([b.bill_id]);
    expect(await ids('&date=2090-03-02&from_date=2090-03-01&to_date=2090-03-03')).toEqual([b.bill_id]);
    expect(await ids('&date=2090-03-02&from_date=not-a-date&to_date=')).toEqual([b.bill_id]); // ignored, however malformed
    expect(await ids('&from_date=2090-03-02')).toEqual([b.bill_id, c.bill_id]);
    expect(await ids('&to_date=2090-03-02')).toEqual([a.bill_id, b.bill_id]);
    expect(await ids('&from_date=2090-03-02&to_date=2090-03-02')).toEqual([b.bill_id]);
    expect(await ids('&payment_method=Card')).toEqual([b.bill_id]);
    expect(await ids('&payment_method=Cheque')).toEqual([a.bill_id, b.bill_id, c.bill_id]);
    expect(await ids('&payment_status=Pending')).toEqual([b.bill_id]);
    expect(await ids('&payment_status=pending')).toEqual([a.bill_id, b.bill_id, c.bill_id]);
    expect(await ids('&status=active')).toEqual([a.bill_id, b.bill_id, c.bill_id]);
    expect(await ids('&status=cancelled')).toEqual([]);
    expect(await ids('&status=void')).toEqual([a.bill_id, b.bill_id, c.bill_id]);
    expect(await ids('&search=alpha')).toEqual([a.bill_id]);
    expect(await ids('&search=GAMMA')).toEqual([c.bill_id]);
    expect(await ids('&search=850001')).toEqual([a.bill_id]);
    expect(await ids(`&search=${encodeURIComponent('2(34)')}`)).toEqual([b.bill_id]);
    expect(await ids(`&search=${encodeURIComponent(b.bill_number.toLowerCase())}`)).toEqual([b.bill_id]);
    expect(await ids(`&search=${encodeURIComponent('.*')}`)).toEqual([]);
    expect(await ids(`&search=${encodeURIComponent('(a+)+$')}`)).toEqual([]);
    // A search never reaches across two fields (name "Alpha Perera", then contact "0770000000").
    expect(await ids(`&search=${encodeURIComponent('perera0770')}`)).toEqual([]);
    expect(await ids(`&search=${encodeURIComponent('alpha\tperera')}`)).toEqual([]);
    for (const control of ['\u001f', 'perera\u001f077', '\u0000', '\u007f']) {
      const refused = await answerOf(
        t.api().GET('/lab_bills', { params: { query: { store_id: store, search: control } } }),
      );
      expect(refused.status).toBe(400);
      expect(refused.body).toEqual(failureOf('search must not contain control characters.'));
    }
  });

  it('finds a bill by its payment method, status and state as they are after each change', async () => {
    const store = LIST_STORES[9]!;
    const { bill_id } = await createBill({ patient_name: 'Delta Herath', payment_method: 'Cash' }, {}, store);
    const found = async (query: string) =>
      (await t.get(`/lab_bills?store_id=${store}&search=herath${query}`)).body.bills.map((b: any) => b.id);
    const change = async (body: Record<string, unknown>) =>
      expect(
        (await answerOf(t.api().PUT('/lab_bills/{bill_id}', { params: { path: { bill_id: bill_id } }, body: body })))
          .status,
      ).toBe(200);
    expect(await found('&payment_method=Cash&payment_status=Paid')).toEqual([bill_id]);
    await change({ notes: 'called back' });
    expect(await found('&payment_method=Cash&payment_status=Paid')).toEqual([bill_id]);
    await change({ payment_method: 'Card', payment_status: 'Pending' });
    expect(await found('&payment_method=Card&payment_status=Pending')).toEqual([bill_id]);
    expect(await found('&payment_method=Cash')).toEqual([]);
    expect(await found('&payment_status=Paid')).toEqual([]);
    expect(
      (await answerOf(t.api().DELETE('/lab_bills/{bill_id}', { params: { path: { bill_id: bill_id } } }))).status,
    ).toBe(200);
    expect(await found('')).toEqual([]);
  });

  it('pages newest first with page and per_page rules, without overlaps', async () => {
    const store = LIST_STORES[1]!;
    const created: number[] = [];
    for (let i = 0; i < 7; i++) created.push((await createBill({}, {}, store)).bill_id);
    const newestFirst = [...created].reverse();

    const page = async (query: string) => (await t.get(`/lab_bills?store_id=${store}${query}`)).body;
    const first = await page('&per_page=3');
    expect(first).toMatchObject({ success: true, count: 3, total: 7, page: 1, per_page: 3, pages: 3 });
    expect(first.bills.map((b: any) => b.id)).toEqual(newestFirst.slice(0, 3));
    const pages = [first, await page('&per_page=3&page=2'), await page('&per_page=3&page=3')];
    expect(pages.flatMap((p) => p.bills.map((b: any) => b.id))).toEqual(newestFirst);
    expect(await page('&per_page=3&page=4')).toMatchObject({ count: 0, bills: [], page: 4, pages: 3 });
    expect(await page('&page=0')).toMatchObject({ page: 1, per_page: 20, count: 7, pages: 1 });
    expect(await page('&page=-3&per_page=0')).toMatchObject({ page: 1, per_page: 1, count: 1, pages: 7 });
    expect(await page('&per_page=500')).toMatchObject({ per_page: 100, count: 7 });
    expect(await page('&page=&per_page=')).toMatchObject({ per_page: 20, page: 1 });
    const notNumbers = await answerOf(
      t.api().GET('/lab_bills', { params: { query: { store_id: store, page: refused('xyz') } } }),
    );
    expect(notNumbers.status).toBe(400);
    expect(notNumbers.body).toEqual(failureOf('page must be an integer.'));
    expect(
      (await answerOf(t.api().GET('/lab_bills', { params: { query: { store_id: store, per_page: refused('1.5') } } })))
        .body.error,
    ).toBe('per_page must be an integer.');
    expect((await page('&date=1999-01-01')).pages).toBe(1);
  });

  it('pages a range of days newest first across its dates, each bill once, with a method filter', async () => {
    // A range of up to 62 days is read date by date and merged (MongoDB's merge of sorted index scans; the
    // embedded server's patch 0015): the pages must meet as if the range were read whole.
    const store = LIST_STORES[10]!;
    const dates = [freshDate(), freshDate(), freshDate(), freshDate()];
    const methods = ['Cash', 'Card', 'Online'] as const;
    const created: Array<{ id: number; method: string }> = [];
    for (let i = 0; i < 14; i++) {
      const method = methods[i % 3]!;
      const { bill_id } = await createBill({ bill_date: dates[(i * 3) % 4], payment_method: method }, {}, store);
      created.push({ id: bill_id, method });
    }
    await createBill({ bill_date: freshDate() }, {}, store); // the day after the range
    // Created one after another: newest first is highest id first.
    const newestFirst = (method?: string) =>
      created
        .filter((b) => !method || b.method === method)
        .map((b) => b.id)
        .sort((a, b) => b - a);
    const range = `store_id=${store}&from_date=${dates[0]}&to_date=${dates[3]}`;
    for (const method of [undefined, 'Cash', 'Online']) {
      const query = `${range}${method ? `&payment_method=${method}` : ''}&per_page=3`;
      const first = (await t.get(`/lab_bills?${query}`)).body;
      expect(first.total).toBe(newestFirst(method).length);
      const ids: number[] = [];
      for (let page = 1; page <= first.pages + 1; page++)
        ids.push(...(await t.get(`/lab_bills?${query}&page=${page}`)).body.bills.map((b: any) => b.id));
      expect({ method, ids }).toEqual({ method, ids: newestFirst(method) });
    }
    const reversed = (
      await answerOf(
        t.api().GET('/lab_bills', { params: { query: { store_id: store, from_date: dates[3], to_date: dates[0] } } }),
      )
    ).body;
    expect(reversed).toMatchObject({ success: true, total: 0, count: 0, bills: [] });
  });

  it('orders bills of the same second by id, newest id first', async () => {
    const store = LIST_STORES[6]!;
    await Promise.all(Array.from({ length: 8 }, () => createBill({}, {}, store)));
    const rows: Array<{ id: number; created_at: string }> = (
      await answerOf(t.api().GET('/lab_bills', { params: { query: { store_id: store } } }))
    ).body.bills;
    expect(rows).toHaveLength(8);
    for (let i = 1; i < rows.length; i++) {
      const [newer, older] = [rows[i - 1]!, rows[i]!]; // 1 <= i < rows.length
      expect(
        newer.created_at > older.created_at || (newer.created_at === older.created_at && newer.id > older.id),
      ).toBe(true);
    }
  });

  it('returns list rows without items, with billed_by_name and is_deleted false', async () => {
    const store = LIST_STORES[2]!;
    await createBill({}, { sub: 7, role: 'cashier' }, store);
    await createBill({ billed_by: 555 }, {}, store);
    const { bills } = (await answerOf(t.api().GET('/lab_bills', { params: { query: { store_id: store } } }))).body;
    expect(bills.map((b: any) => [b.billed_by, b.billed_by_name])).toEqual([
      [555, null],
      [7, 'Kasun Silva'],
    ]);
    for (const b of bills) {
      expect(b.is_deleted).toBe(false);
      expect(b.items).toBeUndefined();
    }
  });
});

describe('GET /lab_bills/{id}', () => {
  it('answers 404 for a missing, cancelled or malformed id', async () => {
    const created = await createBill();
    await answerOf(t.api().DELETE('/lab_bills/{bill_id}', { params: { path: { bill_id: created.bill_id } } }));
    for (const id of [String(created.bill_id), '99999999', 'abc', '1.5']) {
      const res = await answerOf(t.api().GET('/lab_bills/{bill_id}', { params: { path: { bill_id: refused(id) } } }));
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ success: false, error: 'Bill not found.', code: 'BILL_NOT_FOUND' });
    }
  });
});

describe('PUT /lab_bills/{id}', () => {
  it('takes back the whole bill a read returned, changing only the five updatable fields', async () => {
    const created = await createBill({
      payment_method: 'Cash',
      received_amount: 1000,
      balance_amount: 150,
      notes: 'before',
    });
    const read = await readBill(created.bill_id);
    const res = await answerOf(
      t.api().PUT('/lab_bills/{bill_id}', {
        params: { path: { bill_id: created.bill_id } },
        body: {
          ...read,
          notes: 'after',
          grand_total: 0,
          status: 'cancelled',
          store_id: 2,
          bill_number: 'X',
        },
      }),
    );
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
    const created = await createBill({
      payment_method: 'Cash',
      received_amount: 1000,
      balance_amount: 150,
      notes: 'keep',
    });
    const res = await answerOf(
      t.api().PUT('/lab_bills/{bill_id}', {
        params: { path: { bill_id: created.bill_id } },
        body: {
          payment_status: 'Pending',
          received_amount: null,
          notes: '   ',
        },
      }),
    );
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
    await answerOf(
      t.api().PUT('/lab_bills/{bill_id}', {
        params: { path: { bill_id: created.bill_id } },
        body: {
          payment_method: 'Online',
          payment_status: '',
          balance_amount: 10.005,
          notes: ' paid online ',
        },
      }),
    );
    expect(await readBill(created.bill_id)).toMatchObject({
      payment_status: 'Pending',
      payment_method: 'Online',
      balance_amount: 10.01,
      notes: 'paid online',
      grand_total: 850,
    });
    // A null enum counts as not supplied, like a blank one; null notes clear them.
    const nulls = await answerOf(
      t.api().PUT('/lab_bills/{bill_id}', {
        params: { path: { bill_id: created.bill_id } },
        body: { payment_status: null, notes: null },
      }),
    );
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
    const res =
      body === undefined
        ? await answerOf(
            t.api().PUT('/lab_bills/{bill_id}', {
              params: { path: { bill_id: created.bill_id } },
              body: refused(undefined),
            }),
          )
        : await answerOf(
            t
              .api()
              .PUT('/lab_bills/{bill_id}', { params: { path: { bill_id: created.bill_id } }, body: refused(body) }),
          );
    expect(res.status).toBe(status);
    expect(res.body).toEqual(failureOf(error));
    expect(await readBill(created.bill_id)).toMatchObject({
      notes: 'original',
      updated_at: null,
      payment_status: 'Paid',
    });
  });

  it('checks the body before the bill, and answers 404 for a missing or cancelled bill', async () => {
    expect(
      (
        await answerOf(
          t.api().PUT('/lab_bills/{bill_id}', {
            params: { path: { bill_id: 99999999 } },
            body: { payment_status: refused('x') },
          }),
        )
      ).status,
    ).toBe(400);
    const missing = await answerOf(
      t
        .api()
        .PUT('/lab_bills/{bill_id}', { params: { path: { bill_id: 99999999 } }, body: { payment_status: 'Paid' } }),
    );
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ success: false, error: 'Bill not found.', code: 'BILL_NOT_FOUND' });
    const created = await createBill();
    await answerOf(t.api().DELETE('/lab_bills/{bill_id}', { params: { path: { bill_id: created.bill_id } } }));
    const cancelled = await answerOf(
      t.api().PUT('/lab_bills/{bill_id}', {
        params: { path: { bill_id: created.bill_id } },
        body: { payment_status: 'Pending' },
      }),
    );
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
          answerOf(
            t.api().PUT('/lab_bills/{bill_id}', {
              params: { path: { bill_id: bill_id } },
              body: { payment_status: 'Pending' },
            }),
          ),
          answerOf(t.api().DELETE('/lab_bills/{bill_id}', { params: { path: { bill_id: bill_id } } })),
          answerOf(
            t.api().PUT('/lab_bills/{bill_id}', { params: { path: { bill_id: bill_id } }, body: { notes: 'raced' } }),
          ),
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
        answerOf(
          t.api().PUT('/lab_bills/{bill_id}', {
            params: { path: { bill_id: bill_id } },
            body: { payment_status: 'Pending' },
          }),
        ),
        answerOf(
          t.api().PUT('/lab_bills/{bill_id}', { params: { path: { bill_id: bill_id } }, body: { notes: 'both kept' } }),
        ),
      ]),
    );
    for (const { bill_id } of created)
      expect(await readBill(bill_id)).toMatchObject({ payment_status: 'Pending', notes: 'both kept' });
  });
});

describe('GET /lab_bills/summary', () => {
  it('requires store_id and answers zeros when nothing matches', async () => {
    expect((await answerOf(t.api().GET('/lab_bills/summary', { params: { query: refused({}) } }))).body).toEqual(
      failureOf('store_id is required.'),
    );
    const res = await answerOf(t.api().GET('/lab_bills/summary', { params: { query: { store_id: 999 } } }));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      summary: {
        total_bills: 0,
        paid_count: 0,
        pending_count: 0,
        cash_count: 0,
        card_count: 0,
        online_count: 0,
        total_revenue: 0,
        total_discounts: 0,
        total_subtotal: 0,
        cash_revenue: 0,
        card_revenue: 0,
        online_revenue: 0,
      },
    });
  });

  it('counts and sums active bills exactly, within the date filters', async () => {
    const store = LIST_STORES[4]!;
    const line = (unit_price: number, qty = 1) => [
      { charge_id: chargesOf(store).active, charge_name: 'CBC', unit_price, qty },
    ];
    await createBill({ bill_date: '2090-05-01', payment_method: 'Cash', items: line(0.1) }, {}, store);
    await createBill({ bill_date: '2090-05-01', payment_method: 'Cash', items: line(0.2) }, {}, store);
    await createBill(
      {
        bill_date: '2090-05-02',
        payment_method: 'Card',
        payment_status: 'Pending',
        items: line(100.1, 3),
        discount_type: 'pct',
        discount_value: 33.333,
      },
      {},
      store,
    );
    await createBill(
      { bill_date: '2090-05-03', payment_method: 'Online', items: line(19.99, 2), discount_value: 0.99 },
      {},
      store,
    );
    const cancelled = await createBill(
      { bill_date: '2090-05-03', payment_method: 'Online', items: line(5000) },
      {},
      store,
    );
    await answerOf(t.api().DELETE('/lab_bills/{bill_id}', { params: { path: { bill_id: cancelled.bill_id } } }));

    const all = (await answerOf(t.api().GET('/lab_bills/summary', { params: { query: { store_id: store } } }))).body
      .summary;
    // Card bill: 300.30 - round(300.30 x 33.333%, 2) = 300.30 - 100.10 = 200.20
    // Online bill: 39.98 - 0.99 = 38.99
    expect(all).toEqual({
      total_bills: 4,
      paid_count: 3,
      pending_count: 1,
      cash_count: 2,
      card_count: 1,
      online_count: 1,
      total_revenue: 239.49,
      total_discounts: 101.09,
      total_subtotal: 340.58,
      cash_revenue: 0.3,
      card_revenue: 200.2,
      online_revenue: 38.99,
    });
    const day = (
      await answerOf(
        t.api().GET('/lab_bills/summary', {
          params: { query: { store_id: store, date: '2090-05-01', from_date: '2090-05-02' } },
        }),
      )
    ).body.summary;
    expect(day).toMatchObject({ total_bills: 2, total_revenue: 0.3, cash_revenue: 0.3, card_count: 0 });
    const range = (
      await answerOf(
        t.api().GET('/lab_bills/summary', {
          params: { query: { store_id: store, from_date: '2090-05-02', to_date: '2090-05-03' } },
        }),
      )
    ).body.summary;
    expect(range).toMatchObject({ total_bills: 2, total_revenue: 239.19, pending_count: 1, online_revenue: 38.99 });
  });

  it('follows each update at once: a change of notes leaves the sums, a change of payment moves them', async () => {
    const store = LIST_STORES[7]!;
    const line = [{ charge_id: chargesOf(store).active, charge_name: 'CBC', unit_price: 120.5, qty: 2 }];
    const { bill_id } = await createBill(
      { bill_date: '2090-06-01', payment_method: 'Cash', payment_status: 'Pending', items: line },
      {},
      store,
    );
    const summary = async () =>
      (
        await answerOf(
          t.api().GET('/lab_bills/summary', { params: { query: { store_id: store, date: '2090-06-01' } } }),
        )
      ).body.summary;
    const pending = {
      total_bills: 1,
      paid_count: 0,
      pending_count: 1,
      cash_count: 1,
      card_count: 0,
      cash_revenue: 241,
      card_revenue: 0,
      total_revenue: 241,
    };
    expect(await summary()).toMatchObject(pending);
    // The version tokens of the bill's day and month: only a change the totals count gives them new ones.
    const mongo = await MongoClient.connect(t.stack.infra.mongoUrl);
    const tokens = async () =>
      (
        await mongo
          .db('clinic_billing')
          .collection<{ _id: string; token: string }>('bill_days')
          .find({ _id: { $in: [`${store}:2090-06-01`, `m:${store}:2090-06`] } })
          .sort({ _id: 1 })
          .toArray()
      ).map((d) => d.token);
    const registered = await tokens();
    expect(registered).toHaveLength(2);

    expect(
      (
        await answerOf(
          t.api().PUT('/lab_bills/{bill_id}', { params: { path: { bill_id: bill_id } }, body: { notes: 'fasting' } }),
        )
      ).status,
    ).toBe(200);
    expect(await summary()).toMatchObject(pending);
    expect((await readBill(bill_id)).notes).toBe('fasting');
    expect(await tokens()).toEqual(registered);

    expect(
      (
        await answerOf(
          t.api().PUT('/lab_bills/{bill_id}', {
            params: { path: { bill_id: bill_id } },
            body: { payment_status: 'Paid', payment_method: 'Card' },
          }),
        )
      ).status,
    ).toBe(200);
    const [dayToken, monthToken] = await tokens();
    await mongo.close();
    expect(dayToken).not.toBe(registered[0]);
    expect(monthToken).not.toBe(registered[1]);
    expect(await summary()).toMatchObject({
      ...pending,
      paid_count: 1,
      pending_count: 0,
      cash_count: 0,
      card_count: 1,
      cash_revenue: 0,
      card_revenue: 241,
    });
    const list = (
      await answerOf(
        t.api().GET('/lab_bills', {
          params: { query: { store_id: store, payment_method: 'Card', payment_status: 'Paid' } },
        }),
      )
    ).body;
    expect(list.total).toBe(1);
    expect(list.bills[0].notes).toBe('fasting');

    expect(
      (await answerOf(t.api().DELETE('/lab_bills/{bill_id}', { params: { path: { bill_id: bill_id } } }))).status,
    ).toBe(200);
    expect(await summary()).toMatchObject({ total_bills: 0, total_revenue: 0 });
  });

  it('sums whole months and the days around them, and follows a write to either', async () => {
    const store = LIST_STORES[8]!;
    const line = (unit_price: number) => [
      { charge_id: chargesOf(store).active, charge_name: 'CBC', unit_price, qty: 1 },
    ];
    const dated = (bill_date: string, unit_price: number) =>
      createBill({ bill_date, payment_method: 'Cash', items: line(unit_price) }, {}, store);
    await dated('2090-05-19', 1000); // before the range
    await dated('2090-05-20', 1); // the range's first day
    const june = await dated('2090-06-30', 10); // a whole month
    await dated('2090-07-20', 100); // the range's last day
    await dated('2090-07-21', 2000); // after it
    const revenue = async (query: string) =>
      (await t.get(`/lab_bills/summary?store_id=${store}${query}`)).body.summary.total_revenue;
    const range = '&from_date=2090-05-20&to_date=2090-07-20';
    expect(await revenue(range)).toBe(111);
    expect(await revenue('')).toBe(3111);
    expect(await revenue('&from_date=2090-06-01&to_date=2090-06-30')).toBe(10);

    // A write to the whole month, then to an edge day: each read answers it at once.
    expect(
      (await answerOf(t.api().DELETE('/lab_bills/{bill_id}', { params: { path: { bill_id: june.bill_id } } }))).status,
    ).toBe(200);
    expect(await revenue(range)).toBe(101);
    expect(await revenue('')).toBe(3101);
    await dated('2090-07-01', 1000);
    expect(await revenue(range)).toBe(1101);
    expect(await revenue('&from_date=2090-06-01')).toBe(3100);
  });
});

describe('events', () => {
  it('publishes created, updated and cancelled for one bill, in order, with message ids', async () => {
    const nc = await t.nats();
    const reader = await EventReader.start(nc, 'BILLING_EVENTS');
    try {
      const created = await createBill({ payment_method: 'Cash', received_amount: 900 });
      await answerOf(
        t.api().PUT('/lab_bills/{bill_id}', {
          params: { path: { bill_id: created.bill_id } },
          body: { payment_status: 'Pending' },
        }),
      );
      await answerOf(t.api().DELETE('/lab_bills/{bill_id}', { params: { path: { bill_id: created.bill_id } } }));
      const events = await reader.waitFor((e) => e.event.data.bill.id === created.bill_id, 3);
      expect(events.map((e) => e.subject)).toEqual([
        EventSubjects.billCreated,
        EventSubjects.billUpdated,
        EventSubjects.billCancelled,
      ]);
      for (const e of events) expect(e.msgId).toBe(e.event.event_id);
      expect(events[0]!.event.data.bill).toMatchObject({
        bill_number: created.bill_number,
        grand_total: 850,
        subtotal: 850,
        received_amount: 900,
        items: [{ charge_id: chargesOf(1).active, qty: 1, unit_price: 850, line_total: 850 }],
      });
      expect(events[1]!.event.data.bill).toMatchObject({ payment_status: 'Pending', status: 'active' });
      expect(events[2]!.event.data.bill).toMatchObject({ status: 'cancelled', is_deleted: true });
    } finally {
      reader.stop();
    }
  });
});

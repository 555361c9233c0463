/** Bills through the gateway (setup in billing-stack.ts): creating one, as the spec's rules compute and number it. */
import { answerOf, failureOf, refused } from './harness';
import { t, chargesOf, freshDate, bill, createBill, readBill, countBills } from './billing-stack';

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
});

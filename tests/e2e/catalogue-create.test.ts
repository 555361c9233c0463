/** Charges through the gateway (setup in catalogue-stack.ts): creating one, hostile input, the list and one charge's read. */
import dayjs from 'dayjs';
import { answerOf, expectRefusals, failureOf, refused, TEST_TZ } from './harness';
import { t, freshStore, valid, create, readCharge, listAll } from './catalogue-stack';

describe('POST /hospital_charges', () => {
  it('creates a charge with defaults and reads it back', async () => {
    const store = freshStore();
    const before = dayjs().tz(TEST_TZ);
    const res = await create(valid(store, { notes: '  fasting  ' }), { sub: 7, role: 'receptionist' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ success: true, message: 'Charge created successfully.', charge_id: expect.any(Number) });

    const got = await readCharge(res.body.charge_id);
    expect(got.status).toBe(200);
    expect(got.body).toEqual({
      success: true,
      charge: {
        id: res.body.charge_id,
        charge_name: 'Full Blood Count',
        charge_type: 'Lab',
        amount: 850,
        status: 'Active',
        notes: 'fasting',
        store_id: store,
        created_by: 7,
        updated_by: null,
        created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/),
        updated_at: null,
      },
    });
    // The timestamp is the clinic's wall clock (CLINIC_TZ), not UTC.
    const createdAt = dayjs.tz(got.body.charge.created_at, 'YYYY-MM-DD HH:mm:ss', TEST_TZ);
    expect(Math.abs(createdAt.diff(before, 'second'))).toBeLessThan(30);
  });

  it('keeps a string caller identity as given and rounds amounts half-up to 2 decimals', async () => {
    const store = freshStore();
    const res = await create(valid(store, { amount: 10.005, status: 'Inactive', notes: '   ' }), {
      sub: 'nurse-ann',
      role: 'cashier',
    });
    expect(res.status).toBe(201);
    const { charge } = (await readCharge(res.body.charge_id)).body;
    expect(charge).toMatchObject({ amount: 10.01, status: 'Inactive', notes: null, created_by: 'nurse-ann' });
  });

  it.each([
    ['no body', undefined, 'Request body must be a JSON object.'],
    ['an array body', [1, 2], 'Request body must be a JSON object.'],
    ['missing charge_name', { charge_type: 'Lab', amount: 1, store_id: 1 }, 'charge_name is required.'],
    [
      'blank charge_name',
      { charge_name: '  ', charge_type: 'Lab', amount: 1, store_id: 1 },
      'charge_name is required.',
    ],
    ['missing charge_type', { charge_name: 'X', amount: 1, store_id: 1 }, 'charge_type is required.'],
    ['missing amount', { charge_name: 'X', charge_type: 'Lab', store_id: 1 }, 'amount is required.'],
    ['null amount', { charge_name: 'X', charge_type: 'Lab', amount: null, store_id: 1 }, 'amount is required.'],
    ['missing store_id', { charge_name: 'X', charge_type: 'Lab', amount: 1 }, 'store_id is required.'],
    [
      'text amount',
      { charge_name: 'X', charge_type: 'Lab', amount: 'abc', store_id: 1 },
      'amount must be a number greater than or equal to 0.',
    ],
    [
      'negative amount',
      { charge_name: 'X', charge_type: 'Lab', amount: -0.01, store_id: 1 },
      'amount must be a number greater than or equal to 0.',
    ],
    [
      'unknown charge_type',
      { charge_name: 'X', charge_type: 'Radiology', amount: 1, store_id: 1 },
      'charge_type must be General or Lab.',
    ],
    [
      'unknown status',
      { charge_name: 'X', charge_type: 'Lab', amount: 1, store_id: 1, status: 'active' },
      'status must be Active or Inactive.',
    ],
    // Rule order: presence comes before amount, amount before charge_type, charge_type before status.
    ['several problems', { charge_type: 'Nope', amount: -1, store_id: 1 }, 'charge_name is required.'],
    [
      'amount and type wrong',
      { charge_name: 'X', charge_type: 'Nope', amount: -1, store_id: 1, status: 'x' },
      'amount must be a number greater than or equal to 0.',
    ],
    [
      'type and status wrong',
      { charge_name: 'X', charge_type: 'Nope', amount: 1, store_id: 1, status: 'x' },
      'charge_type must be General or Lab.',
    ],
  ])('answers 400 for %s and stores nothing', async (_name, body, error) => {
    const before = await listAll(1);
    const res =
      body === undefined
        ? await answerOf(t.api().POST('/hospital_charges', { body: refused(undefined) }))
        : await create(refused(body));
    expect(res.status).toBe(400);
    expect(res.body).toEqual(failureOf(error));
    expect(await listAll(1)).toEqual(before);
  });

  it('answers 409 for a name already used by a live charge of the same store, whatever its case or spacing', async () => {
    const store = freshStore();
    expect((await create(valid(store, { charge_name: 'Lipid Profile' }))).status).toBe(201);
    const again = await create(valid(store, { charge_name: '  lipid   PROFILE ' }));
    expect(again.status).toBe(409);
    expect(again.body).toEqual(failureOf('A charge with this name already exists in this store.'));
    // Another store may use the name.
    expect((await create(valid(freshStore(), { charge_name: 'Lipid Profile' }))).status).toBe(201);
    expect(await listAll(store)).toHaveLength(1);
  });

  it('lets a deleted charge name be used again', async () => {
    const store = freshStore();
    const first = await create(valid(store, { charge_name: 'ECG' }));
    expect(
      (
        await answerOf(
          t.api().DELETE('/hospital_charges/{charge_id}', { params: { path: { charge_id: first.body.charge_id } } }),
        )
      ).status,
    ).toBe(200);
    const second = await create(valid(store, { charge_name: 'ECG' }));
    expect(second.status).toBe(201);
    expect((await listAll(store)).map((c) => c.id)).toEqual([second.body.charge_id]);
  });

  it('creates exactly one charge when two identical creates race, every time', async () => {
    for (let round = 0; round < 15; round++) {
      const store = freshStore();
      const results = await Promise.all([
        create(valid(store, { charge_name: `Race ${round}` })),
        create(valid(store, { charge_name: `Race ${round}` })),
      ]);
      expect(results.map((r) => r.status).sort()).toEqual([201, 409]);
      expect(await listAll(store)).toHaveLength(1);
    }
  });
});

describe('hostile input', () => {
  it.each([
    ['an operator object as a name', { charge_name: { $gt: '' } }, 'charge_name must be a string.'],
    ['an operator object as the store', { store_id: { $ne: null } }, 'store_id must be a positive integer.'],
    ['a numeric string amount', { amount: '100' }, 'amount must be a number greater than or equal to 0.'],
    ['a huge name', { charge_name: 'x'.repeat(5000) }, 'charge_name must be at most 200 characters.'],
    ['a non-string note', { notes: ['a'] }, 'notes must be a string.'],
    ['an amount too large', { amount: 1e300 }, 'amount must be at most 999999999.99.'],
  ])('answers 400 for %s and stores nothing', async (_name, overrides, error) => {
    const store = freshStore();
    const res = await create(valid(store, overrides));
    expect(res.status).toBe(400);
    expect(res.body).toEqual(failureOf(error));
    expect(await listAll(store)).toEqual([]);
  });

  it('ignores fields it does not take, and refuses prototype-poisoning keys', async () => {
    const store = freshStore();
    const res = await create(valid(store, { is_deleted: true, live_key: 7, constructor: { x: 1 }, $where: '1' }));
    expect(res.status).toBe(201);
    const [charge] = await listAll(store);
    expect(charge!.id).toBe(res.body.charge_id);
    for (const field of ['is_deleted', 'live_key', '$where']) expect(charge).not.toHaveProperty(field);
    for (const poisoned of ['{"__proto__":{"admin":true}}', '{"constructor":{"prototype":{"admin":true}}}']) {
      const body = `{"charge_name":"P","charge_type":"Lab","amount":1,"store_id":${store},"x":${poisoned}}`;
      const refused = await t.post('/hospital_charges', undefined, {
        rawBody: body,
        headers: { 'content-type': 'application/json' },
      });
      expect(refused.status).toBe(400);
      expect(refused.body).toEqual(failureOf('Request body must not contain __proto__ or constructor.prototype keys.'));
    }
    expect(await listAll(store)).toHaveLength(1);
  });

  it('does not treat an operator in the query string as an operator', async () => {
    const store = freshStore();
    await create(valid(store, { charge_name: 'Visible' }));
    // `charge_type={"$ne":1}` is a literal type name that no charge has.
    const res = await answerOf(
      t
        .api()
        .GET('/hospital_charges', { params: { query: { store_id: store, charge_type: '%7B%22%24ne%22%3A1%7D' } } }),
    );
    expect(res.status).toBe(200);
    expect(res.body.charges).toEqual([]);
    // `status[$ne]=x` is a parameter named "status[$ne]": ignored.
    const bracket = await t.get(`/hospital_charges?store_id=${store}&status[$ne]=x`);
    expect(bracket.body.charges.map((c: any) => c.charge_name)).toEqual(['Visible']);
    const injected = await t.get(`/hospital_charges?store_id[$gt]=0`);
    expect(injected.status).toBe(400);
    expect(injected.body).toEqual(failureOf('store_id is required.'));
  });
});

describe('GET /hospital_charges', () => {
  it('requires store_id', async () => {
    const refusals = [
      [{}, 400, 'store_id is required.'],
      [{ store_id: 'abc' }, 400, 'store_id must be a positive integer.'],
    ] as const;
    const list = (query: unknown) => answerOf(t.api().GET('/hospital_charges', { params: { query: refused(query) } }));
    await expectRefusals(refusals, list);
  });

  it('filters by status, type and search, orders by name and counts', async () => {
    const store = freshStore();
    const other = freshStore();
    await create(valid(store, { charge_name: 'urine Full Report', charge_type: 'Lab', amount: 500 }));
    await create(
      valid(store, { charge_name: 'ECG', charge_type: 'General', amount: 1200, notes: 'Cardiac (resting)' }),
    );
    await create(valid(store, { charge_name: 'Blood Sugar', charge_type: 'Lab', amount: 450, status: 'Inactive' }));
    await create(valid(store, { charge_name: 'a.b*c', charge_type: 'General', amount: 1 }));
    await create(valid(other, { charge_name: 'ECG', charge_type: 'General', amount: 1 }));

    const all = await answerOf(t.api().GET('/hospital_charges', { params: { query: { store_id: store } } }));
    expect(all.body.count).toBe(4);
    expect(all.body.charges.map((c: any) => c.charge_name)).toEqual([
      'a.b*c',
      'Blood Sugar',
      'ECG',
      'urine Full Report',
    ]);

    expect((await listAll(store, '&status=Inactive')).map((c) => c.charge_name)).toEqual(['Blood Sugar']);
    expect(await listAll(store, '&status=inactive')).toEqual([]); // exact match, not validated
    expect((await listAll(store, '&charge_type=General')).map((c) => c.charge_name)).toEqual(['a.b*c', 'ECG']);
    expect((await listAll(store, '&search=FULL')).map((c) => c.charge_name)).toEqual(['urine Full Report']);
    expect((await listAll(store, '&search=cardiac')).map((c) => c.charge_name)).toEqual(['ECG']);
    expect((await listAll(store, `&search=${encodeURIComponent('(resting)')}`)).map((c) => c.charge_name)).toEqual([
      'ECG',
    ]);
    // Metacharacters are literal: "b*c" is found in "a.b*c", while ".*" and "[" match nothing.
    expect((await listAll(store, `&search=${encodeURIComponent('b*c')}`)).map((c) => c.charge_name)).toEqual(['a.b*c']);
    expect(await listAll(store, `&search=${encodeURIComponent('.*')}`)).toEqual([]);
    expect(await listAll(store, `&search=${encodeURIComponent('[')}`)).toEqual([]);
  });

  it('survives catastrophic regular-expression patterns quickly', async () => {
    const store = freshStore();
    await create(valid(store, { charge_name: 'a'.repeat(60) }));
    const started = Date.now();
    const res = await answerOf(
      t.api().GET('/hospital_charges', { params: { query: { store_id: store, search: '(a+)+$' } } }),
    );
    expect(res.status).toBe(200);
    expect(res.body.charges).toEqual([]);
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});

describe('GET /hospital_charges/{id}', () => {
  it('answers 404 for a missing or malformed id', async () => {
    for (const id of ['999999', 'abc', '0', '-1']) {
      const res = await answerOf(
        t.api().GET('/hospital_charges/{charge_id}', { params: { path: { charge_id: refused(id) } } }),
      );
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ success: false, error: 'Charge not found.', code: 'CHARGE_NOT_FOUND' });
    }
  });
});

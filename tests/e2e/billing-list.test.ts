/** Bills through the gateway (setup in billing-stack.ts): the list's filters and pages, and one bill's read. */
import { answerOf, expectRefusals, failureOf, refused } from './harness';
import { t, LIST_STORES, freshDate, createBill } from './billing-stack';

describe('GET /lab_bills', () => {
  it('requires store_id', async () => {
    const refusals = [
      [{}, 400, 'store_id is required.'],
      [{ store_id: 'x' }, 400, 'store_id must be a positive integer.'],
      [{ store_id: 1, from_date: 'yesterday' }, 400, 'from_date must be a date in YYYY-MM-DD format.'],
    ] as const;
    const list = (query: unknown) => answerOf(t.api().GET('/lab_bills', { params: { query: refused(query) } }));
    await expectRefusals(refusals, list);
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

/**
 * Conditional requests: an ETag on each single-record read (bill,
 * charge, session), If-None-Match answered 304, If-Match on PUT and DELETE
 * refused with 412 when the record changed since it was read; without these
 * headers, the spec's answers.
 */
import { headers as natsHeaders } from 'nats';
import { BillingSubjects, HeaderNames } from '@clinic/contracts';
import { branch, cbcBill, chargeIn, doctor } from './fixtures';
import { startTestStack, type ApiResponse, type TestStack } from './harness';

let t: TestStack;
let chargeId: number;
const DOCTOR = 51;
const STALE = 'The record has changed since it was read (If-Match). Read it again, then retry.';

beforeAll(async () => {
  // Two billing replicas: concurrent changes of one bill land on both.
  t = await startTestStack({ replicas: { billing: 2 } });
  await t.seed({
    stores: [branch(1, 'Main')],
    users: [{ id: 7, name: 'Kasun Silva' }],
    doctors: [doctor(DOCTOR, { name: 'Dr. Tags', specialization: 'General', channeling_fee: 1500 })],
  });
  chargeId = await chargeIn(t, 1, 'CBC', 850);
}, 120_000);
afterAll(async () => {
  await t?.stop();
});

async function newBill(overrides: Record<string, unknown> = { payment_method: 'Card' }): Promise<number> {
  const res = await t.post('/lab_bills', cbcBill(1, chargeId, '2094-02-01', { billed_by: 7, ...overrides }));
  expect(res.status).toBe(201);
  return res.body.bill_id;
}

function etagOf(res: ApiResponse): string {
  expect(res.status).toBe(200);
  const etag = res.headers.get('etag');
  expect(etag).toMatch(/^"[A-Za-z0-9_-]{20,}"$/);
  return etag!;
}

const expectStale = (res: ApiResponse) => {
  expect(res.status).toBe(412);
  expect(res.body).toMatchObject({ success: false, error: STALE });
};

describe('bills', () => {
  it('tags a read, answers 304 to If-None-Match while it holds, and a new tag once the bill changes', async () => {
    const id = await newBill();
    const first = await t.get(`/lab_bills/${id}`);
    const etag = etagOf(first);
    expect(etagOf(await t.get(`/lab_bills/${id}`))).toBe(etag);

    const unchanged = await t.get(`/lab_bills/${id}`, { headers: { 'if-none-match': etag } });
    expect(unchanged.status).toBe(304);
    expect(unchanged.body).toBe('');
    expect(unchanged.headers.get('etag')).toBe(etag);
    // A list of tags, weak comparison, and *.
    for (const header of [`"other", ${etag}`, `W/${etag}`, '*'])
      expect((await t.get(`/lab_bills/${id}`, { headers: { 'if-none-match': header } })).status).toBe(304);

    expect((await t.put(`/lab_bills/${id}`, { notes: 'changed' })).status).toBe(200);
    const changed = await t.get(`/lab_bills/${id}`, { headers: { 'if-none-match': etag } });
    expect(etagOf(changed)).not.toBe(etag);
    expect(changed.body.bill.notes).toBe('changed');
  });

  it('answers the typed client notModified for a 304, neither data nor an error, and the bill once it changed', async () => {
    const id = await newBill();
    const etag = etagOf(await t.get(`/lab_bills/${id}`));
    const read = () =>
      t.api().GET('/lab_bills/{bill_id}', { params: { path: { bill_id: id }, header: { 'If-None-Match': etag } } });
    const current = await read();
    expect({ ...current, response: current.response.status }).toEqual({ notModified: true, response: 304 });
    expect((await t.put(`/lab_bills/${id}`, { notes: 'changed' })).status).toBe(200);
    const changed = await read();
    expect(changed.notModified).toBeUndefined();
    expect(changed.data?.bill.notes).toBe('changed');
  });

  it('answers a PUT with the new tag, which a read then gives and the next conditional PUT takes', async () => {
    const id = await newBill({ payment_method: 'Card', payment_status: 'Pending' });
    const read = etagOf(await t.get(`/lab_bills/${id}`));
    const first = await t.put(`/lab_bills/${id}`, { notes: 'first' }, { headers: { 'if-match': read } });
    expect(first.status).toBe(200);
    const tag = first.headers.get('etag');
    expect(tag).toBe(etagOf(await t.get(`/lab_bills/${id}`)));
    // A change that moves money (a payment on the ledger) answers the tag of the bill with it too.
    const paid = await t.put(`/lab_bills/${id}`, { payment_status: 'Paid' }, { headers: { 'if-match': tag! } });
    expect(paid.status).toBe(200);
    const after = await t.get(`/lab_bills/${id}`);
    expect(after.body.bill).toMatchObject({ notes: 'first', payment_status: 'Paid', due_amount: 0 });
    expect(paid.headers.get('etag')).toBe(etagOf(after));
    // The tag of the first change is stale once the second landed.
    expectStale(await t.put(`/lab_bills/${id}`, { notes: 'third' }, { headers: { 'if-match': tag! } }));
  });

  it("changes the tag when what the read joins changes: the cashier's name", async () => {
    const id = await newBill();
    const before = await t.get(`/lab_bills/${id}`);
    expect(before.body.bill.billed_by_name).toBe('Kasun Silva');
    await t.seed({ users: [{ id: 7, name: 'Kasun A. Silva' }] });
    const after = await t.get(`/lab_bills/${id}`);
    expect(after.body.bill.billed_by_name).toBe('Kasun A. Silva');
    expect(etagOf(after)).not.toBe(etagOf(before));
  });

  it('updates with the current tag, refuses a stale one with 412 and changes nothing', async () => {
    const id = await newBill();
    const etag = etagOf(await t.get(`/lab_bills/${id}`));
    // Another cashier changes the bill first.
    expect(
      (await t.put(`/lab_bills/${id}`, { notes: 'first cashier' }, { headers: { 'if-match': etag } })).status,
    ).toBe(200);
    expectStale(await t.put(`/lab_bills/${id}`, { notes: 'second cashier' }, { headers: { 'if-match': etag } }));
    expect((await t.get(`/lab_bills/${id}`)).body.bill.notes).toBe('first cashier');
    // Weak tags never match If-Match; * matches a bill that exists.
    const current = etagOf(await t.get(`/lab_bills/${id}`));
    expectStale(await t.put(`/lab_bills/${id}`, { notes: 'x' }, { headers: { 'if-match': `W/${current}` } }));
    expect(
      (await t.put(`/lab_bills/${id}`, { notes: 'y' }, { headers: { 'if-match': `"a", ${current}` } })).status,
    ).toBe(200);
    expect((await t.put(`/lab_bills/${id}`, { notes: 'z' }, { headers: { 'if-match': '*' } })).status).toBe(200);
  });

  it('lets one of many concurrent updates with the same tag through, across replicas, and refuses the others', async () => {
    const id = await newBill();
    const etag = etagOf(await t.get(`/lab_bills/${id}`));
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        t.put(`/lab_bills/${id}`, { notes: `cashier ${i}` }, { headers: { 'if-match': etag } }),
      ),
    );
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses).toEqual([200, 412, 412, 412, 412, 412, 412, 412]);
    const winner = answers.findIndex((a) => a.status === 200);
    expect((await t.get(`/lab_bills/${id}`)).body.bill.notes).toBe(`cashier ${winner}`);
    const history = await t.get(`/lab_bills/${id}/history`);
    expect(history.body.history.map((h: { action: string }) => h.action)).toEqual(['created', 'updated']);
  });

  it('changes the tag when money moves on the bill: a stale tag cannot change it after a payment', async () => {
    const id = await newBill({ bill_date: '2094-02-02', payment_status: 'Pending' });
    const before = await t.get(`/lab_bills/${id}`);
    const paid = await t.post(
      `/lab_bills/${id}/payments`,
      { amount: 300, method: 'Cash' },
      { role: 'cashier', sub: 7 },
    );
    expect(paid.status).toBe(201);
    const after = await t.get(`/lab_bills/${id}`);
    expect(after.body.bill.paid_amount).toBe(300);
    expect(etagOf(after)).not.toBe(etagOf(before));
    expectStale(await t.put(`/lab_bills/${id}`, { notes: 'x' }, { headers: { 'if-match': etagOf(before) } }));
  });

  it('cancels with the current tag only; the spec answers first for what is not there', async () => {
    const id = await newBill();
    const etag = etagOf(await t.get(`/lab_bills/${id}`));
    await t.put(`/lab_bills/${id}`, { payment_status: 'Pending' });
    expectStale(await t.del(`/lab_bills/${id}`, { headers: { 'if-match': etag } }));
    expect((await t.get(`/lab_bills/${id}`)).status).toBe(200);
    const current = etagOf(await t.get(`/lab_bills/${id}`));
    expect((await t.del(`/lab_bills/${id}`, { headers: { 'if-match': current } })).status).toBe(200);
    // A cancelled bill, or one that never was: the spec's 404, whatever the tag.
    const again = await t.del(`/lab_bills/${id}`, { headers: { 'if-match': current } });
    expect(again.status).toBe(404);
    expect((await t.put('/lab_bills/999999', { notes: 'x' }, { headers: { 'if-match': current } })).status).toBe(404);
  });

  it('keeps the ETag and If-Match over NATS: the reply carries etag, the if-match header is checked', async () => {
    const id = await newBill();
    const nc = await t.nats('hospital');
    const call = async (subject: string, payload: object, ifMatch?: string) => {
      const h = natsHeaders();
      h.set(HeaderNames.authorization, `Bearer ${t.token('cashier', 7)}`);
      if (ifMatch) h.set(HeaderNames.ifMatch, ifMatch);
      const msg = await nc.request(subject, JSON.stringify(payload), { headers: h, timeout: 5000 });
      return msg.json<{ status: number; etag?: string; body: { success: boolean; error?: string } }>();
    };
    const read = await call(BillingSubjects.get, { params: { bill_id: String(id) } });
    expect(read.status).toBe(200);
    expect(read.etag).toBe(etagOf(await t.get(`/lab_bills/${id}`)));
    await t.put(`/lab_bills/${id}`, { notes: 'over HTTP' });
    const stale = await call(
      BillingSubjects.update,
      { params: { bill_id: String(id) }, body: { notes: 'n' } },
      read.etag,
    );
    expect(stale.status).toBe(412);
    expect(stale.body).toMatchObject({ success: false, error: STALE });
  });
});

describe('charges', () => {
  it('tags a read; a stale If-Match is refused on PUT and DELETE, the current one accepted', async () => {
    const id = await chargeIn(t, 1, 'ESR', 300);
    const etag = etagOf(await t.get(`/hospital_charges/${id}`));
    expect((await t.get(`/hospital_charges/${id}`, { headers: { 'if-none-match': etag } })).status).toBe(304);
    const replacement = { store_id: 1, charge_name: 'ESR', charge_type: 'Lab', amount: 350 };
    const replaced = await t.put(`/hospital_charges/${id}`, replacement, { headers: { 'if-match': etag } });
    expect(replaced.status).toBe(200);
    // The PUT's answer carries the tag a read now gives.
    expect(replaced.headers.get('etag')).toBe(etagOf(await t.get(`/hospital_charges/${id}`)));
    expectStale(
      await t.put(`/hospital_charges/${id}`, { ...replacement, amount: 400 }, { headers: { 'if-match': etag } }),
    );
    expectStale(await t.del(`/hospital_charges/${id}`, { headers: { 'if-match': etag } }));
    const current = await t.get(`/hospital_charges/${id}`);
    expect(current.body.charge.amount).toBe(350);
    expect((await t.del(`/hospital_charges/${id}`, { headers: { 'if-match': etagOf(current) } })).status).toBe(200);
  });
});

describe('sessions', () => {
  it('tags a read; a stale If-Match is refused on update and delete, the current one accepted', async () => {
    const made = await t.post('/add_session', {
      doctor_id: DOCTOR,
      session_date: '2094-02-03',
      session_no: 1,
      start_time: '08:00',
      end_time: '10:00',
    });
    const id = made.body.session_id;
    const etag = etagOf(await t.get(`/get_session/${id}`));
    expect((await t.get(`/get_session/${id}`, { headers: { 'if-none-match': etag } })).status).toBe(304);
    const updated = await t.put(`/update_session/${id}`, { end_time: '11:00' }, { headers: { 'if-match': etag } });
    expect(updated.status).toBe(200);
    expect(updated.headers.get('etag')).toBe(etagOf(await t.get(`/get_session/${id}`)));
    expectStale(await t.put(`/update_session/${id}`, { end_time: '12:00' }, { headers: { 'if-match': etag } }));
    // Bad input is refused as such, whatever the tag: only a valid change can be stale.
    const bad = await t.put(`/update_session/${id}`, { session_date: '' }, { headers: { 'if-match': etag } });
    expect({ status: bad.status, success: bad.body.success, code: bad.body.code }).toEqual({
      status: 422,
      success: false,
      code: 'VALIDATION_FAILED',
    });
    expectStale(await t.del(`/delete_session/${id}`, { headers: { 'if-match': etag } }));
    const current = await t.get(`/get_session/${id}`);
    expect(current.body.session.end_time).toBe('11:00');
    expect((await t.del(`/delete_session/${id}`, { headers: { 'if-match': etagOf(current) } })).status).toBe(200);
  });
});

it('puts no ETag on lists, and answers them in full whatever If-None-Match says', async () => {
  const res = await t.get('/hospital_charges?store_id=1', { headers: { 'if-none-match': '*' } });
  expect(res.status).toBe(200);
  expect(res.headers.get('etag')).toBeNull();
});

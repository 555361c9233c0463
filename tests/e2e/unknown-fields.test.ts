/**
 * Typos in request bodies: the routes beyond the spec refuse a field
 * they do not name (400, `field` naming it) and record nothing; the spec's
 * routes ignore such fields, as the original service did, unless the services
 * run with UNKNOWN_BODY_FIELDS=refuse: then they refuse them too (422 on the
 * session routes, as their other refusals).
 */
import { branch, cbcBill, cbcIn, doctor } from './fixtures';
import { failureOf, fileStack } from './harness';
import { inDaysFromToday } from './calendar';

const SEED = { stores: [branch(1, 'Main')], doctors: [doctor(1, { name: 'Dr. Anura' })] };
const BILL_DATE = '2093-03-10';

/** The stack of a describe block, seeded with SEED and a CBC at 850. */
function stackWithCbc(env: Record<string, string> = {}) {
  const t = fileStack(SEED, { env });
  let chargeId = 0;
  beforeAll(async () => {
    chargeId = await cbcIn(t, 1);
  });
  /** A Pending bill of one CBC; its id. */
  const pendingBill = async (): Promise<number> => {
    const made = await t.post('/lab_bills', cbcBill(1, chargeId, BILL_DATE, { payment_status: 'Pending' }));
    expect(made.status).toBe(201);
    return made.body.bill_id;
  };
  return { t, pendingBill, chargeId: () => chargeId };
}

const refusedFor = (field: string) => ({ status: 400, body: failureOf(`Unknown field: ${field}.`) });
const answer = (res: { status: number; body: unknown }) => ({ status: res.status, body: res.body });

describe('by default', () => {
  const { t, pendingBill } = stackWithCbc();

  it('refuses a misspelt field on the routes beyond the spec, naming it, and records nothing', async () => {
    const id = await pendingBill();
    const pay = await t.post(`/lab_bills/${id}/payments`, { amount: 850, method: 'Cash', recieved_amount: 1000 });
    expect(answer(pay)).toEqual(refusedFor('recieved_amount'));
    expect((await t.get(`/lab_bills/${id}/payments`)).body).toMatchObject({ ledger: [], due_amount: 850 });

    const date = inDaysFromToday(-400);
    const close = await t.post('/lab_bills/day_close', {
      store_id: 1,
      date,
      counted_cash: [{ user_id: 7, amount: 0, amout: 10 }],
    });
    expect(answer(close)).toEqual(refusedFor('counted_cash[0].amout'));
    expect((await t.get(`/lab_bills/day_close?store_id=1&date=${date}`)).body.closing.status).toBe('open');
  });

  it("ignores it on the spec's routes, as the original service did", async () => {
    const id = await pendingBill();
    const put = await t.put(`/lab_bills/${id}`, { notes: 'Fasting', paymnet_status: 'Paid' });
    expect(put.status).toBe(200);
    expect((await t.get(`/lab_bills/${id}`)).body.bill).toMatchObject({ notes: 'Fasting', payment_status: 'Pending' });
  });
});

describe('with UNKNOWN_BODY_FIELDS=refuse', () => {
  const { t, pendingBill, chargeId } = stackWithCbc({ UNKNOWN_BODY_FIELDS: 'refuse' });

  it("refuses a misspelt field on the spec's bill and charge routes, nested ones too, and changes nothing", async () => {
    const id = await pendingBill();
    expect(answer(await t.put(`/lab_bills/${id}`, { notes: 'Fasting', paymnet_status: 'Paid' }))).toEqual(
      refusedFor('paymnet_status'),
    );
    expect((await t.get(`/lab_bills/${id}`)).body.bill).toMatchObject({ notes: null, payment_status: 'Pending' });
    const bill = cbcBill(1, chargeId(), BILL_DATE);
    const typo = { ...bill, items: [{ ...bill.items[0], qyt: 2 }] };
    expect(answer(await t.post('/lab_bills', typo))).toEqual(refusedFor('items[0].qyt'));
    const charge = { store_id: 1, charge_name: 'ESR', charge_type: 'Lab', amount: 300, notse: 'morning only' };
    expect(answer(await t.post('/hospital_charges', charge))).toEqual(refusedFor('notse'));
    expect(
      (await t.get('/hospital_charges?store_id=1')).body.charges.map((c: { charge_name: string }) => c.charge_name),
    ).toEqual(['CBC']);
  });

  it('refuses it on the session routes with their 422', async () => {
    const session = {
      doctor_id: 1,
      session_date: inDaysFromToday(30),
      session_no: 1,
      start_time: '08:00',
      end_time: '10:00',
    };
    const added = await t.post('/add_session', { ...session, max_patinets: 20 });
    expect(answer(added)).toEqual({ status: 422, body: failureOf('Unknown field: max_patinets.') });
    expect((await t.get('/all_sessions')).body.sessions).toEqual([]);
  });
});

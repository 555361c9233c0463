/**
 * The filters front ends expect: a patient's and a cashier's bills
 * on GET /lab_bills, and pages of the charge and session lists, which the spec
 * answers whole (and still does without page and per_page).
 */
import { failureOf, fileStack } from './harness';
import { cbcIn, DILANI, doctor, KASUN, MAIN_BRANCH, PATIENTS, SECOND_BRANCH } from './fixtures';

const DOCTOR = 41;

const t = fileStack({
  stores: [MAIN_BRANCH, SECOND_BRANCH],
  users: [KASUN, DILANI],
  patients: PATIENTS,
  doctors: [doctor(DOCTOR, { name: 'Dr. Paging', specialization: 'General', channeling_fee: 1500, store_id: 2 })],
});
let chargeId: number;

beforeAll(async () => {
  chargeId = await cbcIn(t, MAIN_BRANCH.id);
  await cbcIn(t, SECOND_BRANCH.id);
});

function bill(fields: Record<string, unknown>) {
  return {
    patient_name: 'Nimal Fernando',
    patient_contact: '0771234567',
    bill_date: '2093-03-01',
    payment_method: 'Card',
    store_id: 1,
    items: [{ charge_id: chargeId, charge_name: 'CBC', unit_price: 850, qty: 1 }],
    ...fields,
  };
}

async function createBill(fields: Record<string, unknown>): Promise<number> {
  const res = await t.post('/lab_bills', bill(fields));
  expect(res.status).toBe(201);
  return res.body.bill_id;
}

describe('GET /lab_bills: patient_id and billed_by', () => {
  const ids: Record<string, number> = {};

  beforeAll(async () => {
    ids.p1by7 = await createBill({ patient_id: 1, billed_by: 7 });
    ids.p1by8 = await createBill({ patient_id: 1, billed_by: 8, bill_date: '2093-03-02', payment_status: 'Pending' });
    ids.p2by7 = await createBill({ patient_id: 2, patient_name: 'Ayesha Jayawardena', billed_by: 7 });
    ids.noPatientBy8 = await createBill({ billed_by: 8, bill_date: '2093-03-02' });
    ids.p1by7cancelled = await createBill({ patient_id: 1, billed_by: 7 });
    expect((await t.del(`/lab_bills/${ids.p1by7cancelled}`)).status).toBe(200);
  });

  const listed = async (query: string) => {
    const res = await t.get(`/lab_bills?store_id=1&${query}`);
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    return res.body as { bills: Array<{ id: number; patient_id: number; billed_by: number }>; total: number };
  };

  it("lists one patient's live bills only, newest first, and counts them", async () => {
    const page = await listed('patient_id=1');
    expect(page.bills.map((b) => b.id)).toEqual([ids.p1by8, ids.p1by7]);
    expect(page.total).toBe(2);
    expect(page.bills.every((b) => b.patient_id === 1)).toBe(true);
    // Another branch holds none of them.
    const other = await t.get('/lab_bills?store_id=2&patient_id=1');
    expect(other.body).toMatchObject({ success: true, bills: [], total: 0, count: 0 });
  });

  it("lists one cashier's bills, and combines with the patient, the date, the status and a search", async () => {
    expect((await listed('billed_by=8')).bills.map((b) => b.id)).toEqual([ids.noPatientBy8, ids.p1by8]);
    expect((await listed('billed_by=7')).total).toBe(2);
    expect((await listed('billed_by=7&patient_id=1')).bills.map((b) => b.id)).toEqual([ids.p1by7]);
    expect((await listed('patient_id=1&date=2093-03-02')).bills.map((b) => b.id)).toEqual([ids.p1by8]);
    expect((await listed('patient_id=1&from_date=2093-03-01&to_date=2093-03-01')).bills.map((b) => b.id)).toEqual([
      ids.p1by7,
    ]);
    expect((await listed('billed_by=8&payment_status=Pending')).bills.map((b) => b.id)).toEqual([ids.p1by8]);
    const search = await listed('patient_id=2&search=ayesha');
    expect(search.bills.map((b) => b.id)).toEqual([ids.p2by7]);
    expect(search.total).toBe(1);
    const paged = await listed('billed_by=8&per_page=1&page=2');
    expect(paged).toMatchObject({ bills: [{ id: ids.p1by8 }], count: 1, total: 2, page: 2, per_page: 1, pages: 2 });
  });

  it('refuses an id that is not a positive integer as store_id is refused; empty counts as absent', async () => {
    for (const [query, error] of [
      ['patient_id=abc', 'patient_id must be a positive integer.'],
      ['patient_id=0', 'patient_id must be a positive integer.'],
      ['billed_by=-3', 'billed_by must be a positive integer.'],
      ['billed_by=1.5', 'billed_by must be a positive integer.'],
    ]) {
      const res = await t.get(`/lab_bills?store_id=1&${query}`);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ success: false, error });
    }
    expect((await listed('patient_id=&billed_by=')).total).toBe(4);
  });
});

describe('GET /hospital_charges: page and per_page', () => {
  beforeAll(async () => {
    for (const name of ['ESR', 'Lipid', 'Urea', 'Ferritin'])
      await t.post('/hospital_charges', { store_id: 1, charge_name: name, charge_type: 'Lab', amount: 100 });
  });

  it('answers the whole list without them, as the spec does', async () => {
    const res = await t.get('/hospital_charges?store_id=1');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['charges', 'count', 'success']);
    expect(res.body.count).toBe(5);
  });

  it('pages the list by name with count, total, page, per_page and pages', async () => {
    const res = await t.get('/hospital_charges?store_id=1&page=2&per_page=2');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, count: 2, total: 5, page: 2, per_page: 2, pages: 3 });
    expect(res.body.charges.map((c: { charge_name: string }) => c.charge_name)).toEqual(['Ferritin', 'Lipid']);
    const last = await t.get('/hospital_charges?store_id=1&page=3&per_page=2&charge_type=Lab');
    expect(last.body.charges.map((c: { charge_name: string }) => c.charge_name)).toEqual(['Urea']);
    // per_page alone: the first page; out of range values are clamped as the bill list's.
    const first = await t.get('/hospital_charges?store_id=1&per_page=500');
    expect(first.body).toMatchObject({ count: 5, total: 5, page: 1, per_page: 100, pages: 1 });
    const below = await t.get('/hospital_charges?store_id=1&page=-4&per_page=0');
    expect(below.body).toMatchObject({ count: 1, page: 1, per_page: 1, pages: 5 });
    const beyond = await t.get('/hospital_charges?store_id=1&page=9&per_page=2');
    expect(beyond.body).toMatchObject({ charges: [], count: 0, total: 5, page: 9 });
  });

  it('refuses a page that is not an integer with 400, as the bill list does', async () => {
    const res = await t.get('/hospital_charges?store_id=1&page=two');
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject(failureOf('page must be an integer.'));
  });
});

describe('GET /all_sessions: page and per_page', () => {
  const dates = ['2093-05-04', '2093-05-05', '2093-05-06'];

  beforeAll(async () => {
    for (const session_date of dates) {
      const res = await t.post('/add_session', {
        doctor_id: DOCTOR,
        session_date,
        session_no: 1,
        start_time: '08:00',
        end_time: '10:00',
      });
      expect(res.status).toBe(201);
    }
  });

  it('answers the whole list without them, as the spec does', async () => {
    const res = await t.get(`/all_sessions?doctor_id=${DOCTOR}`);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['sessions', 'success']);
    expect(res.body.sessions).toHaveLength(3);
  });

  it('pages the list, latest date first, with count, total, page, per_page and pages', async () => {
    const res = await t.get(`/all_sessions?doctor_id=${DOCTOR}&page=1&per_page=2`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, count: 2, total: 3, page: 1, per_page: 2, pages: 2 });
    expect(res.body.sessions.map((s: { session_date: string }) => s.session_date)).toEqual([
      '2093-05-06',
      '2093-05-05',
    ]);
    const second = await t.get(`/all_sessions?doctor_id=${DOCTOR}&page=2&per_page=2`);
    expect(second.body.sessions.map((s: { session_date: string }) => s.session_date)).toEqual(['2093-05-04']);
  });

  it("refuses a page that is not an integer with the list's own status for a bad filter (422)", async () => {
    const res = await t.get(`/all_sessions?doctor_id=${DOCTOR}&per_page=ten`);
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject(failureOf('per_page must be an integer.'));
  });
});

/**
 * The setup of security.test.ts, kept apart so that the test file reads as its tests: the stack (the beforeAll
 * and afterAll below run in the file that imports this module), its seed and helpers.
 */
import { HTTP_ROUTES, type HttpRoute } from '@clinic/contracts';
import { branch, doctor } from './fixtures';
import { startTestStack, type TestStack } from './harness';

export let t: TestStack;
/** Made in beforeAll, which checks each. */
export const ids = {} as { bill: number; charge: number; otherCharge: number; session: number; appointment: number };

export const OPERATORS: unknown[] = [{ $gt: '' }, { $ne: null }, { $where: 'sleep(1000)' }, { $regex: '.*' }, ['$in']];

/** A valid body per route, so that the injected field is the only thing wrong. */
export function validBody(route: HttpRoute): Record<string, unknown> | undefined {
  switch (`${route.method} ${route.url}`) {
    case 'POST /lab_bills':
      return {
        patient_name: 'P',
        patient_contact: 'C',
        bill_date: '2090-11-21',
        payment_method: 'Cash',
        store_id: 1,
        items: [{ charge_id: ids.charge, charge_name: 'CBC', unit_price: 10, qty: 1 }],
        notes: 'n',
        patient_nic: 'N',
        patient_id: 1,
        patient_age: 30,
        billed_by: 1,
        payment_status: 'Paid',
        discount_type: 'flat',
        discount_value: 0,
        received_amount: 20,
        balance_amount: 10,
      };
    case 'PUT /lab_bills/:bill_id':
      return { payment_status: 'Paid', payment_method: 'Card', received_amount: 1, balance_amount: 1, notes: 'n' };
    case 'DELETE /lab_bills/:bill_id':
      return { reason: 'r' };
    case 'POST /lab_bills/:bill_id/payments':
      return { amount: 1, method: 'Cash', received_amount: 5, reference: 'r' };
    case 'POST /lab_bills/:bill_id/refunds':
      return { amount: 1, method: 'Cash', reason: 'r', item_id: ids.bill * 1000 + 1 };
    case 'POST /lab_bills/day_close':
      // A day not begun yet: a valid body closes nothing.
      return { store_id: 1, date: '2099-12-31', counted_cash: [{ user_id: 1, amount: 0 }] };
    case 'DELETE /lab_bills/day_close':
      return { reason: 'r' };
    case 'POST /hospital_charges':
      return { charge_name: 'Injected', charge_type: 'Lab', amount: 1, store_id: 1, status: 'Active', notes: 'n' };
    case 'PUT /hospital_charges/:charge_id':
      return { charge_name: 'Injected', charge_type: 'Lab', amount: 1, status: 'Active', notes: 'n' };
    case 'POST /add_session':
      return {
        doctor_id: 1,
        session_date: '2099-01-05',
        session_no: 7,
        start_time: '09:00',
        end_time: '10:00',
        max_patients: 5,
        status: 'Open',
        notes: 'n',
      };
    case 'PUT /update_session/:session_id':
      return { session_date: '2099-01-06', start_time: '09:00', end_time: '10:00', max_patients: 5, status: 'Open' };
    case 'POST /auto_create_sessions':
      return { month: '2099-03', doctor_id: 1, store_id: 1 };
    case 'POST /sessions/:session_id/appointments':
      return {
        patient_name: 'P',
        patient_contact: 'C',
        patient_nic: 'N',
        patient_id: 1,
        fee_level: 'local',
        source: 'counter',
      };
    case 'PUT /appointments/:appointment_id':
      return { status: 'arrived', patient_name: 'P', patient_contact: 'C', patient_nic: 'N', patient_id: 1 };
    case 'DELETE /appointments/:appointment_id':
    case 'DELETE /sessions/:session_id/settlement':
      return { reason: 'r' };
    case 'POST /appointments/:appointment_id/payments':
      return { amount: 1, method: 'Cash', received_amount: 5, reference: 'r' };
    case 'POST /appointments/:appointment_id/refunds':
      return { amount: 1, method: 'Cash', reason: 'r', item_id: 1 };
    case 'POST /sessions/:session_id/settlement':
      return { method: 'Cash' };
    case 'DELETE /hospital_charges/:charge_id':
      return { approval_id: null };
    // The cash office (shifts are off here: a valid body is refused 409, an injected field 400 before that).
    case 'POST /shifts':
      return { store_id: 1, float: 100, float_denominations: [{ value: 100, count: 1 }], note: 'n' };
    case 'POST /shifts/:shift_id/drops':
    case 'POST /shifts/:shift_id/payouts':
      return { amount: 1, reason: 'r' };
    case 'POST /shifts/:shift_id/close':
      return { counted: 1, denominations: [{ value: 1, count: 1 }], note: 'n' };
    case 'POST /shifts/:shift_id/handover':
      return { to_user_id: 1, counted: 1, denominations: [{ value: 1, count: 1 }], note: 'n' };
    case 'POST /shifts/:shift_id/accept':
      return { amount: 1 };
    case 'POST /shifts/:shift_id/sign_off':
    case 'POST /approvals/:approval_id/approve':
    case 'POST /approvals/:approval_id/decline':
      return { note: 'n' };
    case 'POST /approvals':
      return { store_id: 1, checks: [{ rule: 'bill_date', details: { bill_date: '2099-01-01' } }], reason: 'r' };
    default:
      return undefined;
  }
}

export function pathOf(route: HttpRoute): string {
  const byParam: Record<string, number> = {
    bill_id: ids.bill,
    charge_id: ids.charge,
    session_id: ids.session,
    appointment_id: ids.appointment,
  };
  return route.param ? route.url.replace(`:${route.param}`, String(byParam[route.param])) : route.url;
}

/** Everything the stack holds that an accepted injection could have changed. */
export async function snapshot(): Promise<string> {
  const [bill, charges, sessions, bills, appointments, ledger, settlement] = await Promise.all([
    t.get(`/lab_bills/${ids.bill}`),
    t.get('/hospital_charges?store_id=1'),
    t.get('/all_sessions'),
    t.get('/lab_bills?store_id=1&per_page=100'),
    t.get(`/sessions/${ids.session}/appointments`),
    t.get(`/appointments/${ids.appointment}/payments`),
    t.get(`/sessions/${ids.session}/settlement`),
  ]);
  return JSON.stringify([
    bill.body,
    charges.body,
    sessions.body,
    bills.body.total,
    appointments.body,
    ledger.body,
    settlement.body,
  ]);
}

beforeAll(async () => {
  t = await startTestStack();
  await t.seed({
    stores: [branch(1, 'Main'), branch(2, 'Other')],
    patients: [{ id: 1, name: 'P' }],
    doctors: [doctor(1, { name: 'Dr. A', specialization: 'S', channeling_fee: 1 })],
  });
  ids.charge = (
    await t.post('/hospital_charges', { charge_name: 'CBC', charge_type: 'Lab', amount: 10, store_id: 1 })
  ).body.charge_id;
  const secret = await t.post('/hospital_charges', {
    charge_name: 'Other branch only',
    charge_type: 'Lab',
    amount: 99,
    store_id: 2,
  });
  ids.otherCharge = secret.body.charge_id;
  ids.bill = (
    await t.post('/lab_bills', validBody(HTTP_ROUTES.find((r) => r.url === '/lab_bills' && r.method === 'POST')!)!)
  ).body.bill_id;
  ids.session = (
    await t.post('/add_session', {
      doctor_id: 1,
      session_date: '2099-01-05',
      session_no: 1,
      start_time: '09:00',
      end_time: '10:00',
    })
  ).body.session_id;
  ids.appointment = (
    await t.post(`/sessions/${ids.session}/appointments`, { patient_name: 'Booked', patient_contact: '0771234567' })
  ).body.appointment?.id;
  for (const [name, id] of Object.entries(ids)) if (!id) throw new Error(`setup failed: no ${name}`);
});
afterAll(async () => {
  await t?.stop();
});

export const bodyRoutes = HTTP_ROUTES.filter((r) => r.body);

/**
 * What the channeling money e2e files share (billing's side): a
 * stack seeded with branches that each test may own (the drawer is per branch
 * and day, and money moves on today), each with a doctor whose fee and whose
 * branch's hospital fee make the split 1,500.50 + 750.25; sessions, bookings,
 * moves and money through the gateway.
 */
import { inDaysFromToday } from './calendar';
import { ADMIN_USER, DILANI, doctor, KASUN } from './fixtures';
import { fileStack, type RequestOptions } from './harness';

export const BRANCHES = 10;
/** The doctor of branch `store`; branch 10's is paid for absent patients. */
export const doctorOf = (store: number) => 100 + store;
export const SINHALA_BRANCH = 'කොළඹ ශාඛාව Colombo';

export const t = fileStack({
  stores: Array.from({ length: BRANCHES }, (_, i) => ({
    id: i + 1,
    name: i === 0 ? SINHALA_BRANCH : `Branch ${i + 1}`,
    status: 'active',
    channeling_fees: { local: 750.25 },
  })),
  users: [ADMIN_USER, KASUN, DILANI],
  doctors: Array.from({ length: BRANCHES }, (_, i) =>
    doctor(doctorOf(i + 1), {
      name: i === 0 ? 'වෛද්‍ය අනුර Dr. Anura' : `Dr. Branch ${i + 1}`,
      store_id: i + 1,
      channeling_fee: 1500.5,
      ...(i + 1 === BRANCHES ? { paid_for_absent: true } : {}),
    }),
  ),
});

/** Branch 1 (Sinhala names) is the slips'; the last is the one whose doctor is paid for absent patients. */
let nextBranch = 1;
/** A branch no other test of the file uses. */
export function freshBranch(): number {
  if (++nextBranch >= BRANCHES) throw new Error('no branch left for this test');
  return nextBranch;
}

export const KASUN_CASHIER: RequestOptions = { role: 'cashier', sub: KASUN.id };
export const DILANI_CASHIER: RequestOptions = { role: 'cashier', sub: DILANI.id };
export const RECEPTIONIST: RequestOptions = { role: 'receptionist', sub: 4 };

/** Each appointment's fee: the doctor's share, the hospital's, the total. */
export const FEE = { doctor: 1500.5, hospital: 750.25, total: 2250.75 };

let sessionNo = 0;
/** A session of the branch's doctor, in a few days (money moves on today whatever the session's date). */
export async function sessionIn(store: number): Promise<number> {
  const made = await t.post('/add_session', {
    doctor_id: doctorOf(store),
    session_date: inDaysFromToday(3),
    session_no: ++sessionNo,
    start_time: '18:00',
    end_time: '21:00',
  });
  if (made.status !== 201) throw new Error(`session not made: ${JSON.stringify(made.body)}`);
  return made.body.session_id;
}

/** A patient booked into the session; the appointment's id. */
export async function book(sessionId: number, name: string): Promise<number> {
  const booked = await t.post(`/sessions/${sessionId}/appointments`, {
    patient_name: name,
    patient_contact: '0771234567',
  });
  if (booked.status !== 201) throw new Error(`not booked: ${JSON.stringify(booked.body)}`);
  return booked.body.appointment.id;
}

/** Moves an appointment through the session (booked -> arrived -> consulted). */
export async function consulted(appointmentId: number): Promise<void> {
  for (const status of ['arrived', 'consulted']) {
    const moved = await t.put(`/appointments/${appointmentId}`, { status });
    if (moved.status !== 200) throw new Error(`not ${status}: ${JSON.stringify(moved.body)}`);
  }
}

export const pay = (id: number, body: unknown, options: RequestOptions = KASUN_CASHIER) =>
  t.post(`/appointments/${id}/payments`, body, options);
export const refund = (id: number, body: unknown, options: RequestOptions = KASUN_CASHIER) =>
  t.post(`/appointments/${id}/refunds`, body, options);
export const cancel = (id: number, reason: string, options: RequestOptions = DILANI_CASHIER) =>
  t.request('DELETE', `/appointments/${id}`, { reason }, options);
export const settle = (sessionId: number, body?: unknown, options: RequestOptions = KASUN_CASHIER) =>
  t.post(`/sessions/${sessionId}/settlement`, body, options);

export async function dayEndOf(store: number, date: string) {
  const res = await t.get(`/lab_bills/day_end?store_id=${store}&date=${date}`);
  if (res.status !== 200) throw new Error(`day-end not read: ${res.status}`);
  return res.body.report;
}

/** A user's line of the day-end's drawer. */
export const drawerLine = (report: { drawer?: Array<{ user_id: number }> }, userId: number) =>
  report.drawer?.find((line) => line.user_id === userId);

/** A PDF route's bytes as a cashier gets them. */
export async function pdfOf(path: string): Promise<{ status: number; type: string | null; pdf: Buffer }> {
  const res = await fetch(`${t.url}${path}`, { headers: { authorization: `Bearer ${t.token('cashier', KASUN.id)}` } });
  return { status: res.status, type: res.headers.get('content-type'), pdf: Buffer.from(await res.arrayBuffer()) };
}

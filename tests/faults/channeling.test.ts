/**
 * Channeling under faults: a sessions replica killed with SIGKILL
 * during a rush of bookings, and a billing replica during the payments of a
 * session's appointments, each request sent as a careful client sends it (an
 * Idempotency-Key, retried with it after a 5xx or a broken connection until
 * answered). No number is handed out twice, no booking is stored without its
 * answer, no payment is lost or recorded twice, and every retried key is
 * answered with the one record it made.
 */
import { randomUUID } from 'node:crypto';
import { BillingSubjects, SessionsSubjects } from '@clinic/contracts';
import { inDaysFromToday } from '../e2e/calendar';
import { branch, doctor } from '../e2e/fixtures';
import { eventually, sleep, startTestStack, type ApiResponse, type TestStack } from '../e2e/harness';
import { untilInFlight } from './in-flight';

let t: TestStack;

beforeAll(async () => {
  t = await startTestStack({ replicas: { sessions: 2, billing: 2 }, env: { REQUEST_TIMEOUT_MS: '3000' } });
  await t.seed({
    stores: [{ ...branch(1, 'Colombo'), channeling_fees: { local: 500 } }],
    doctors: [doctor(7, { store_id: 1 })],
  });
}, 120_000);
afterAll(async () => {
  await t?.stop();
});

/** Session `no` of the doctor in 30 days, with these times and cap; its id. */
async function sessionOf(no: number, fields: Record<string, unknown>): Promise<number> {
  const made = await t.post('/add_session', {
    doctor_id: 7,
    session_date: inDaysFromToday(30),
    session_no: no,
    ...fields,
  });
  if (made.status !== 201) throw new Error(`session not made: ${JSON.stringify(made.body)}`);
  return made.body.session_id;
}

/** Requests the killed replica holds unanswered when it is killed. */
const IN_FLIGHT_AT_KILL = 10;

/**
 * Sends each request until answered (a 5xx or a broken connection is retried with the same key), kills replica 0
 * of `service` with SIGKILL once it holds requests of `subject` it has received and not answered, whose callers get
 * no answer and retry, and starts it again: the answers, and how many attempts failed and were retried.
 */
async function killedDuring(
  service: 'sessions' | 'billing',
  subject: string,
  requests: Array<() => Promise<ApiResponse>>,
): Promise<{ answers: ApiResponse[]; retried: number }> {
  let retried = 0;
  const carefully = async (send: () => Promise<ApiResponse>): Promise<ApiResponse> => {
    for (let attempt = 1; ; attempt++) {
      const answer = await send().catch(() => null);
      if (answer && answer.status < 500) return answer;
      retried++;
      if (attempt >= 30) throw new Error(`no answer after ${attempt} attempts: ${JSON.stringify(answer?.body)}`);
      await sleep(200);
    }
  };
  const sending = Promise.all(requests.map(carefully));
  await untilInFlight(t, service, 0, [subject], IN_FLIGHT_AT_KILL);
  t.stack.replica(service, 0).signal('SIGKILL');
  const answers = await sending;
  t.stack.replica(service, 0).start();
  await t.stack.waitHealthy(30_000);
  return { answers, retried };
}

it('kill -9 one sessions replica of two during a rush: no number twice, every key answered once', async () => {
  const id = await sessionOf(1, { start_time: '08:00', end_time: '12:00', max_patients: 40 });
  const keys = Array.from({ length: 400 }, () => randomUUID());
  const { answers, retried } = await killedDuring(
    'sessions',
    SessionsSubjects.book,
    keys.map(
      (key, i) => () =>
        t.post(
          `/sessions/${id}/appointments`,
          { patient_name: `Rush ${i}`, patient_contact: '0770000000' },
          { headers: { 'idempotency-key': key } },
        ),
    ),
  );

  // The kill met requests in flight: they were answered 503 or 504 first, then retried.
  expect(retried).toBeGreaterThan(0);
  const booked = answers.filter((a) => a.status === 201).map((a) => a.body.appointment);
  const refused = answers.filter((a) => a.status !== 201);
  for (const r of refused)
    expect({ status: r.status, error: r.body.error }).toEqual({ status: 409, error: 'Session is full.' });
  const listed = (await t.get(`/sessions/${id}/appointments`)).body.appointments as Array<{
    id: number;
    appointment_no: number;
  }>;
  const numbers = listed.map((a) => a.appointment_no);
  expect(new Set(numbers).size).toBe(numbers.length);
  expect(numbers.length).toBe(40);
  // Every appointment stored was answered 201 to its key, and each key to one appointment.
  expect(booked.map((a) => a.id).sort()).toEqual(listed.map((a) => a.id).sort());
  // A retry of any key now answers what it answered then.
  for (const [i, key] of keys.entries()) {
    if (answers[i]!.status !== 201) continue;
    const again = await t.post(
      `/sessions/${id}/appointments`,
      { patient_name: `Rush ${i}`, patient_contact: '0770000000' },
      { headers: { 'idempotency-key': key } },
    );
    expect(again.body.appointment.id).toBe(answers[i]!.body.appointment.id);
  }
}, 180_000);

it('kill -9 one billing replica of two during keyed payments: none lost, none recorded twice', async () => {
  const sessionId = await sessionOf(2, { start_time: '13:00', end_time: '18:00' });
  const appointments: number[] = [];
  for (let i = 0; i < 40; i++) {
    const booked = await t.post(`/sessions/${sessionId}/appointments`, {
      patient_name: `Paying ${i}`,
      patient_contact: '0770000000',
    });
    appointments.push(booked.body.appointment.id);
  }
  // Three parts of each fee (3,000), each with its key: concurrent writes of one account, split tender.
  const payments = appointments.flatMap((id) =>
    [1_000, 1_500, 500].map((amount, part) => ({
      id,
      key: randomUUID(),
      body: { amount, method: part === 1 ? 'Card' : 'Cash', reference: `part ${part + 1}` },
    })),
  );
  const send = (p: (typeof payments)[number]) =>
    t.post(`/appointments/${p.id}/payments`, p.body, { headers: { 'idempotency-key': p.key } });
  const { answers, retried } = await killedDuring(
    'billing',
    BillingSubjects.appointmentPay,
    payments.map((p) => () => send(p)),
  );

  expect(retried).toBeGreaterThan(0);
  for (const a of answers)
    expect({ status: a.status, success: a.body.success }).toEqual({ status: 201, success: true });
  const acknowledged = new Map(payments.map((p, i) => [p.key, answers[i]!.body.payment.id as string]));
  // Each appointment's ledger read back: exactly the payments answered, each once, and its fee paid in full.
  for (const id of appointments) {
    const read = await t.get(`/appointments/${id}/payments`);
    expect(read.status).toBe(200);
    const ledger = read.body.ledger as Array<{ id: string; kind: string; amount: number }>;
    const answered = payments.filter((p) => p.id === id).map((p) => acknowledged.get(p.key));
    expect({ id, entries: ledger.map((e) => e.id).sort() }).toEqual({ id, entries: answered.sort() });
    expect(ledger.every((e) => e.kind === 'payment')).toBe(true);
    expect(read.body.appointment).toMatchObject({ paid_amount: 3_000, due_amount: 0 });
  }
  // A retry of any key now answers the payment it made then, and records nothing.
  for (const p of payments.slice(0, 30)) {
    const again = await send(p);
    expect({ status: again.status, id: again.body.payment?.id }).toEqual({ status: 201, id: acknowledged.get(p.key) });
  }
  expect((await t.get(`/appointments/${appointments[0]}/payments`)).body.ledger).toHaveLength(3);
  // The drawer's copies too: the day-end counts each payment once (the stack's only money of the day), once the
  // outbox's sweeper has stored the copies of writes the killed replica left (they go with the events).
  const day = answers[0]!.body.payment.day;
  const expected = { Cash: 40 * 1_500, Card: 40 * 1_500 };
  let collected: Record<string, number> | undefined;
  await eventually(
    async () => {
      const report = (await t.get(`/lab_bills/day_end?store_id=1&date=${day}`)).body.report;
      collected = report.drawer.find((line: { user_id: number }) => line.user_id === 1)?.collected;
      return collected?.Cash === expected.Cash && collected?.Card === expected.Card ? true : undefined;
    },
    60_000,
    500,
  ).catch(() => undefined);
  expect(collected).toMatchObject(expected);
}, 180_000);

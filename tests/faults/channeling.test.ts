/**
 * Channeling under faults (issue 42): a sessions replica killed with SIGKILL
 * during a rush of bookings, each sent as a careful client sends it (an
 * Idempotency-Key, retried with it after a 5xx or a broken connection until
 * answered). No number is handed out twice, no booking is stored without its
 * answer, and every retried key is answered with the one appointment it made.
 */
import { randomUUID } from 'node:crypto';
import { SessionsSubjects } from '@clinic/contracts';
import { inDaysFromToday } from '../e2e/calendar';
import { branch, doctor } from '../e2e/fixtures';
import { sleep, startTestStack, type ApiResponse, type TestStack } from '../e2e/harness';
import { untilInFlight } from './in-flight';

let t: TestStack;

beforeAll(async () => {
  t = await startTestStack({ replicas: { sessions: 2 }, env: { REQUEST_TIMEOUT_MS: '3000' } });
  await t.seed({
    stores: [{ ...branch(1, 'Colombo'), channeling_fees: { local: 500 } }],
    doctors: [doctor(7, { store_id: 1 })],
  });
}, 120_000);
afterAll(async () => {
  await t?.stop();
});

let retried = 0;
/** Bookings the killed replica holds unanswered when it is killed. */
const IN_FLIGHT_AT_KILL = 10;

/** Sends until answered: a 5xx or a broken connection is retried with the same key. */
async function carefully(send: () => Promise<ApiResponse>): Promise<ApiResponse> {
  for (let attempt = 1; ; attempt++) {
    const answer = await send().catch(() => null);
    if (answer && answer.status < 500) return answer;
    retried++;
    if (attempt >= 30) throw new Error(`no answer after ${attempt} attempts: ${JSON.stringify(answer?.body)}`);
    await sleep(200);
  }
}

it('kill -9 one sessions replica of two during a rush: no number twice, every key answered once', async () => {
  const made = await t.post('/add_session', {
    doctor_id: 7,
    session_date: inDaysFromToday(30),
    session_no: 1,
    start_time: '08:00',
    end_time: '12:00',
    max_patients: 40,
  });
  const id = made.body.session_id;
  const keys = Array.from({ length: 400 }, () => randomUUID());
  const rush = Promise.all(
    keys.map((key, i) =>
      carefully(() =>
        t.post(
          `/sessions/${id}/appointments`,
          { patient_name: `Rush ${i}`, patient_contact: '0770000000' },
          { headers: { 'idempotency-key': key } },
        ),
      ),
    ),
  );
  // Killed while it holds bookings it has received and not answered: their callers get no answer and retry.
  await untilInFlight(t, 'sessions', 0, [SessionsSubjects.book], IN_FLIGHT_AT_KILL);
  t.stack.replica('sessions', 0).signal('SIGKILL');
  const answers = await rush;
  t.stack.replica('sessions', 0).start();
  await t.stack.waitHealthy(30_000);

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

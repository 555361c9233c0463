/**
 * The 8 a.m. rush: a thousand bookings at once for one session of
 * forty places, through two gateways in front of two sessions replicas.
 * Exactly forty are booked, numbered 1 to 40 once each; every other one is
 * refused as full; the session reads Full with forty booked. Twenty rounds.
 */
import type { ManagedProcess } from '@clinic/devstack';
import { branch, doctor } from './fixtures';
import { failureOf, startSecondGateway, startTestStack, type TestStack } from './harness';
import { inDaysFromToday } from './calendar';

let t: TestStack;
let second: { url: string; process: ManagedProcess };

beforeAll(async () => {
  t = await startTestStack({ replicas: { sessions: 2 }, env: { REQUEST_TIMEOUT_MS: '20000' } });
  second = await startSecondGateway(t);
  await t.seed({
    stores: [{ ...branch(1, 'Colombo'), channeling_fees: { local: 500, foreign: 1500 } }],
    doctors: [doctor(7, { name: 'Dr. Rush', store_id: 1, channeling_fee: 2500 })],
  });
}, 120_000);
afterAll(async () => {
  await second?.process.stop();
  await t?.stop();
});

const ROUNDS = 20;
const REQUESTS = 1000;
const PLACES = 40;

it(`books exactly ${PLACES} of ${REQUESTS} patients at once, numbered 1 to ${PLACES}, ${ROUNDS} times over`, async () => {
  for (let round = 1; round <= ROUNDS; round++) {
    const made = await t.post('/add_session', {
      doctor_id: 7,
      session_date: inDaysFromToday(10 + round),
      session_no: round,
      start_time: '08:00',
      end_time: '12:00',
      max_patients: PLACES,
    });
    expect(made.status).toBe(201);
    const id = made.body.session_id;
    const answers = await Promise.all(
      Array.from({ length: REQUESTS }, (_, i) =>
        t.post(
          `/sessions/${id}/appointments`,
          { patient_name: `Rush ${round}-${i}`, patient_contact: '0770000000' },
          { role: 'receptionist', baseUrl: i % 2 ? second.url : undefined },
        ),
      ),
    );
    const booked = answers.filter((a) => a.status === 201);
    const refused = answers.filter((a) => a.status !== 201);
    expect(booked.map((a) => a.body.appointment.appointment_no).sort((a, b) => a - b)).toEqual(
      Array.from({ length: PLACES }, (_, i) => i + 1),
    );
    expect(refused.length).toBe(REQUESTS - PLACES);
    for (const r of refused)
      expect({ status: r.status, body: r.body }).toEqual({ status: 409, body: failureOf('Session is full.') });
    const session = (await t.get(`/get_session/${id}`, { baseUrl: second.url })).body.session;
    expect({ status: session.status, booked_count: session.booked_count }).toEqual({
      status: 'Full',
      booked_count: PLACES,
    });
    const listed = (await t.get(`/sessions/${id}/appointments`)).body.appointments;
    expect(listed.map((a: { appointment_no: number }) => a.appointment_no)).toEqual(
      Array.from({ length: PLACES }, (_, i) => i + 1),
    );
  }
}, 600_000);

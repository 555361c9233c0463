/**
 * A doctor's leave against the bookings of their sessions: a leave
 * that arrived while sessions was down cancels them once it is back, and a
 * session on a day of leave, or on its branch's holiday, takes no booking.
 * The file's dates are its own, far in the future.
 */
import { refSubject } from '@clinic/contracts';
import { branch, doctor } from './fixtures';
import { eventually, failureOf, fileStack } from './harness';

const t = fileStack({
  stores: [branch(1, 'Colombo'), branch(2, 'Kandy')],
  doctors: [doctor(7, { name: 'Dr. Anura', store_id: 1, channeling_fee: 2500 })],
});

let sessionNo = 0;
/** A session of Dr. Anura on `date` (far in the future: the file's own dates, never past). */
async function session(date: string): Promise<number> {
  const made = await t.post('/add_session', {
    doctor_id: 7,
    session_date: date,
    session_no: ++sessionNo,
    start_time: '18:30',
    end_time: '21:00',
  });
  expect(made.status).toBe(201);
  return made.body.session_id;
}

const patient = (name: string) => ({ patient_name: name, patient_contact: '0771234567' });
const book = (id: number, name: string) => t.post(`/sessions/${id}/appointments`, patient(name));
const statusOf = async (appointmentId: number) => (await t.get(`/appointments/${appointmentId}`)).body.appointment;

it('cancels the bookings of a leave that arrived while sessions was down, once it is back', async () => {
  const id = await session('2093-05-11');
  const booked = (await book(id, 'Booked before the leave')).body.appointment.id;
  const sessions = t.stack.replica('sessions');
  await sessions.stop();
  const js = (await t.nats('ops')).jetstream();
  await js.publish(
    refSubject('doctor_leave'),
    JSON.stringify({ id: 91, doctor_id: 7, from_date: '2093-05-10', to_date: '2093-05-12' }),
  );
  sessions.start();
  await t.stack.waitHealthy(60_000);
  // Applied at start-up, before the service answered anything: its bookings go with it.
  const cancelled = await eventually(async () => {
    const appointment = await statusOf(booked);
    return appointment.status === 'cancelled' ? appointment : undefined;
  });
  expect(cancelled).toMatchObject({ status: 'cancelled', cancel_reason: 'Doctor on leave.' });
});

it("refuses a booking on its branch's holiday or one of every branch, not on another branch's", async () => {
  await t.seed({
    holidays: [
      { id: 1, date: '2093-06-01', store_id: 1, name: 'Colombo Day' },
      { id: 2, date: '2093-06-02', store_id: null, name: 'Vesak' },
      { id: 3, date: '2093-06-03', store_id: 2, name: 'Kandy Perahera' },
    ],
  });
  const [own, every, other] = [await session('2093-06-01'), await session('2093-06-02'), await session('2093-06-03')];
  for (const [id, holiday] of [
    [own, 'Colombo Day'],
    [every, 'Vesak'],
  ] as const) {
    const refused = await book(id, 'On a holiday');
    expect({ status: refused.status, body: refused.body }).toEqual({
      status: 409,
      body: { success: false, error: `Session date is a holiday: ${holiday}.`, code: 'SESSION_ON_HOLIDAY' },
    });
    expect((await t.get(`/sessions/${id}/appointments`)).body.appointments).toEqual([]);
  }
  expect((await book(other, 'Not our holiday')).status).toBe(201);
});

it("refuses a booking on any day of the doctor's leave, and takes one the day after", async () => {
  await t.seed({ doctor_leaves: [{ id: 92, doctor_id: 7, from_date: '2093-07-01', to_date: '2093-07-02' }] });
  for (const date of ['2093-07-01', '2093-07-02']) {
    const refused = await book(await session(date), 'On leave');
    expect({ status: refused.status, body: refused.body }).toEqual({
      status: 409,
      body: failureOf('Doctor is on leave on the session date.'),
    });
  }
  expect((await book(await session('2093-07-03'), 'Back at work')).status).toBe(201);
});

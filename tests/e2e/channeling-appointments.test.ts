/**
 * Appointments through the gateway (sessions' side): booking with
 * its number, time and fee split, the numbers kept for agents, Idempotency-Key,
 * moves through the session, a session closed, completed, a doctor's leave,
 * and the events other systems read.
 */
import { EventSubjects } from '@clinic/contracts';
import { inDaysFromToday } from './calendar';
import { EventReader } from './events';
import { branch, doctor } from './fixtures';
import { failureOf, fileStack } from './harness';

const t = fileStack({
  stores: [{ ...branch(1, 'Colombo'), channeling_fees: { local: 500, foreign: 1500 } }, { ...branch(2, 'Kandy') }],
  doctors: [
    doctor(7, { name: 'Dr. Anura', store_id: 1, channeling_fee: 2500, minutes_per_patient: 15 }),
    doctor(8, { name: 'Dr. Kandy', store_id: 2, channeling_fee: 1000 }),
  ],
});

let sessionNo = 0;
async function session(fields: Record<string, unknown> = {}, days = 5): Promise<number> {
  const made = await t.post('/add_session', {
    doctor_id: 7,
    session_date: inDaysFromToday(days),
    session_no: ++sessionNo,
    start_time: '18:30',
    end_time: '21:00',
    ...fields,
  });
  expect(made.status).toBe(201);
  return made.body.session_id;
}

const patient = (name: string, extra: Record<string, unknown> = {}) => ({
  patient_name: name,
  patient_contact: '0771234567',
  ...extra,
});
const book = (id: number, body: unknown, options = {}) => t.post(`/sessions/${id}/appointments`, body, options);

describe('booking', () => {
  it('gives the next number, its time and the fee split, and refuses what it does not know', async () => {
    const id = await session({ max_patients: 10 });
    const first = await book(id, patient('කමල් පෙරේරා', { patient_nic: ' 851234567V ' }), {
      role: 'receptionist',
      sub: 4,
    });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({
      success: true,
      message: 'Appointment booked successfully.',
      appointment: {
        id: id * 10_000 + 1,
        session_id: id,
        appointment_no: 1,
        estimated_time: '18:30',
        status: 'booked',
        patient_name: 'කමල් පෙරේරා',
        patient_nic: '851234567V',
        fee_level: 'local',
        doctor_fee: 2500,
        hospital_fee: 500,
        total_fee: 3000,
        booked_by: { sub: 4, role: 'receptionist' },
      },
    });
    const second = await book(id, patient('சொக்கலிங்கம்', { fee_level: 'foreign' }));
    expect(second.body.appointment).toMatchObject({ appointment_no: 2, estimated_time: '18:45', hospital_fee: 1500 });
    // The doctor's arrival moves the times; the session's own setting replaces the doctor's.
    expect((await t.put(`/update_session/${id}`, { doctor_arrived_at: '19:00', minutes_per_patient: 5 })).status).toBe(
      200,
    );
    const listed = (await t.get(`/sessions/${id}/appointments`)).body;
    expect(listed.appointments.map((a: { estimated_time: string }) => a.estimated_time)).toEqual(['19:00', '19:05']);
    expect(listed.booked_count).toBe(2);

    expect((await book(id, patient('Staff Member', { fee_level: 'staff' }))).body).toEqual({
      ...failureOf('fee_level staff is not offered at this branch.'),
      code: 'FEE_LEVEL_NOT_OFFERED',
      field: 'fee_level',
    });
    expect((await book(id, { ...patient('Typo'), patinet_nic: 'x' })).body).toEqual(
      failureOf('Unknown field: patinet_nic.'),
    );
    expect((await book(id, { patient_contact: '077' })).body).toEqual(failureOf('patient_name is required.'));
    expect((await t.get(`/sessions/${id}/appointments`)).body.appointments).toHaveLength(2);
  });

  it('keeps the first numbers for agents and refuses each side past its share', async () => {
    const id = await session({ max_patients: 4 });
    expect((await t.put(`/update_session/${id}`, { reserved_numbers: 2 })).status).toBe(200);
    const counter = [await book(id, patient('A')), await book(id, patient('B')), await book(id, patient('C'))];
    expect(counter.map((r) => r.body.appointment?.appointment_no ?? r.body.error)).toEqual([3, 4, 'Session is full.']);
    const agents = [
      await book(id, patient('Online 1', { source: 'agent' })),
      await book(id, patient('Online 2', { source: 'agent' })),
      await book(id, patient('Online 3', { source: 'agent' })),
    ];
    expect(agents.map((r) => r.body.appointment?.appointment_no ?? r.body.error)).toEqual([
      1,
      2,
      'Session has no number left for agents.',
    ]);
    expect((await t.get(`/get_session/${id}`)).body.session).toMatchObject({ status: 'Full', booked_count: 4 });
  });

  it('answers a retried booking with its first answer, and a key reused for another with 422', async () => {
    const id = await session();
    const headers = { 'idempotency-key': 'booking-retry-1' };
    const first = await book(id, patient('Retry'), { headers });
    const again = await book(id, patient('Retry'), { headers });
    expect(again.status).toBe(201);
    expect(again.body.appointment.id).toBe(first.body.appointment.id);
    expect((await book(id, patient('Someone else'), { headers })).status).toBe(422);
    expect((await t.get(`/sessions/${id}/appointments`)).body.appointments).toHaveLength(1);
    // The key is the caller's, not the session's: sent to another session it books nobody.
    const other = await session();
    const elsewhere = await book(other, patient('Retry'), { headers });
    expect({ status: elsewhere.status, body: elsewhere.body }).toEqual({
      status: 422,
      body: failureOf('This Idempotency-Key was already used for a different request.'),
    });
    expect((await t.get(`/sessions/${other}/appointments`)).body.appointments).toEqual([]);
    // Another caller's key of the same name is another key.
    expect((await book(other, patient('Retry'), { headers, sub: 2 })).status).toBe(201);
  });

  it("refuses another branch's session as not found, and a past one", async () => {
    const id = await session();
    const kandyOnly = { token: t.token('receptionist', 9, 3600, [2]) };
    expect((await book(id, patient('Elsewhere'), kandyOnly)).body).toEqual(failureOf('Session not found.'));
    await t.put(`/update_session/${id}`, { session_date: inDaysFromToday(-1) });
    expect((await book(id, patient('Late'))).body).toEqual(failureOf('Session date has passed.'));
  });
});

describe('the session and its appointments', () => {
  it('moves an appointment through the session, refusing what it cannot become', async () => {
    const id = await session();
    const a = (await book(id, patient('Moving'))).body.appointment.id;
    expect((await t.put(`/appointments/${a}`, { status: 'consulted' })).body).toEqual({
      ...failureOf('An appointment booked cannot become consulted.'),
      code: 'APPOINTMENT_MOVE_REFUSED',
    });
    expect((await t.put(`/appointments/${a}`, { status: 'arrived' })).body.appointment.status).toBe('arrived');
    const consulted = await t.put(`/appointments/${a}`, { status: 'consulted', patient_name: 'Moving Fixed' });
    expect(consulted.body.appointment).toMatchObject({ status: 'consulted', patient_name: 'Moving Fixed' });
    expect((await t.get(`/appointments/${a}`)).body.appointment.status).toBe('consulted');
    expect((await t.get(`/appointments/${id * 10_000 + 99}`)).body).toEqual(failureOf('Appointment not found.'));
  });

  it("answers another branch's appointment as one that does not exist, on every path, changing nothing", async () => {
    const id = await session();
    const a = (await book(id, patient('Colombo only'))).body.appointment.id;
    const kandyOnly = { token: t.token('receptionist', 9, 3600, [2]) };
    const noSession = (id + 500) * 10_000 + 1;
    const appointmentNotFound = failureOf('Appointment not found.');
    for (const [appointment, options] of [
      [a, kandyOnly],
      [noSession, {}],
    ] as const) {
      const answers = [
        await t.get(`/appointments/${appointment}`, options),
        await t.put(`/appointments/${appointment}`, { status: 'arrived' }, options),
        await t.request('DELETE', `/appointments/${appointment}`, { reason: 'Probing' }, options),
        await t.post(`/appointments/${appointment}/payments`, { amount: 100, method: 'Cash' }, options),
      ];
      for (const answer of answers)
        expect({ appointment, status: answer.status, body: answer.body }).toEqual({
          appointment,
          status: 404,
          body: appointmentNotFound,
        });
    }
    const sessionNotFound = { status: 404, body: failureOf('Session not found.') };
    const list = await t.get(`/sessions/${id}/appointments`, kandyOnly);
    expect({ status: list.status, body: list.body }).toEqual(sessionNotFound);
    const complete = await t.post(`/sessions/${id}/complete`, undefined, kandyOnly);
    expect({ status: complete.status, body: complete.body }).toEqual(sessionNotFound);
    expect((await t.get(`/appointments/${a}`)).body.appointment).toMatchObject({
      status: 'booked',
      payment: { paid_amount: 0, payment_status: 'Unpaid' },
    });
    expect((await t.get(`/get_session/${id}`)).body.session.status).toBe('Open');
  });

  it('cancels the waiting appointments of a closed session, and refuses bookings into it', async () => {
    const reader = await EventReader.start(await t.nats('hospital'), 'SESSIONS_EVENTS');
    try {
      const id = await session();
      const [done, waiting, there] = [
        (await book(id, patient('Done'))).body.appointment.id,
        (await book(id, patient('Waiting'))).body.appointment.id,
        (await book(id, patient('There'))).body.appointment.id,
      ];
      await t.put(`/appointments/${done}`, { status: 'arrived' });
      await t.put(`/appointments/${done}`, { status: 'consulted' });
      await t.put(`/appointments/${there}`, { status: 'arrived' });
      expect((await t.put(`/update_session/${id}`, { status: 'Closed' })).status).toBe(200);
      const statuses = (await t.get(`/sessions/${id}/appointments`)).body.appointments.map(
        (a: { status: string; cancel_reason: string | null }) => [a.status, a.cancel_reason],
      );
      expect(statuses).toEqual([
        ['consulted', null],
        ['cancelled', 'Session cancelled.'],
        ['cancelled', 'Session cancelled.'],
      ]);
      expect((await book(id, patient('After'))).body).toEqual(failureOf('Session is closed.'));
      const cancelled = await reader.waitFor((e) => e.subject === EventSubjects.appointmentCancelled, 2);
      expect(cancelled.map((e) => e.event.data.appointment.id).sort()).toEqual([waiting, there].sort());
      await reader.waitFor((e) => e.subject === EventSubjects.sessionCancelled && e.event.data.session.id === id);
      await reader.waitFor(
        (e) => e.subject === EventSubjects.appointmentBooked && e.event.data.appointment.id === done,
      );
    } finally {
      reader.stop();
    }
  });

  it('completes a session: those never come are absent, and nothing moves after', async () => {
    const id = await session();
    const came = (await book(id, patient('Came'))).body.appointment.id;
    const never = (await book(id, patient('Never'))).body.appointment.id;
    await t.put(`/appointments/${came}`, { status: 'arrived' });
    await t.put(`/appointments/${came}`, { status: 'consulted' });
    expect((await t.post(`/sessions/${id}/complete`)).body).toEqual({
      success: true,
      message: 'Session completed successfully.',
      session_id: id,
    });
    expect((await t.get(`/appointments/${never}`)).body.appointment.status).toBe('absent');
    expect((await t.get(`/get_session/${id}`)).body.session).toMatchObject({
      status: 'Closed',
      closed_as: 'completed',
    });
    expect((await t.put(`/appointments/${never}`, { status: 'arrived' })).body).toEqual(
      failureOf('Session is closed.'),
    );
    expect((await book(id, patient('Too late'))).body).toEqual(failureOf('Session is closed.'));
    // Delete keeps refusing while appointments are linked and not cancelled.
    expect((await t.del(`/delete_session/${id}`)).status).toBe(409);
  });

  it('keeps a completed session completed when a client sends back the Closed it shows, and never reopens it', async () => {
    const id = await session();
    const there = (await book(id, patient('Still there'))).body.appointment.id;
    await t.put(`/appointments/${there}`, { status: 'arrived' });
    await t.post(`/sessions/${id}/complete`);
    const echoed = await t.put(`/update_session/${id}`, { status: 'Closed', notes: 'seen by the doctor' });
    expect(echoed.body).toEqual({ success: true, message: 'Session updated successfully.', session_id: id });
    const unchanged = async () => {
      expect((await t.get(`/get_session/${id}`)).body.session).toMatchObject({ closed_as: 'completed' });
      expect((await t.get(`/appointments/${there}`)).body.appointment).toMatchObject({
        status: 'arrived',
        cancel_reason: null,
      });
    };
    await unchanged();
    const reopen = await t.put(`/update_session/${id}`, { status: 'Open' });
    expect({ status: reopen.status, body: reopen.body }).toEqual({
      status: 409,
      body: failureOf('Session is completed: it cannot be reopened.'),
    });
    await unchanged();
  });

  it("cancels the bookings of a doctor's session on a day of leave the reference data brings", async () => {
    const id = await session({}, 20);
    const a = (await book(id, patient('On leave'))).body.appointment.id;
    await t.seed({
      doctor_leaves: [{ id: 71, doctor_id: 7, from_date: inDaysFromToday(19), to_date: inDaysFromToday(21) }],
    });
    expect((await t.get(`/appointments/${a}`)).body.appointment).toMatchObject({
      status: 'cancelled',
      cancel_reason: 'Doctor on leave.',
    });
    // A booking after the leave would stand with nobody to cancel it: refused, and nothing stored.
    const after = await book(id, patient('After the leave'));
    expect({ status: after.status, body: after.body }).toEqual({
      status: 409,
      body: failureOf('Doctor is on leave on the session date.'),
    });
    expect(after.body.code).toBe('DOCTOR_ON_LEAVE');
    expect((await t.get(`/sessions/${id}/appointments`)).body.appointments).toHaveLength(1);
  });
});

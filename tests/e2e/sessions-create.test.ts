/** Sessions through the gateway (setup in sessions-stack.ts): adding one, as the spec's rules check and join it. */
import dayjs from 'dayjs';
import { answerOf, failureOf, TEST_TZ } from './harness';
import { t, today, inDays, addSession, getSession, postSession } from './sessions-stack';

describe('POST /add_session', () => {
  it("creates a session on the doctor's branch and returns it joined and derived", async () => {
    const date = inDays(10);
    const res = await answerOf(
      t.api({ role: 'doctor' }).POST('/add_session', {
        body: {
          doctor_id: 1,
          session_date: date,
          session_no: 90,
          start_time: '18:00',
          end_time: '20:00',
          max_patients: 12,
          notes: 'ignored',
        },
      }),
    );
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      success: true,
      message: 'Session created successfully.',
      session_id: expect.any(Number),
    });
    expect(await getSession(res.body.session_id)).toEqual({
      id: res.body.session_id,
      doctor_id: 1,
      store_id: 1,
      session_date: date,
      start_time: '18:00',
      end_time: '20:00',
      max_patients: 12,
      session_no: 90,
      status: 'Open',
      created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/),
      doctor_name: 'Dr. Anura',
      reg_no: 'SLMC-1',
      specialization: 'Cardiology',
      channeling_fee: 2500,
      store_name: 'Colombo Central',
      booked_count: 0,
      // Channeling's: how it closed, when the doctor came, minutes per number, numbers kept for agents.
      closed_as: null,
      doctor_arrived_at: null,
      minutes_per_patient: 10,
      reserved_numbers: 0,
    });
    expect(
      Math.abs(dayjs.tz((await getSession(res.body.session_id)).created_at, TEST_TZ).diff(today(), 'second')),
    ).toBeLessThan(60);
  });

  it('accepts today in the clinic time zone and maps the input status', async () => {
    const todayId = await addSession({ session_date: inDays(0) });
    expect((await getSession(todayId)).status).toBe('Open');
    expect((await getSession(await addSession({ status: 'Closed' }))).status).toBe('Closed');
    expect((await getSession(await addSession({ status: 'Full' }))).status).toBe('Closed'); // any input other than Open is stored cancelled
    expect((await getSession(await addSession({ status: 'Open', max_patients: null }))).max_patients).toBeNull();
  });

  it.each([
    ['no body', undefined, 400, 'No data provided.'],
    ['an array body', [], 400, 'No data provided.'],
    ['an empty object', 'empty', 400, 'No data provided.'],
    ['no doctor_id', { doctor_id: undefined }, 422, 'doctor_id is required.'],
    ['no session_date', { session_date: '' }, 422, 'session_date is required.'],
    ['no session_no', { session_no: null }, 422, 'session_no is required.'],
    ['no start_time', { start_time: undefined }, 422, 'start_time is required.'],
    ['no end_time', { end_time: undefined }, 422, 'end_time is required.'],
    [
      'start equal to end',
      { start_time: '10:00', end_time: '10:00' },
      422,
      'start_time must be earlier than end_time.',
    ],
    ['start after end', { start_time: '18:00', end_time: '09:30' }, 422, 'start_time must be earlier than end_time.'],
    ['a malformed time', { start_time: '9am' }, 422, 'start_time must be a time in HH:MM format.'],
    ['a malformed date', { session_date: '21/11/2099' }, 422, 'session_date must be a date in YYYY-MM-DD format.'],
    ['an impossible date', { session_date: '2099-02-30' }, 422, 'session_date must be a date in YYYY-MM-DD format.'],
    ['a past date', { session_date: 'yesterday' }, 422, 'session_date cannot be in the past.'],
    ['an unknown doctor', { doctor_id: 999 }, 404, 'Doctor not found or inactive.'],
    ['an inactive doctor', { doctor_id: 3 }, 404, 'Doctor not found or inactive.'],
    ['a doctor without a branch', { doctor_id: 4 }, 400, 'Doctor is not assigned to a branch.'],
    ['max_patients 0', { max_patients: 0 }, 422, 'max_patients must be a positive integer.'],
    ['max_patients as text', { max_patients: 'ten' }, 422, 'max_patients must be a positive integer.'],
    ['max_patients fractional', { max_patients: 2.5 }, 422, 'max_patients must be a positive integer.'],
    // The spec's order: the doctor is checked before max_patients, times before the date.
    ['an unknown doctor and a bad cap', { doctor_id: 999, max_patients: 0 }, 404, 'Doctor not found or inactive.'],
    [
      'bad times and a past date',
      { session_date: 'yesterday', start_time: '12:00', end_time: '11:00' },
      422,
      'start_time must be earlier than end_time.',
    ],
    ['an operator as doctor_id', { doctor_id: { $gt: 0 } }, 422, 'doctor_id must be a positive integer.'],
    ['a huge status', { status: 'x'.repeat(10_000) }, 422, 'status must be at most 20 characters.'],
  ])('rejects %s and stores nothing', async (_name, overrides: any, status, error) => {
    // Every session, whatever its doctor: the rejected ones name doctors 3, 4 and 999 too.
    const before = (await answerOf(t.api().GET('/all_sessions'))).body.sessions.length;
    const base = { doctor_id: 7, session_date: inDays(30), session_no: 500, start_time: '09:00', end_time: '12:00' };
    const resolved =
      overrides && !Array.isArray(overrides) && overrides.session_date === 'yesterday'
        ? { ...overrides, session_date: inDays(-1) }
        : overrides;
    const body =
      resolved === undefined
        ? undefined
        : resolved === 'empty'
          ? {}
          : Array.isArray(resolved)
            ? resolved
            : { ...base, ...resolved };
    const res = await answerOf(t.api().POST('/add_session', { body: body }));
    expect(res.status).toBe(status);
    expect(res.body).toEqual(failureOf(error));
    expect((await answerOf(t.api().GET('/all_sessions'))).body.sessions.length).toBe(before);
  });

  it('ignores fields it does not take, notes included', async () => {
    const res = await postSession({ session_date: inDays(31), room: 'A', notes: 'x', booked_count: 5, store_id: 2 });
    expect(res.status).toBe(201);
    const session = await getSession(res.body.session_id);
    expect(session).toMatchObject({ store_id: 1, booked_count: 0 });
    for (const field of ['room', 'notes']) expect(session).not.toHaveProperty(field);
    const updated = await answerOf(
      t.api().PUT('/update_session/{session_id}', {
        params: { path: { session_id: res.body.session_id } },
        body: {
          ...session,
          start_time: '09:30',
          room: 'B',
        },
      }),
    );
    expect(updated.status).toBe(200);
    expect(await getSession(res.body.session_id)).toEqual({ ...session, start_time: '09:30' });
  });

  it('answers 409 for the same doctor, branch, date and session number, even when two race', async () => {
    const date = inDays(40);
    await addSession({ session_date: date, session_no: 1 });
    const again = await postSession({ session_date: date, session_no: 1, start_time: '13:00', end_time: '14:00' });
    expect(again.status).toBe(409);
    expect(again.body).toEqual({
      success: false,
      error: 'A session for this doctor, branch, date and session number already exists.',
      code: 'SESSION_SLOT_TAKEN',
    });
    const race = await Promise.all(
      [1, 2, 3].map(() => postSession({ session_date: date, session_no: 2, start_time: '13:00', end_time: '14:00' })),
    );
    expect(race.map((r) => r.status).sort()).toEqual([201, 409, 409]);
    expect(
      (await answerOf(t.api().GET('/all_sessions', { params: { query: { doctor_id: 7, date: date } } }))).body.sessions,
    ).toHaveLength(2);
  });
});

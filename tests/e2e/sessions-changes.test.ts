/** Sessions through the gateway (setup in sessions-stack.ts): updates, the booked count and derived status, deletes. */
import { answerOf, failureOf, refused } from './harness';
import { t, inDays, addSession, getSession, updateSession } from './sessions-stack';

describe('PUT /update_session/{id}', () => {
  it('updates the given fields; null or "" removes the cap; status maps to stored values', async () => {
    const id = await addSession({ max_patients: 5 });
    const res = await updateSession(id, {
      start_time: '10:00',
      end_time: '11:30',
      max_patients: null,
      doctor_id: 1,
      session_no: 99,
      store_id: 2,
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, message: 'Session updated successfully.', session_id: id });
    expect(await getSession(id)).toMatchObject({
      start_time: '10:00',
      end_time: '11:30',
      max_patients: null,
      doctor_id: 7,
      store_id: 1,
    });
    await updateSession(id, { max_patients: 3 });
    expect((await getSession(id)).max_patients).toBe(3);
    await updateSession(id, { max_patients: '' });
    expect((await getSession(id)).max_patients).toBeNull();
    await updateSession(id, { status: 'Closed' });
    expect((await getSession(id)).status).toBe('Closed');
    await updateSession(id, { status: 'Full' });
    expect((await getSession(id)).status).toBe('Open'); // Full is only ever derived
    await updateSession(id, { status: 'Closed' });
    await updateSession(id, { status: 'Open' });
    expect((await getSession(id)).status).toBe('Open');
    await updateSession(id, { status: 'Closed' });
    const other = await updateSession(id, { status: 'anything else' });
    expect({ status: other.status, success: other.body.success }).toEqual({ status: 200, success: true });
    expect((await getSession(id)).status).toBe('Open'); // any value other than Closed is stored active
  });

  it('compares the times only when both are given, as the spec says', async () => {
    const id = await addSession(); // 09:00-12:00
    const res = await updateSession(id, { start_time: '13:00' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, message: 'Session updated successfully.', session_id: id });
    expect(await getSession(id)).toMatchObject({ start_time: '13:00', end_time: '12:00' });
  });

  it('applies a session date without checking it against today', async () => {
    const id = await addSession();
    const past = inDays(-3);
    expect((await updateSession(id, { session_date: past })).status).toBe(200);
    expect((await getSession(id)).session_date).toBe(past);
  });

  it.each([
    ['no body', undefined, 400, 'No data provided.'],
    ['start after end', { start_time: '15:00', end_time: '14:00' }, 422, 'start_time must be earlier than end_time.'],
    ['a malformed time', { end_time: '25:00' }, 422, 'end_time must be a time in HH:MM format.'],
    ['an invalid cap', { max_patients: -2 }, 422, 'max_patients must be a positive integer.'],
    ['no applicable field', { doctor_id: 1, session_no: 4 }, 400, 'No valid fields to update.'],
    ['an empty object', {}, 400, 'No data provided.'],
    ['only fields it does not take', { room: 'B', id: 4 }, 400, 'No valid fields to update.'],
  ])('rejects %s and changes nothing', async (_name, body: any, status, error) => {
    const id = await addSession({ max_patients: 4 });
    const res = await updateSession(id, body);
    expect(res.status).toBe(status);
    expect(res.body).toEqual(failureOf(error));
    expect(await getSession(id)).toMatchObject({
      start_time: '09:00',
      end_time: '12:00',
      max_patients: 4,
      status: 'Open',
    });
  });

  it('answers 404 for a missing session, after checking the body', async () => {
    expect((await updateSession(999999, refused(undefined))).status).toBe(400);
    const res = await updateSession(999999, { start_time: '09:00' });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ success: false, error: 'Session not found.', code: 'SESSION_NOT_FOUND' });
  });

  it('answers 409 when a new date lands on an existing slot', async () => {
    const date = inDays(50);
    await addSession({ session_date: date, session_no: 7 });
    const other = await addSession({ session_date: inDays(51), session_no: 7 });
    const res = await updateSession(other, { session_date: date });
    expect(res.status).toBe(409);
    expect((await getSession(other)).session_date).toBe(inDays(51));
  });
});

describe('booked_count and the derived status', () => {
  it('becomes Full as appointments arrive as reference events, and Open again when one is cancelled', async () => {
    const id = await addSession({ max_patients: 2 });
    await t.seed({
      appointments: [
        { id: 1001, session_id: id, status: 'booked' },
        { id: 1002, session_id: id, status: 'cancelled' },
      ],
    });
    expect(await getSession(id)).toMatchObject({ booked_count: 1, status: 'Open' });
    await t.seed({ appointments: [{ id: 1003, session_id: id, status: 'confirmed' }] });
    expect(await getSession(id)).toMatchObject({ booked_count: 2, status: 'Full' });
    expect(
      (
        await answerOf(t.api().GET('/all_sessions', { params: { query: { status: 'Full', doctor_id: 7 } } }))
      ).body.sessions.map((s: any) => s.id),
    ).toContain(id);
    await t.seed({ appointments: [{ id: 1003, session_id: id, status: 'Cancelled' }] });
    expect(await getSession(id)).toMatchObject({ booked_count: 1, status: 'Open' });
    await t.seed({ appointments: [{ id: 1001, deleted: true }] });
    expect((await getSession(id)).booked_count).toBe(0);
  });

  it('is Closed once closed by update, whatever is booked', async () => {
    const id = await addSession({ max_patients: 1 });
    await t.seed({ appointments: [{ id: 2001, session_id: id, status: 'booked' }] });
    expect((await getSession(id)).status).toBe('Full');
    await updateSession(id, { status: 'Closed' });
    expect(await getSession(id)).toMatchObject({ status: 'Closed', booked_count: 1 });
  });
});

describe('DELETE /delete_session/{id}', () => {
  it('refuses while appointments are active, naming how many, and deletes once they are cancelled', async () => {
    const id = await addSession();
    await t.seed({
      appointments: [
        { id: 3001, session_id: id, status: 'booked' },
        { id: 3002, session_id: id, status: 'booked' },
        { id: 3003, session_id: id, status: 'cancelled' },
      ],
    });
    const refused = await answerOf(
      t.api().DELETE('/delete_session/{session_id}', { params: { path: { session_id: id } } }),
    );
    expect(refused.status).toBe(409);
    expect(refused.body).toEqual({
      success: false,
      error:
        'Cannot delete this session: it has 2 active appointment(s). Cancel the appointment(s) first, or close the session instead.',
      code: 'SESSION_HAS_APPOINTMENTS',
    });
    expect(
      (await answerOf(t.api().GET('/get_session/{session_id}', { params: { path: { session_id: id } } }))).status,
    ).toBe(200);
    await t.seed({
      appointments: [
        { id: 3001, session_id: id, status: 'cancelled' },
        { id: 3002, session_id: id, status: 'cancelled' },
      ],
    });
    const res = await answerOf(
      t.api().DELETE('/delete_session/{session_id}', { params: { path: { session_id: id } } }),
    );
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, message: 'Session deleted successfully.', session_id: id });
    const gone = await answerOf(t.api().GET('/get_session/{session_id}', { params: { path: { session_id: id } } }));
    expect(gone.status).toBe(404);
    expect(gone.body).toEqual({ success: false, error: 'Session not found.', code: 'SESSION_NOT_FOUND' });
    expect(
      (await answerOf(t.api().DELETE('/delete_session/{session_id}', { params: { path: { session_id: id } } }))).status,
    ).toBe(404);
  });
});

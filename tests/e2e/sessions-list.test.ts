/** Sessions through the gateway (setup in sessions-stack.ts): the list's filters and joins, one session's read, the preview. */
import { DAYS, datesOn, leapYearWithFeb29On, monthLabelOf, monthStartingOn } from './calendar';
import { branch, doctor } from './fixtures';
import { answerOf, refused, failureOf } from './harness';
import { t, today, inDays, PREVIEW_YEAR, CREATION_YEAR, addSession } from './sessions-stack';

describe('GET /all_sessions', () => {
  it('filters by branch, doctor, date and derived status; orders by date descending then start time', async () => {
    const date = inDays(60);
    const ofMalini = (session: Record<string, unknown>) => addSession({ doctor_id: 2, ...session });
    const late = await ofMalini({ session_date: date, session_no: 1, start_time: '14:00', end_time: '16:00' });
    const early = await ofMalini({ session_date: date, session_no: 2, start_time: '08:00', end_time: '09:00' });
    const next = await ofMalini({
      session_date: inDays(61),
      session_no: 1,
      start_time: '10:00',
      end_time: '11:00',
      status: 'Closed',
    });
    const ids = async (query: string) => (await t.get(`/all_sessions${query}`)).body.sessions.map((s: any) => s.id);
    expect(await ids('?store_id=2')).toEqual([next, early, late]);
    expect(await ids(`?doctor_id=2&date=${date}`)).toEqual([early, late]);
    expect(await ids('?store_id=2&status=Closed')).toEqual([next]);
    expect(await ids('?store_id=2&status=Open')).toEqual([early, late]);
    expect(await ids('?store_id=2&status=open')).toEqual([]);
    const all = (await answerOf(t.api().GET('/all_sessions', { params: { query: { store_id: 2 } } }))).body.sessions;
    expect(all[0]).toMatchObject({ store_name: 'Kandy Branch', doctor_name: 'Dr. Malini', channeling_fee: 2000 });
  });

  it("shows a doctor's and a branch's new names once HOSPITAL_REF changes them, session writes or not", async () => {
    await t.seed({
      stores: [branch(3, 'Galle Branch')],
      doctors: [doctor(9, { name: 'Dr. Before', store_id: 3 })],
    });
    await addSession({ doctor_id: 9, session_date: inDays(70), session_no: 1, start_time: '10:00', end_time: '11:00' });
    const names = async () =>
      (await answerOf(t.api().GET('/all_sessions', { params: { query: { store_id: 3 } } }))).body.sessions.map(
        (s: any) => `${s.doctor_name} at ${s.store_name}`,
      );
    expect(await names()).toEqual(['Dr. Before at Galle Branch']);

    await t.seed({
      stores: [branch(3, 'Galle Town')],
      doctors: [doctor(9, { name: 'Dr. After', store_id: 3 })],
    });
    expect(await names()).toEqual(['Dr. After at Galle Town']);
    await addSession({ doctor_id: 9, session_date: inDays(71), session_no: 1, start_time: '10:00', end_time: '11:00' });
    expect(await names()).toEqual(['Dr. After at Galle Town', 'Dr. After at Galle Town']);
  });

  it('answers 422 for malformed filters', async () => {
    const res = await answerOf(t.api().GET('/all_sessions', { params: { query: { store_id: refused('abc') } } }));
    expect(res.status).toBe(422);
    expect(res.body).toEqual(failureOf('store_id must be a positive integer.'));
    expect((await answerOf(t.api().GET('/all_sessions', { params: { query: { date: '2099-13-01' } } }))).status).toBe(
      422,
    );
  });

  it('answers 404 for an unknown or malformed session id', async () => {
    for (const id of ['999999', 'x'])
      expect(
        (await answerOf(t.api().GET('/get_session/{session_id}', { params: { path: { session_id: refused(id) } } })))
          .status,
      ).toBe(404);
  });
});

describe('GET /preview_auto_sessions', () => {
  it.each(DAYS)('lists every scheduled date of a month starting on %s', async (first) => {
    const month = monthStartingOn(first, PREVIEW_YEAR);
    const res = await answerOf(t.api().GET('/preview_auto_sessions', { params: { query: { month: month } } }));
    expect(res.status).toBe(200);
    const expected = [
      ...datesOn(month, 'Monday').map((d) => [1, d, 1]),
      ...datesOn(month, 'Wednesday').map((d) => [1, d, 1]),
      ...datesOn(month, 'Saturday').flatMap((d) => [
        [2, d, 1],
        [2, d, 2],
      ]),
      ...datesOn(month, 'Tuesday').map((d) => [5, d, 1]),
      ...datesOn(month, 'Thursday').map((d) => [5, d, 1]),
    ].sort(
      (a, b) => String(a[1]).localeCompare(String(b[1])) || Number(a[0]) - Number(b[0]) || Number(a[2]) - Number(b[2]),
    );
    expect(res.body.preview.map((e: any) => [e.doctor_id, e.session_date, e.session_no])).toEqual(expected);
    // Dr. Gaps's Tuesday entry has no start time: listed, but not announced as new, since auto-creation skips it.
    const timeless = datesOn(month, 'Tuesday').length;
    expect(res.body).toMatchObject({
      success: true,
      month: monthLabelOf(month),
      new_count: expected.length - timeless,
      skip_count: timeless,
    });
    for (const entry of res.body.preview) {
      expect(DAYS[new Date(`${entry.session_date}T00:00:00Z`).getUTCDay()]).toBe(entry.day);
      expect(entry.exists).toBe(false);
      expect(entry.is_past).toBe(false);
    }
  });

  it('covers a 29-day February', async () => {
    const year = leapYearWithFeb29On('Tuesday', CREATION_YEAR + 3);
    const month = `${year}-02`;
    const res = await answerOf(
      t.api().GET('/preview_auto_sessions', { params: { query: { month: month, doctor_id: 5 } } }),
    );
    const thursdays = datesOn(month, 'Thursday');
    const tuesdays = datesOn(month, 'Tuesday');
    expect(tuesdays).toContain(`${year}-02-29`);
    expect(res.body.preview.map((e: any) => e.session_date).sort()).toEqual([...tuesdays, ...thursdays].sort());
    expect(res.body.preview.find((e: any) => e.session_date === `${year}-02-29`)).toEqual({
      doctor_id: 5,
      doctor_name: 'Dr. Gaps',
      session_date: `${year}-02-29`,
      day: 'Tuesday',
      session_no: 1,
      start_time: null,
      end_time: '12:00',
      max_patients: null,
      channeling_fee: 2500,
      exists: false,
      is_past: false,
    });
  });

  it('marks a month in the past as all past', async () => {
    const month = today().subtract(2, 'month').format('YYYY-MM');
    const res = await answerOf(
      t.api().GET('/preview_auto_sessions', { params: { query: { month: month, doctor_id: 1 } } }),
    );
    expect(res.body.preview.length).toBeGreaterThan(0);
    expect(res.body.preview.every((e: any) => e.is_past)).toBe(true);
    expect(res.body).toMatchObject({ new_count: 0, skip_count: res.body.preview.length });
  });

  it('defaults to the current month and filters by doctor and branch', async () => {
    const res = await answerOf(t.api().GET('/preview_auto_sessions', { params: { query: { store_id: 2 } } }));
    expect(res.body.month).toBe(today().format('MMMM YYYY'));
    expect(new Set(res.body.preview.map((e: any) => e.doctor_id))).toEqual(new Set([2]));
    const past = res.body.preview.filter((e: any) => e.session_date < today().format('YYYY-MM-DD'));
    expect(past.every((e: any) => e.is_past)).toBe(true);
    const none = await answerOf(t.api().GET('/preview_auto_sessions', { params: { query: { doctor_id: 6 } } }));
    expect(none.body).toMatchObject({ success: true, preview: [], new_count: 0, skip_count: 0 });
    for (const inactive of [3, 4])
      expect(
        (await answerOf(t.api().GET('/preview_auto_sessions', { params: { query: { doctor_id: inactive } } }))).body
          .preview,
      ).toEqual([]);
  });

  it('answers 422 for a malformed month', async () => {
    for (const month of [`${PREVIEW_YEAR}-13`, `${PREVIEW_YEAR}/01`, 'next']) {
      const res = await answerOf(t.api().GET('/preview_auto_sessions', { params: { query: { month: month } } }));
      expect(res.status).toBe(422);
      expect(res.body).toEqual(failureOf('month must be in YYYY-MM format.'));
    }
  });
});

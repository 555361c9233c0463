import dayjs from 'dayjs';
import timezone from 'dayjs/plugin/timezone';
import utc from 'dayjs/plugin/utc';
import { MongoClient } from 'mongodb';
import { EventSubjects } from '@clinic/contracts';
import { DAYS, datesOn } from './calendar';
import { EventReader } from './events';
import {
  answerOf,
  eventually,
  failureOf,
  refused,
  startTestStack,
  TEST_TZ,
  type ApiResponse,
  type TestStack,
} from './harness';

dayjs.extend(utc);
dayjs.extend(timezone);

let t: TestStack;
const today = () => dayjs().tz(TEST_TZ);

/*
 * Dates come from disjoint windows, so that what one test creates never lands
 * on what another asserts, whatever today is:
 * - sessions added one by one: today - 3 days .. today + 71 days (inDays);
 * - the months the preview tests read without creating anything: year PREVIEW_YEAR;
 * - the months auto-creation tests fill, one month per test: year CREATION_YEAR;
 * - the leap February: a leap year at least CREATION_YEAR + 3.
 */
const inDays = (n: number) => today().add(n, 'day').format('YYYY-MM-DD');
const PREVIEW_YEAR = today().year() + 10;
const CREATION_YEAR = PREVIEW_YEAR + 2;
const creationMonth = (month: number) => `${CREATION_YEAR}-${String(month).padStart(2, '0')}`;
const monthLabelOf = (month: string) => dayjs(`${month}-01`).format('MMMM YYYY');
const weekdayOf = (date: string) => DAYS[new Date(`${date}T00:00:00Z`).getUTCDay()];

/** The first month of `year` whose first day is `day`. */
function monthStartingOn(day: string, year: number): string {
  for (let m = 1; m <= 12; m++) {
    const month = `${year}-${String(m).padStart(2, '0')}`;
    if (weekdayOf(`${month}-01`) === day) return month;
  }
  throw new Error(`no month of ${year} starts on ${day}`);
}

/** The first year from `from` on whose February has a 29th falling on `day`. */
function leapYearWithFeb29On(day: string, from: number): number {
  for (let year = from; ; year++) {
    if (new Date(Date.UTC(year, 1, 29)).getUTCMonth() === 1 && weekdayOf(`${year}-02-29`) === day) return year;
  }
}

const slot = (
  day: string,
  session_no: number,
  start_time: string | null,
  end_time: string | null,
  max_patients: number | null = null,
) => ({
  day,
  session_no,
  start_time,
  end_time,
  max_patients,
});

const doctor = (id: number, overrides: Record<string, unknown> = {}) => ({
  id,
  name: `Dr. Number ${id}`,
  reg_no: `SLMC-${id}`,
  specialization: 'Cardiology',
  channeling_fee: 2500,
  status: 'Active',
  store_id: 1,
  schedule: [],
  ...overrides,
});

beforeAll(async () => {
  t = await startTestStack({ env: { REQUEST_TIMEOUT_MS: '20000' } });
  await t.seed({
    stores: [
      { id: 1, name: 'Colombo Central', status: 'active' },
      { id: 2, name: 'Kandy Branch', status: 'active' },
    ],
    doctors: [
      doctor(1, {
        name: 'Dr. Anura',
        schedule: [slot('Monday', 1, '08:00', '11:00', 20), slot('Wednesday', 1, '16:00', '19:00')],
      }),
      doctor(2, {
        name: 'Dr. Malini',
        store_id: 2,
        channeling_fee: 2000,
        specialization: 'Paediatrics',
        schedule: [slot('Saturday', 1, '08:30', '10:30', 10), slot('Saturday', 2, '14:00', '16:00', 10)],
      }),
      doctor(3, { status: 'Inactive', schedule: [slot('Friday', 1, '09:00', '12:00')] }),
      doctor(4, { store_id: null, schedule: [slot('Sunday', 1, '09:00', '12:00')] }),
      doctor(5, {
        name: 'Dr. Gaps',
        schedule: [slot('Tuesday', 1, null, '12:00'), slot('Thursday', 1, '17:00', '20:00')],
      }),
      doctor(6, { name: 'Dr. No Schedule' }),
      doctor(7, { name: 'Dr. Plain' }),
    ],
  });
});
afterAll(async () => {
  await t?.stop();
});

let nextSessionNo = 1;
/** A session_no no other test used, so add_session never collides by accident. */
const freshNo = () => nextSessionNo++;

async function addSession(overrides: Record<string, unknown> = {}) {
  const res = await answerOf(
    t.api().POST('/add_session', {
      body: {
        doctor_id: 7,
        session_date: inDays(30),
        session_no: freshNo(),
        start_time: '09:00',
        end_time: '12:00',
        ...overrides,
      },
    }),
  );
  expect(res.status).toBe(201);
  return res.body.session_id as number;
}

async function getSession(id: number) {
  const res = await answerOf(t.api().GET('/get_session/{session_id}', { params: { path: { session_id: id } } }));
  expect(res.status).toBe(200);
  return res.body.session;
}

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
    const res = await answerOf(
      t.api().POST('/add_session', {
        body: {
          doctor_id: 7,
          session_date: inDays(31),
          session_no: freshNo(),
          start_time: '09:00',
          end_time: '12:00',
          room: 'A',
          notes: 'x',
          booked_count: 5,
          store_id: 2,
        },
      }),
    );
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
    const again = await answerOf(
      t.api().POST('/add_session', {
        body: {
          doctor_id: 7,
          session_date: date,
          session_no: 1,
          start_time: '13:00',
          end_time: '14:00',
        },
      }),
    );
    expect(again.status).toBe(409);
    expect(again.body).toEqual({
      success: false,
      error: 'A session for this doctor, branch, date and session number already exists.',
      code: 'SESSION_SLOT_TAKEN',
    });
    const race = await Promise.all(
      [1, 2, 3].map(() =>
        answerOf(
          t.api().POST('/add_session', {
            body: {
              doctor_id: 7,
              session_date: date,
              session_no: 2,
              start_time: '13:00',
              end_time: '14:00',
            },
          }),
        ),
      ),
    );
    expect(race.map((r) => r.status).sort()).toEqual([201, 409, 409]);
    expect(
      (await answerOf(t.api().GET('/all_sessions', { params: { query: { doctor_id: 7, date: date } } }))).body.sessions,
    ).toHaveLength(2);
  });
});

describe('PUT /update_session/{id}', () => {
  it('updates the given fields; null or "" removes the cap; status maps to stored values', async () => {
    const id = await addSession({ max_patients: 5 });
    const res = await answerOf(
      t.api().PUT('/update_session/{session_id}', {
        params: { path: { session_id: id } },
        body: {
          start_time: '10:00',
          end_time: '11:30',
          max_patients: null,
          doctor_id: 1,
          session_no: 99,
          store_id: 2,
        },
      }),
    );
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, message: 'Session updated successfully.', session_id: id });
    expect(await getSession(id)).toMatchObject({
      start_time: '10:00',
      end_time: '11:30',
      max_patients: null,
      doctor_id: 7,
      store_id: 1,
    });
    await answerOf(
      t.api().PUT('/update_session/{session_id}', { params: { path: { session_id: id } }, body: { max_patients: 3 } }),
    );
    expect((await getSession(id)).max_patients).toBe(3);
    await answerOf(
      t.api().PUT('/update_session/{session_id}', { params: { path: { session_id: id } }, body: { max_patients: '' } }),
    );
    expect((await getSession(id)).max_patients).toBeNull();
    await answerOf(
      t.api().PUT('/update_session/{session_id}', { params: { path: { session_id: id } }, body: { status: 'Closed' } }),
    );
    expect((await getSession(id)).status).toBe('Closed');
    await answerOf(
      t.api().PUT('/update_session/{session_id}', { params: { path: { session_id: id } }, body: { status: 'Full' } }),
    );
    expect((await getSession(id)).status).toBe('Open'); // Full is only ever derived
    await answerOf(
      t.api().PUT('/update_session/{session_id}', { params: { path: { session_id: id } }, body: { status: 'Closed' } }),
    );
    await answerOf(
      t.api().PUT('/update_session/{session_id}', { params: { path: { session_id: id } }, body: { status: 'Open' } }),
    );
    expect((await getSession(id)).status).toBe('Open');
    await answerOf(
      t.api().PUT('/update_session/{session_id}', { params: { path: { session_id: id } }, body: { status: 'Closed' } }),
    );
    const other = await answerOf(
      t.api().PUT('/update_session/{session_id}', {
        params: { path: { session_id: id } },
        body: { status: 'anything else' },
      }),
    );
    expect({ status: other.status, success: other.body.success }).toEqual({ status: 200, success: true });
    expect((await getSession(id)).status).toBe('Open'); // any value other than Closed is stored active
  });

  it('compares the times only when both are given, as the spec says', async () => {
    const id = await addSession(); // 09:00-12:00
    const res = await answerOf(
      t
        .api()
        .PUT('/update_session/{session_id}', { params: { path: { session_id: id } }, body: { start_time: '13:00' } }),
    );
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, message: 'Session updated successfully.', session_id: id });
    expect(await getSession(id)).toMatchObject({ start_time: '13:00', end_time: '12:00' });
  });

  it('applies a session date without checking it against today', async () => {
    const id = await addSession();
    const past = inDays(-3);
    expect(
      (
        await answerOf(
          t.api().PUT('/update_session/{session_id}', {
            params: { path: { session_id: id } },
            body: { session_date: past },
          }),
        )
      ).status,
    ).toBe(200);
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
    const res = await answerOf(
      t.api().PUT('/update_session/{session_id}', { params: { path: { session_id: id } }, body: body }),
    );
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
    expect(
      (
        await answerOf(
          t.api().PUT('/update_session/{session_id}', {
            params: { path: { session_id: 999999 } },
            body: refused(undefined),
          }),
        )
      ).status,
    ).toBe(400);
    const res = await answerOf(
      t.api().PUT('/update_session/{session_id}', {
        params: { path: { session_id: 999999 } },
        body: { start_time: '09:00' },
      }),
    );
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ success: false, error: 'Session not found.', code: 'SESSION_NOT_FOUND' });
  });

  it('answers 409 when a new date lands on an existing slot', async () => {
    const date = inDays(50);
    await addSession({ session_date: date, session_no: 7 });
    const other = await addSession({ session_date: inDays(51), session_no: 7 });
    const res = await answerOf(
      t
        .api()
        .PUT('/update_session/{session_id}', { params: { path: { session_id: other } }, body: { session_date: date } }),
    );
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
    await answerOf(
      t.api().PUT('/update_session/{session_id}', { params: { path: { session_id: id } }, body: { status: 'Closed' } }),
    );
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

describe('GET /all_sessions', () => {
  it('filters by branch, doctor, date and derived status; orders by date descending then start time', async () => {
    const date = inDays(60);
    const late = await answerOf(
      t.api().POST('/add_session', {
        body: {
          doctor_id: 2,
          session_date: date,
          session_no: 1,
          start_time: '14:00',
          end_time: '16:00',
        },
      }),
    );
    const early = await answerOf(
      t.api().POST('/add_session', {
        body: {
          doctor_id: 2,
          session_date: date,
          session_no: 2,
          start_time: '08:00',
          end_time: '09:00',
        },
      }),
    );
    const next = await answerOf(
      t.api().POST('/add_session', {
        body: {
          doctor_id: 2,
          session_date: inDays(61),
          session_no: 1,
          start_time: '10:00',
          end_time: '11:00',
          status: 'Closed',
        },
      }),
    );
    const ids = async (query: string) => (await t.get(`/all_sessions${query}`)).body.sessions.map((s: any) => s.id);
    expect(await ids('?store_id=2')).toEqual([next.body.session_id, early.body.session_id, late.body.session_id]);
    expect(await ids(`?doctor_id=2&date=${date}`)).toEqual([early.body.session_id, late.body.session_id]);
    expect(await ids('?store_id=2&status=Closed')).toEqual([next.body.session_id]);
    expect(await ids('?store_id=2&status=Open')).toEqual([early.body.session_id, late.body.session_id]);
    expect(await ids('?store_id=2&status=open')).toEqual([]);
    const all = (await answerOf(t.api().GET('/all_sessions', { params: { query: { store_id: 2 } } }))).body.sessions;
    expect(all[0]).toMatchObject({ store_name: 'Kandy Branch', doctor_name: 'Dr. Malini', channeling_fee: 2000 });
  });

  it("shows a doctor's and a branch's new names once HOSPITAL_REF changes them, session writes or not", async () => {
    await t.seed({
      stores: [{ id: 3, name: 'Galle Branch', status: 'active' }],
      doctors: [doctor(9, { name: 'Dr. Before', store_id: 3 })],
    });
    const added = await answerOf(
      t.api().POST('/add_session', {
        body: {
          doctor_id: 9,
          session_date: inDays(70),
          session_no: 1,
          start_time: '10:00',
          end_time: '11:00',
        },
      }),
    );
    expect(added.status).toBe(201);
    const names = async () =>
      (await answerOf(t.api().GET('/all_sessions', { params: { query: { store_id: 3 } } }))).body.sessions.map(
        (s: any) => `${s.doctor_name} at ${s.store_name}`,
      );
    expect(await names()).toEqual(['Dr. Before at Galle Branch']);

    await t.seed({
      stores: [{ id: 3, name: 'Galle Town', status: 'active' }],
      doctors: [doctor(9, { name: 'Dr. After', store_id: 3 })],
    });
    expect(await names()).toEqual(['Dr. After at Galle Town']);
    const another = await answerOf(
      t.api().POST('/add_session', {
        body: {
          doctor_id: 9,
          session_date: inDays(71),
          session_no: 1,
          start_time: '10:00',
          end_time: '11:00',
        },
      }),
    );
    expect(another.status).toBe(201);
    expect(await names()).toEqual(['Dr. After at Galle Town', 'Dr. After at Galle Town']);
  });

  it('answers 422 for malformed filters', async () => {
    const res = await answerOf(t.api().GET('/all_sessions', { params: { query: { store_id: refused('abc') } } }));
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      success: false,
      error: 'store_id must be a positive integer.',
      code: 'VALIDATION_FAILED',
      field: 'store_id',
    });
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
      expect(res.body).toEqual({
        success: false,
        error: 'month must be in YYYY-MM format.',
        code: 'VALIDATION_FAILED',
        field: 'month',
      });
    }
  });
});

describe('POST /auto_create_sessions', () => {
  it('answers 404 when no schedule matches, and 422 for a malformed month', async () => {
    const res = await answerOf(
      t.api().POST('/auto_create_sessions', { body: { doctor_id: 6, month: creationMonth(3) } }),
    );
    expect(res.status).toBe(404);
    expect(res.body).toEqual({
      success: false,
      error: `No doctor schedules found for March ${CREATION_YEAR}.`,
      code: 'NO_SCHEDULES',
    });
    expect(
      (await answerOf(t.api().POST('/auto_create_sessions', { body: { month: `03-${CREATION_YEAR}` } }))).status,
    ).toBe(422);
  });

  it('creates what the preview announced, publishes one event per session, and nothing when run again', async () => {
    const month = creationMonth(3);
    const nc = await t.nats();
    const reader = await EventReader.start(nc, 'SESSIONS_EVENTS');
    try {
      const preview = (
        await answerOf(t.api().GET('/preview_auto_sessions', { params: { query: { month: month, doctor_id: 1 } } }))
      ).body;
      const res = await answerOf(t.api().POST('/auto_create_sessions', { body: { month, doctor_id: 1 } }));
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        success: true,
        message: `Created ${preview.new_count} session(s) for March ${CREATION_YEAR}.`,
        created: preview.new_count,
        skipped: preview.skip_count,
        errors: [],
      });
      const sessions = (
        await answerOf(t.api().GET('/all_sessions', { params: { query: { doctor_id: 1 } } }))
      ).body.sessions.filter((s: any) => s.session_date.startsWith(month));
      expect(sessions).toHaveLength(preview.new_count);
      expect(sessions.find((s: any) => s.session_date === datesOn(month, 'Monday')[0])).toMatchObject({
        start_time: '08:00',
        end_time: '11:00',
        max_patients: 20,
        store_id: 1,
        status: 'Open',
      });
      const events = await reader.waitFor(
        (e) => e.subject === EventSubjects.sessionCreated && e.event.data.session.session_date.startsWith(month),
        preview.new_count,
      );
      expect(new Set(events.map((e) => e.event.data.session.id))).toEqual(new Set(sessions.map((s: any) => s.id)));
      expect(
        (await answerOf(t.api().GET('/preview_auto_sessions', { params: { query: { month: month, doctor_id: 1 } } })))
          .body,
      ).toMatchObject({
        new_count: 0,
        skip_count: preview.new_count,
      });

      const again = await answerOf(t.api().POST('/auto_create_sessions', { body: { month, doctor_id: 1 } }));
      expect(again.body).toMatchObject({ created: 0, skipped: preview.new_count, errors: [] });
    } finally {
      reader.stop();
    }
  });

  it('skips past dates and entries without times, reporting the latter, as the preview announced', async () => {
    const preview = (await answerOf(t.api().GET('/preview_auto_sessions', { params: { query: { doctor_id: 5 } } })))
      .body;
    const res = await answerOf(t.api().POST('/auto_create_sessions', { body: { doctor_id: 5 } }));
    expect(res.status).toBe(201);
    expect(res.body.created).toBe(preview.new_count);
    expect(res.body.skipped).toBe(preview.skip_count);
    const month = today().format('YYYY-MM');
    const todayText = today().format('YYYY-MM-DD');
    const thursdays = datesOn(month, 'Thursday');
    const tuesdays = datesOn(month, 'Tuesday');
    const futureThursdays = thursdays.filter((d) => d >= todayText);
    const futureTuesdays = tuesdays.filter((d) => d >= todayText);
    expect(res.body.created).toBe(futureThursdays.length);
    expect(res.body.skipped).toBe(thursdays.length - futureThursdays.length + tuesdays.length);
    expect(res.body.errors).toHaveLength(futureTuesdays.length);
    for (const error of res.body.errors)
      expect(error).toMatch(
        /^Dr\. Gaps, \d{4}-\d{2}-\d{2} session 1: the schedule has no start or end time; skipped\.$/,
      );
  });

  it('returns at most 10 errors', async () => {
    await t.seed({
      doctors: [doctor(8, { name: 'Dr. Broken', schedule: DAYS.map((day) => slot(day, 1, null, null)) })],
    });
    const res = await answerOf(
      t.api().POST('/auto_create_sessions', { body: { doctor_id: 8, month: creationMonth(10) } }),
    ); // 31 days
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ created: 0, skipped: 31 });
    expect(res.body.errors).toHaveLength(10);
  });

  it.each([7, 8, 12])('creates each session exactly once when three runs for month %s race', async (monthNumber) => {
    const month = creationMonth(monthNumber);
    const preview = (await answerOf(t.api().GET('/preview_auto_sessions', { params: { query: { month: month } } })))
      .body;
    const runs = await Promise.all(
      [1, 2, 3].map(() => answerOf(t.api().POST('/auto_create_sessions', { body: { month } }))),
    );
    expect(runs.map((r) => r.status)).toEqual([201, 201, 201]);
    const expectedCreated = preview.preview.filter(
      (e: any) => !e.exists && !e.is_past && e.start_time && e.end_time,
    ).length;
    expect(runs.reduce((sum, r) => sum + r.body.created, 0)).toBe(expectedCreated);
    const all = (await answerOf(t.api().GET('/all_sessions'))).body.sessions.filter((s: any) =>
      s.session_date.startsWith(month),
    );
    expect(all).toHaveLength(expectedCreated);
    expect(new Set(all.map((s: any) => `${s.doctor_id}/${s.session_date}/${s.session_no}`)).size).toBe(expectedCreated);
  });

  it('answers 500 and leaves no partial month when the database fails mid-run', async () => {
    const month = creationMonth(11);
    // Enough doctors (about 2,400 sessions) that the run lasts long enough to be caught in progress on a busy machine.
    await t.seed({
      doctors: Array.from({ length: 40 }, (_, i) =>
        doctor(100 + i, {
          name: `Dr. Busy ${i}`,
          store_id: 2,
          schedule: DAYS.flatMap((day) => [slot(day, 1, '08:00', '10:00'), slot(day, 2, '10:00', '12:00')]),
        }),
      ),
    });
    const preview = (
      await answerOf(t.api().GET('/preview_auto_sessions', { params: { query: { month: month, store_id: 2 } } }))
    ).body;
    const db = t.stack.infra.db!;
    const mongo = await MongoClient.connect(t.stack.infra.mongoUrl);
    let res: ApiResponse;
    try {
      const runs = mongo.db('clinic_sessions').collection('auto_create_runs');
      const pending = answerOf(t.api().POST('/auto_create_sessions', { body: { month, store_id: 2 } }));
      // The database dies once the run has begun and before it completes, however fast the machine
      // (a fixed delay let a quick run finish first). Killed rather than paused: a paused server
      // can let an operation sent before the pause wait it out and succeed.
      await eventually(async () => (await runs.findOne({ month, status: 'running' })) ?? undefined, 20_000, 2);
      db.signal('SIGKILL');
      await db.waitForExit();
      res = await pending;
    } finally {
      await mongo.close().catch(() => undefined);
      if (!db.running) await t.stack.infra.startDb();
    }
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ success: false, error: 'Internal server error.', code: 'INTERNAL_ERROR' });
    // Once the service sees its database again, nothing of the failed run is visible,
    // and once rolled back the month can be created whole.
    await t.stack.waitHealthy(20_000);
    const inMonth = async () =>
      (await answerOf(t.api().GET('/all_sessions', { params: { query: { store_id: 2 } } }))).body.sessions.filter(
        (s: any) => s.session_date.startsWith(month),
      );
    expect(await inMonth()).toEqual([]);
    const retry = await eventually(
      async () => {
        const r = await answerOf(t.api().POST('/auto_create_sessions', { body: { month, store_id: 2 } }));
        return r.status === 201 ? r : undefined;
      },
      20_000,
      500,
    );
    expect(retry.body.created).toBe(preview.new_count);
    expect(await inMonth()).toHaveLength(preview.new_count);
  });
});

describe('late inserts of a rolled-back run', () => {
  it('keeps them hidden, and a new run of the month fills their slots anew', async () => {
    const month = creationMonth(5);
    const preview = (
      await answerOf(t.api().GET('/preview_auto_sessions', { params: { query: { month: month, doctor_id: 1 } } }))
    ).body;
    const slot = preview.preview[0];
    // What a paused database executes after the run that sent it was rolled back.
    const mongo = await MongoClient.connect(t.stack.infra.mongoUrl);
    try {
      const db = mongo.db('clinic_sessions');
      await db
        .collection<any>('auto_create_runs')
        .insertOne({ _id: 'late-run', status: 'rolled_back', month, started_at: new Date(), finished_at: new Date() });
      await db.collection<any>('sessions').insertOne({
        _id: '990001',
        id: 990001,
        doctor_id: 1,
        store_id: 1,
        session_date: slot.session_date,
        session_no: slot.session_no,
        start_time: slot.start_time,
        end_time: slot.end_time,
        max_patients: slot.max_patients,
        status: 'active',
        created_at: new Date(),
        run_id: 'late-run',
        _event_ids: [],
      });
    } finally {
      await mongo.close();
    }
    expect(
      (await answerOf(t.api().GET('/get_session/{session_id}', { params: { path: { session_id: 990001 } } }))).status,
    ).toBe(404);
    expect(
      (await answerOf(t.api().GET('/all_sessions', { params: { query: { doctor_id: 1, date: slot.session_date } } })))
        .body.sessions,
    ).toEqual([]);
    const res = await answerOf(t.api().POST('/auto_create_sessions', { body: { month, doctor_id: 1 } }));
    expect(res.body).toMatchObject({ created: preview.new_count, skipped: preview.skip_count });
    const sessions = (
      await answerOf(t.api().GET('/all_sessions', { params: { query: { doctor_id: 1 } } }))
    ).body.sessions.filter((x: any) => x.session_date.startsWith(month));
    expect(sessions).toHaveLength(preview.new_count);
    // The late insert's slot is filled anew (a session never changes runs), and the late insert is gone.
    expect(
      sessions.find((x: any) => x.session_date === slot.session_date && x.session_no === slot.session_no),
    ).toBeDefined();
    expect(sessions.map((x: any) => x.id)).not.toContain(990001);
    expect(
      (await answerOf(t.api().GET('/get_session/{session_id}', { params: { path: { session_id: 990001 } } }))).status,
    ).toBe(404);
  });
});

describe('events', () => {
  it('publishes created, updated and deleted for a session', async () => {
    const nc = await t.nats();
    const reader = await EventReader.start(nc, 'SESSIONS_EVENTS');
    try {
      const id = await addSession();
      await answerOf(
        t
          .api()
          .PUT('/update_session/{session_id}', { params: { path: { session_id: id } }, body: { max_patients: 9 } }),
      );
      await answerOf(t.api().DELETE('/delete_session/{session_id}', { params: { path: { session_id: id } } }));
      const events = await reader.waitFor((e) => e.event.data.session.id === id, 3);
      expect(events.map((e) => e.subject)).toEqual([
        EventSubjects.sessionCreated,
        EventSubjects.sessionUpdated,
        EventSubjects.sessionDeleted,
      ]);
      expect(events[1]!.event.data.session.max_patients).toBe(9);
      for (const e of events) expect(e.msgId).toBe(e.event.event_id);
    } finally {
      reader.stop();
    }
  });
});

/**
 * Doctor leave and holidays (reference kinds `doctor_leave` and `holiday` on
 * HOSPITAL_REF), through the gateway: the preview marks blocked dates and
 * does not count them as new, auto-creation skips them, and
 * `GET /all_sessions?conflicts=true` lists existing sessions that fall on one.
 * Without any such record every answer is exactly the spec's.
 *
 * Dates lie fifteen and more years ahead, one month per test, so that "today"
 * never matters.
 */
import { datesOn } from './calendar';
import { branch } from './fixtures';
import { failureOf, fileStack } from './harness';

const YEAR = new Date().getUTCFullYear() + 15;
const month = (m: number) => `${YEAR}-${String(m).padStart(2, '0')}`;

const slot = (day: string, session_no: number, start_time: string | null, end_time: string | null) => ({
  day,
  session_no,
  start_time,
  end_time,
  max_patients: 10,
});
const doctor = (id: number, store_id: number, schedule: unknown[]) => ({
  id,
  name: `Dr. ${id}`,
  reg_no: `R-${id}`,
  specialization: 'General',
  channeling_fee: 1500,
  status: 'Active',
  store_id,
  schedule,
});

const SPEC_ENTRY_FIELDS = [
  'channeling_fee',
  'day',
  'doctor_id',
  'doctor_name',
  'end_time',
  'exists',
  'is_past',
  'max_patients',
  'session_date',
  'session_no',
  'start_time',
];

const t = fileStack({
  stores: [branch(1, 'Negombo Branch'), branch(2, 'Kandy Branch')],
  doctors: [
    doctor(1, 1, [slot('Monday', 1, '08:00', '11:00'), slot('Wednesday', 1, '16:00', '19:00')]),
    doctor(2, 2, [slot('Saturday', 1, '08:30', '10:30'), slot('Saturday', 2, '14:00', '16:00')]),
    doctor(3, 1, [slot('Tuesday', 1, null, '12:00')]),
    doctor(4, 1, []),
  ],
});

async function preview(m: string) {
  const res = await t.get(`/preview_auto_sessions?month=${m}`);
  expect(res.status).toBe(200);
  return res.body;
}

async function conflicts(query = '') {
  const res = await t.get(`/all_sessions?conflicts=true${query}`);
  expect(res.status).toBe(200);
  return res.body.sessions as any[];
}

describe('without leave or holiday records', () => {
  it('answers the preview, the list and auto-creation exactly as the spec does', async () => {
    const body = await preview(month(1));
    expect(body.preview.length).toBeGreaterThan(0);
    for (const entry of body.preview) expect(Object.keys(entry).sort()).toEqual(SPEC_ENTRY_FIELDS);
    const timeless = datesOn(month(1), 'Tuesday').length;
    expect(body).toMatchObject({ new_count: body.preview.length - timeless, skip_count: timeless });
    expect(await conflicts()).toEqual([]);
    const created = await t.post('/auto_create_sessions', { month: month(1) });
    expect(created.body).toMatchObject({ created: body.new_count, skipped: body.skip_count });
    const listed = await t.get(`/all_sessions?doctor_id=1&date=${datesOn(month(1), 'Monday')[0]}`);
    expect(Object.keys(listed.body.sessions[0])).not.toContain('on_leave');
  });
});

describe('with leave and holiday records', () => {
  const m = month(3);
  const mondays = datesOn(m, 'Monday');
  const wednesdays = datesOn(m, 'Wednesday');
  const saturdays = datesOn(m, 'Saturday');
  // Doctor 1 is away from the second Monday to the Wednesday after it; every branch rests on the last Wednesday;
  // Kandy (store 2) on the first Saturday, Negombo (store 1) on the last Saturday (no Negombo doctor works then).
  const leave = {
    id: 1,
    doctor_id: 1,
    from_date: mondays[1]!,
    to_date: wednesdays.find((d) => d > mondays[1]!)!,
    reason: 'Conference',
  };
  const holidays = [
    { id: 1, date: wednesdays.at(-1)!, store_id: null, name: 'National Day' },
    { id: 2, date: saturdays[0]!, store_id: 2, name: 'Kandy Perahera' },
    { id: 3, date: saturdays.at(-1)!, store_id: 1, name: 'Negombo Day' },
  ];

  beforeAll(async () => {
    await t.seed({ doctor_leaves: [leave], holidays });
  });

  it('marks every preview entry with on_leave and holiday, and counts blocked entries as skipped', async () => {
    const body = await preview(m);
    const blocked = (e: any) => e.on_leave || e.holiday !== null;
    for (const entry of body.preview) {
      expect(Object.keys(entry).sort()).toEqual([...SPEC_ENTRY_FIELDS, 'holiday', 'on_leave'].sort());
      const onLeave =
        entry.doctor_id === 1 && entry.session_date >= leave.from_date && entry.session_date <= leave.to_date;
      const holiday =
        entry.session_date === holidays[0]!.date
          ? 'National Day'
          : entry.doctor_id === 2 && entry.session_date === holidays[1]!.date
            ? 'Kandy Perahera'
            : null;
      expect({
        entry: [entry.doctor_id, entry.session_date],
        on_leave: entry.on_leave,
        holiday: entry.holiday,
      }).toEqual({
        entry: [entry.doctor_id, entry.session_date],
        on_leave: onLeave,
        holiday,
      });
    }
    // Doctor 1: two days of leave; the National Day Wednesday. Doctor 2: both sessions of the Kandy Saturday.
    expect(body.preview.filter(blocked).map((e: any) => [e.doctor_id, e.session_date, e.session_no])).toEqual(
      [
        [1, leave.from_date, 1],
        [1, leave.to_date, 1],
        [1, holidays[0]!.date, 1],
        [2, holidays[1]!.date, 1],
        [2, holidays[1]!.date, 2],
      ].sort(
        (a, b) =>
          String(a[1]).localeCompare(String(b[1])) || Number(a[0]) - Number(b[0]) || Number(a[2]) - Number(b[2]),
      ),
    );
    const timeless = datesOn(m, 'Tuesday').length;
    expect(body.skip_count).toBe(5 + timeless);
    expect(body.new_count).toBe(body.preview.length - 5 - timeless);
  });

  it('skips blocked dates in auto-creation, counting them in skipped without an error', async () => {
    const announced = await preview(m);
    const res = await t.post('/auto_create_sessions', { month: m });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ created: announced.new_count, skipped: announced.skip_count });
    expect(res.body.errors).toHaveLength(datesOn(m, 'Tuesday').length);
    for (const error of res.body.errors) expect(error).toContain('no start or end time');
    const sessions = (await t.get('/all_sessions')).body.sessions.filter((s: any) => s.session_date.startsWith(m));
    expect(sessions).toHaveLength(announced.new_count);
    const dates = new Set(sessions.map((s: any) => `${s.doctor_id}:${s.session_date}`));
    for (const date of [leave.from_date, leave.to_date, holidays[0]!.date]) expect(dates.has(`1:${date}`)).toBe(false);
    expect(dates.has(`2:${holidays[1]!.date}`)).toBe(false);
    // Nothing it created conflicts.
    expect((await conflicts()).filter((s) => s.session_date.startsWith(m))).toEqual([]);
  });

  it('lists existing sessions on a leave or a holiday with ?conflicts=true, within the other filters', async () => {
    const later = month(5);
    // Every month has at least four of each weekday.
    const [monday, nextMonday] = datesOn(later, 'Monday') as [string, string];
    const saturday = datesOn(later, 'Saturday')[1]!;
    const add = async (doctor_id: number, session_date: string, session_no = 1, status = 'Open') => {
      const res = await t.post('/add_session', {
        doctor_id,
        session_date,
        session_no,
        start_time: '08:00',
        end_time: '09:00',
        status,
      });
      expect(res.status).toBe(201);
      return res.body.session_id as number;
    };
    const onLeave = await add(1, monday);
    const onLeaveClosed = await add(1, monday, 2, 'Closed');
    const free = await add(1, nextMonday);
    const onBranchHoliday = await add(2, saturday);
    expect(await conflicts()).toEqual([]);

    await t.seed({
      doctor_leaves: [{ id: 2, doctor_id: 1, from_date: monday, to_date: monday }],
      holidays: [
        { id: 4, date: saturday, store_id: 2, name: 'Kandy Day' },
        { id: 5, date: nextMonday, store_id: 2, name: 'Kandy only' },
      ],
    });
    const all = await conflicts();
    expect(all.map((s) => s.id).sort()).toEqual([onLeave, onLeaveClosed, onBranchHoliday].sort());
    const byId = new Map(all.map((s) => [s.id, s]));
    expect(byId.get(onLeave)).toMatchObject({
      doctor_id: 1,
      session_date: monday,
      status: 'Open',
      store_name: 'Negombo Branch',
      on_leave: true,
      holiday: null,
    });
    expect(byId.get(onLeaveClosed)).toMatchObject({ status: 'Closed', on_leave: true });
    expect(byId.get(onBranchHoliday)).toMatchObject({
      doctor_id: 2,
      store_id: 2,
      on_leave: false,
      holiday: 'Kandy Day',
    });
    // Ordered as the list is: latest date first.
    expect(all[0].session_date >= all.at(-1).session_date).toBe(true);

    expect((await conflicts('&store_id=2')).map((s) => s.id)).toEqual([onBranchHoliday]);
    expect((await conflicts('&doctor_id=1&status=Open')).map((s) => s.id)).toEqual([onLeave]);
    expect((await conflicts(`&date=${nextMonday}`)).map((s) => s.id)).toEqual([]);
    expect(
      (await t.get(`/all_sessions?conflicts=false&date=${nextMonday}&doctor_id=1`)).body.sessions.map((s: any) => s.id),
    ).toEqual([free]);

    // Closing the conflict: the leave is withdrawn.
    await t.seed({ doctor_leaves: [{ id: 2, deleted: true }] });
    expect((await conflicts()).map((s) => s.id)).toEqual([onBranchHoliday]);
  });

  it('refuses a conflicts value other than true or false, and a leave that ends before it starts', async () => {
    const res = await t.get('/all_sessions?conflicts=yes');
    expect(res.status).toBe(422);
    expect(res.body).toEqual(failureOf('conflicts must be true or false.'));
    await expect(
      t.seed({ doctor_leaves: [{ id: 9, doctor_id: 1, from_date: `${YEAR}-06-10`, to_date: `${YEAR}-06-09` }] }),
    ).rejects.toThrow(/doctor_leaves\[0\]: to_date must not be earlier than from_date/);
    await expect(
      t.seed({ holidays: [{ id: 9, date: `${YEAR}-02-30`, store_id: null, name: 'Nope' }] }),
    ).rejects.toThrow(/holidays\[0\]: date must be a valid date/);
  });
});

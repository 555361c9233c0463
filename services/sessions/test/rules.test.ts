import type { DoctorRecord } from '@clinic/contracts';
import {
  datesOfMonth,
  monthLabel,
  planMonth,
  runOf,
  schedulingDoctors,
  type PlannedSession,
} from '../src/domain/planning';
import { changesFor, displayStatus } from '../src/domain/rules';

const doctor = (overrides: Partial<DoctorRecord> = {}): DoctorRecord => ({
  id: 1,
  name: 'Dr. A',
  reg_no: 'R1',
  specialization: 'GP',
  channeling_fee: 1000,
  status: 'Active',
  store_id: 1,
  schedule: [{ day: 'Monday', session_no: 1, start_time: '08:00', end_time: '10:00', max_patients: null }],
  ...overrides,
});

describe('displayStatus', () => {
  it.each([
    ['cancelled', 5, 0, 'Closed'],
    ['completed', null, 0, 'Closed'],
    ['active', 2, 2, 'Full'],
    ['active', 2, 3, 'Full'],
    ['active', 2, 1, 'Open'],
    ['active', null, 100, 'Open'],
    ['active', 0, 0, 'Open'],
  ] as const)('stored %s, cap %p, booked %p -> %s', (stored, cap, booked, expected) => {
    expect(displayStatus(stored, cap, booked)).toBe(expected);
  });
});

describe('changesFor', () => {
  it('cancels an active session on Closed, and leaves one already closed as it is', () => {
    expect(changesFor('active', { status: 'cancelled', max_patients: 5 })).toEqual({
      status: 'cancelled',
      max_patients: 5,
    });
    expect(changesFor('completed', { status: 'cancelled', max_patients: 5 })).toEqual({ max_patients: 5 });
    expect(changesFor('cancelled', { status: 'cancelled' })).toEqual({});
  });

  it('reopens a cancelled session, never a completed one', () => {
    expect(changesFor('cancelled', { status: 'active' })).toEqual({ status: 'active' });
    expect(() => changesFor('completed', { status: 'active' })).toThrow('Session is completed: it cannot be reopened.');
    expect(changesFor('completed', { start_time: '09:00' })).toEqual({ start_time: '09:00' });
  });
});

describe('month planning', () => {
  it('labels months in English', () => {
    expect(monthLabel('2082-12')).toBe('December 2082');
    expect(monthLabel('2084-02')).toBe('February 2084');
  });

  it('computes weekdays and month lengths for any four-digit year', () => {
    const early = new Date(Date.UTC(2000, 0, 1));
    early.setUTCFullYear(7); // Date's own proleptic Gregorian calendar, free of the 19xx reading
    const days = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
    expect(datesOfMonth('0007-01')[0]).toEqual({ date: '0007-01-01', day: days[early.getUTCDay()] });
    expect(datesOfMonth('2000-02')).toHaveLength(29); // divisible by 400
    expect(datesOfMonth('1900-02')).toHaveLength(28); // divisible by 100
    expect(monthLabel('0007-01')).toBe('January 0007');
    // Agrees with Date for every day of a span of years Date handles.
    for (let t = Date.UTC(1999, 11, 1); t < Date.UTC(2001, 2, 1); t += 86_400_000) {
      const d = new Date(t);
      const month = `${d.getUTCFullYear()}-${String(d.getUTCMonth() + 1).padStart(2, '0')}`;
      const entry = datesOfMonth(month)[d.getUTCDate() - 1];
      expect(entry?.date).toBe(d.toISOString().slice(0, 10));
      expect(entry?.day).toBe(
        ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'][d.getUTCDay()],
      );
    }
  });

  it('knows leap years and weekdays', () => {
    const feb = datesOfMonth('2084-02');
    expect(feb).toHaveLength(29);
    expect(feb[28]).toEqual({ date: '2084-02-29', day: 'Tuesday' });
    expect(datesOfMonth('2082-02')).toHaveLength(28);
    expect(datesOfMonth('2082-11')[0]).toEqual({ date: '2082-11-01', day: 'Sunday' });
  });

  it('plans one session per schedule entry per matching weekday, ordered by date', () => {
    const plan = planMonth(
      [
        doctor({
          schedule: [
            { day: 'Monday', session_no: 2, start_time: '14:00', end_time: '16:00', max_patients: 5 },
            { day: 'Monday', session_no: 1, start_time: '08:00', end_time: '10:00', max_patients: null },
          ],
        }),
      ],
      '2082-11',
    );
    expect(plan.map((p) => `${p.session_date}#${p.entry.session_no}`)).toEqual([
      '2082-11-02#1',
      '2082-11-02#2',
      '2082-11-09#1',
      '2082-11-09#2',
      '2082-11-16#1',
      '2082-11-16#2',
      '2082-11-23#1',
      '2082-11-23#2',
      '2082-11-30#1',
      '2082-11-30#2',
    ]);
  });

  it('takes only Active doctors with a branch and a schedule, within the selection', () => {
    const doctors = [
      doctor({ id: 1 }),
      doctor({ id: 2, status: 'Inactive' }),
      doctor({ id: 3, store_id: null }),
      doctor({ id: 4, schedule: [] }),
      doctor({ id: 5, store_id: 2 }),
    ];
    expect(schedulingDoctors(doctors, { month: '2082-11' }).map((d) => d.id)).toEqual([1, 5]);
    expect(schedulingDoctors(doctors, { month: '2082-11', store_id: 2 }).map((d) => d.id)).toEqual([5]);
    expect(schedulingDoctors(doctors, { month: '2082-11', doctor_id: 1 }).map((d) => d.id)).toEqual([1]);
  });
});

describe('runOf (auto-creation rules 2 to 5)', () => {
  const planned = (date: string, overrides: Partial<PlannedSession['entry']> = {}): PlannedSession => ({
    doctor: doctor(),
    entry: { day: 'Monday', session_no: 1, start_time: '08:00', end_time: '10:00', max_patients: null, ...overrides },
    session_date: date,
    day: 'Monday',
  });
  const plan = [
    planned('2082-11-02'), // past
    planned('2082-11-30', { start_time: null }),
    planned('2082-11-30', { session_no: 2 }), // taken
    planned('2082-11-30', { session_no: 3 }), // row error
    planned('2082-11-30', { session_no: 4 }),
    planned('2082-11-30', { session_no: 5 }), // blocked by a leave or a holiday
  ];
  const blocked = (p: PlannedSession) => p.entry.session_no === 5;

  it('stores only entries that are not past, not blocked and have times', () => {
    expect(runOf(plan, '2082-11-21', blocked).insertable.map((p) => p.entry.session_no)).toEqual([2, 3, 4]);
  });

  it('skips past and blocked dates silently, entries without times and taken slots; a row error is counted and reported', () => {
    const run = runOf(plan, '2082-11-21', blocked);
    const outcome = run.outcome(
      run.insertable.map((p) => {
        if (p.entry.session_no === 2) return 'exists';
        if (p.entry.session_no === 3) return new Error('document rejected');
        return p.entry.session_no;
      }),
    );
    expect(outcome.created).toEqual([4]);
    expect(outcome.skipped).toBe(5);
    expect(outcome.errors).toEqual([
      'Dr. A, 2082-11-30 session 1: the schedule has no start or end time; skipped.',
      'Dr. A, 2082-11-30 session 3: could not be saved; skipped.',
    ]);
  });
});

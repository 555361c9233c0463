/**
 * The month of sessions that weekly schedules make, and what auto-creation
 * does with each planned session (its rules 2 to 5). Pure functions.
 */
import { SESSIONS_MESSAGES, WEEKDAYS, type DoctorRecord, type ScheduleEntry, type Weekday } from '@clinic/contracts';
import { daysInMonth, itemAt, MONTH_NAMES, weekdayOf } from '@clinic/service-kit';
import type { ScheduleSelection } from './rules';

/** `December 2026` */
export function monthLabel(month: string): string {
  const [year, number] = month.split('-');
  return `${MONTH_NAMES[Number(number) - 1]} ${year}`;
}

/** Year and month (1 to 12) of a checked `YYYY-MM`. */
function yearAndMonth(month: string): { year: number; number: number } {
  return { year: Number(month.slice(0, 4)), number: Number(month.slice(5, 7)) };
}

export function datesOfMonth(month: string): Array<{ date: string; day: Weekday }> {
  const { year, number } = yearAndMonth(month);
  return Array.from({ length: daysInMonth(year, number) }, (_, i) => ({
    date: `${month}-${String(i + 1).padStart(2, '0')}`,
    day: itemAt(WEEKDAYS, weekdayOf(year, number, i + 1)),
  }));
}

/** The first and the last date of a month. */
export function monthRange(month: string): { from: string; to: string } {
  const { year, number } = yearAndMonth(month);
  return { from: `${month}-01`, to: `${month}-${String(daysInMonth(year, number)).padStart(2, '0')}` };
}

export interface PlannedSession {
  doctor: DoctorRecord;
  entry: ScheduleEntry;
  session_date: string;
  day: Weekday;
}

/** Doctors whose schedules take part: Active, with a branch, within the selection. */
export function schedulingDoctors(doctors: DoctorRecord[], selection: ScheduleSelection): DoctorRecord[] {
  return doctors.filter(
    (d) =>
      d.status === 'Active' &&
      d.store_id !== null &&
      d.schedule.length > 0 &&
      (selection.doctor_id === undefined || d.id === selection.doctor_id) &&
      (selection.store_id === undefined || d.store_id === selection.store_id),
  );
}

/** One planned session per schedule entry per date of the month on the entry's weekday. */
export function planMonth(doctors: DoctorRecord[], month: string): PlannedSession[] {
  const dates = datesOfMonth(month);
  const plan: PlannedSession[] = [];
  for (const doctor of doctors) {
    for (const entry of doctor.schedule) {
      for (const { date, day } of dates) if (day === entry.day) plan.push({ doctor, entry, session_date: date, day });
    }
  }
  return plan.sort(
    (a, b) =>
      a.session_date.localeCompare(b.session_date) ||
      a.doctor.id - b.doctor.id ||
      a.entry.session_no - b.entry.session_no,
  );
}

function hasTimes(p: PlannedSession): boolean {
  return Boolean(p.entry.start_time && p.entry.end_time);
}

/** Why a planned session cannot be created (rule 3), or null. */
export function unusableEntry(p: PlannedSession): string | null {
  return hasTimes(p) ? null : SESSIONS_MESSAGES.noTimes(p.doctor.name, p.session_date, p.entry.session_no);
}

export interface RunOutcome<T> {
  created: T[];
  skipped: number;
  errors: string[];
}

/** Whether storing a planned session stored it (rather than finding its slot taken, or failing). */
export function isStored<T>(result: T | 'exists' | Error): result is T {
  return result !== 'exists' && !(result instanceof Error);
}

/**
 * Rules 2 to 5 of auto-creation over a plan, and beyond the spec the dates
 * `blocked` by a leave or a holiday, skipped like past ones: `insertable` are
 * the planned sessions to store; `outcome` counts the run, given what storing
 * answered for each of them: the session, 'exists' when its slot is taken, or
 * the Error of that one row.
 */
export function runOf(plan: PlannedSession[], today: string, blocked: (p: PlannedSession) => boolean = () => false) {
  // A past date, the doctor's leave or a holiday: skipped without a word.
  const silentlySkipped = (p: PlannedSession) => p.session_date < today || blocked(p);
  const insertable = plan.filter((p) => !silentlySkipped(p) && unusableEntry(p) === null);
  return {
    insertable,
    outcome<T>(inserted: Array<T | 'exists' | Error>): RunOutcome<T> {
      const resultOf = new Map(insertable.map((p, i) => [p, inserted[i]]));
      const outcome: RunOutcome<T> = { created: [], skipped: 0, errors: [] };
      for (const p of plan) {
        if (silentlySkipped(p)) {
          outcome.skipped++;
          continue;
        }
        const problem = unusableEntry(p);
        if (problem) {
          outcome.skipped++;
          outcome.errors.push(problem);
          continue;
        }
        const result = resultOf.get(p) as T | 'exists' | Error;
        if (isStored(result)) {
          outcome.created.push(result);
        } else {
          outcome.skipped++;
          if (result instanceof Error)
            outcome.errors.push(SESSIONS_MESSAGES.notSaved(p.doctor.name, p.session_date, p.entry.session_no));
        }
      }
      return outcome;
    },
  };
}

/** Calendar helpers for tests, computed independently of the services. */
import dayjs from 'dayjs';
import timezone from 'dayjs/plugin/timezone';
import utc from 'dayjs/plugin/utc';
import { TEST_TZ } from './harness';

dayjs.extend(utc);
dayjs.extend(timezone);

export const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

/** Dates of a month (`YYYY-MM`) falling on a weekday. */
export function datesOn(month: string, day: string): string[] {
  const [y, m] = month.split('-').map(Number) as [number, number];
  const dates: string[] = [];
  for (let d = new Date(Date.UTC(y, m - 1, 1)); d.getUTCMonth() === m - 1; d = new Date(d.getTime() + 86_400_000)) {
    if (DAYS[d.getUTCDay()] === day) dates.push(d.toISOString().slice(0, 10));
  }
  return dates;
}

/** A date's (`YYYY-MM-DD`) weekday. */
export const weekdayOf = (date: string) => DAYS[new Date(`${date}T00:00:00Z`).getUTCDay()];

/** A month (`YYYY-MM`) as the preview names it: "December 2026". */
export const monthLabelOf = (month: string) => dayjs(`${month}-01`).format('MMMM YYYY');

/** The first month of `year` whose first day is `day`. */
export function monthStartingOn(day: string, year: number): string {
  for (let m = 1; m <= 12; m++) {
    const month = `${year}-${String(m).padStart(2, '0')}`;
    if (weekdayOf(`${month}-01`) === day) return month;
  }
  throw new Error(`no month of ${year} starts on ${day}`);
}

/** The first year from `from` on whose February has a 29th falling on `day`. */
export function leapYearWithFeb29On(day: string, from: number): number {
  for (let year = from; ; year++) {
    if (new Date(Date.UTC(year, 1, 29)).getUTCMonth() === 1 && weekdayOf(`${year}-02-29`) === day) return year;
  }
}

/** `n` days after the clinic's today (TEST_TZ), as YYYY-MM-DD. */
export const inDaysFromToday = (n: number): string => dayjs().tz(TEST_TZ).add(n, 'day').format('YYYY-MM-DD');

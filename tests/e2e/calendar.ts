/** Calendar helpers for tests, computed independently of the services. */

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

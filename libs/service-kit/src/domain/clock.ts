// Calendar arithmetic on plain integers: correct for every year 0000-9999,
// where Date would read years below 100 as 19xx.
import { itemAt } from './arrays';

export const MONTH_NAMES = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
] as const;

export function isLeapYear(year: number): boolean {
  return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
}

/** Days of `month` (1 to 12) in `year`. */
export function daysInMonth(year: number, month: number): number {
  return itemAt([31, isLeapYear(year) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31], month - 1);
}

/** Day of the week, 0 = Sunday (Sakamoto's method, proleptic Gregorian calendar). */
export function weekdayOf(year: number, month: number, day: number): number {
  const offsets = [0, 3, 2, 5, 0, 3, 5, 1, 4, 6, 2, 4];
  const y = month < 3 ? year - 1 : year;
  return (
    (((y + Math.floor(y / 4) - Math.floor(y / 100) + Math.floor(y / 400) + itemAt(offsets, month - 1) + day) % 7) + 7) %
    7
  );
}

/** How many distinct seconds a clock keeps formatted. */
const FORMATTED_SECONDS_KEPT = 256;

/**
 * "Today", "now" and timestamps as the clinic sees them (`CLINIC_TZ`). One
 * Intl formatter per clock: building one per call (as dayjs's timezone
 * plugin, used before, does) cost a fifth of a service's CPU in list reads.
 */
export class ClinicClock {
  private readonly formatter: Intl.DateTimeFormat;
  /** Timestamps of recent seconds: a write's views, history and events format the same few instants. */
  private readonly formatted = new Map<number, string>();

  constructor(readonly timeZone: string) {
    // Throws RangeError for an unknown zone, at start-up rather than on a request.
    this.formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
  }

  today(): string {
    return (this.timestamp(new Date()) as string).slice(0, 10);
  }

  currentMonth(): string {
    return this.today().slice(0, 7);
  }

  /** `YYYY-MM-DD HH:MM:SS` in the clinic's zone. */
  timestamp(instant: Date | null | undefined): string | null {
    if (!instant) return null;
    const second = Math.floor(instant.getTime() / 1000);
    const known = this.formatted.get(second);
    if (known !== undefined) return known;
    if (this.formatted.size >= FORMATTED_SECONDS_KEPT) this.formatted.clear();
    const text = this.format(instant);
    this.formatted.set(second, text);
    return text;
  }

  private format(instant: Date): string {
    const part: Record<string, string> = {};
    for (const { type, value } of this.formatter.formatToParts(instant)) part[type] = value;
    // The formatter is built with year, month, day, hour, minute and second: each part is there.
    return `${part.year!.padStart(4, '0')}-${part.month}-${part.day} ${part.hour}:${part.minute}:${part.second}`;
  }
}

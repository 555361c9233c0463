import dayjs, { type Dayjs } from 'dayjs';
import customParseFormat from 'dayjs/plugin/customParseFormat';
import timezone from 'dayjs/plugin/timezone';
import utc from 'dayjs/plugin/utc';

dayjs.extend(utc);
dayjs.extend(timezone);
dayjs.extend(customParseFormat);

export { dayjs, type Dayjs };

const DATE_SHAPE = /^\d{4}-\d{2}-\d{2}$/;
const MONTH_SHAPE = /^\d{4}-\d{2}$/;
const TIME_SHAPE = /^([01]\d|2[0-3]):[0-5]\d$/;

/** A real calendar date written `YYYY-MM-DD` (2026-02-30 is not one). */
export function isCalendarDate(value: unknown): value is string {
  return typeof value === 'string' && DATE_SHAPE.test(value) && dayjs(value, 'YYYY-MM-DD', true).isValid();
}

export function isCalendarMonth(value: unknown): value is string {
  return typeof value === 'string' && MONTH_SHAPE.test(value) && dayjs(`${value}-01`, 'YYYY-MM-DD', true).isValid();
}

export function isClockTime(value: unknown): value is string {
  return typeof value === 'string' && TIME_SHAPE.test(value);
}

/** "Today", "now" and timestamps as the clinic sees them (`CLINIC_TZ`). */
export class ClinicClock {
  constructor(readonly timeZone: string) {
    // Throws RangeError for an unknown zone, at start-up rather than on a request.
    new Intl.DateTimeFormat('en-US', { timeZone });
  }

  now(): Dayjs {
    return dayjs().tz(this.timeZone);
  }

  today(): string {
    return this.now().format('YYYY-MM-DD');
  }

  currentMonth(): string {
    return this.now().format('YYYY-MM');
  }

  /** `YYYY-MM-DD HH:MM:SS` in the clinic's zone. */
  timestamp(instant: Date | null | undefined): string | null {
    return instant ? dayjs(instant).tz(this.timeZone).format('YYYY-MM-DD HH:mm:ss') : null;
  }
}

import dayjs from 'dayjs';
import timezone from 'dayjs/plugin/timezone';
import utc from 'dayjs/plugin/utc';
import fc from 'fast-check';
import { ClinicClock } from '../src/domain/clock';

dayjs.extend(utc);
dayjs.extend(timezone);

describe('ClinicClock', () => {
  it.each(['Asia/Colombo', 'UTC', 'America/St_Johns', 'Pacific/Chatham', 'Europe/London'])(
    'formats instants in %s as dayjs does',
    (zone) => {
      const clock = new ClinicClock(zone);
      fc.assert(
        fc.property(
          fc.date({
            min: new Date('1970-01-01T00:00:00Z'),
            max: new Date('2100-01-01T00:00:00Z'),
            noInvalidDate: true,
          }),
          (instant) => {
            expect(clock.timestamp(instant)).toBe(dayjs(instant).tz(zone).format('YYYY-MM-DD HH:mm:ss'));
          },
        ),
        { numRuns: 300 },
      );
    },
  );

  it('gives today and the month in the clinic zone', () => {
    const clock = new ClinicClock('Pacific/Kiritimati'); // UTC+14: usually another date than UTC
    expect(clock.today()).toBe(dayjs().tz('Pacific/Kiritimati').format('YYYY-MM-DD'));
    expect(clock.currentMonth()).toBe(clock.today().slice(0, 7));
    expect(clock.timestamp(null)).toBeNull();
  });

  it('refuses an unknown zone at once', () => {
    expect(() => new ClinicClock('Mars/Olympus')).toThrow(RangeError);
  });
});

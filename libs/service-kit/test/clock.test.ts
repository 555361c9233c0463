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

  it('formats an instant of a second it formatted before as dayjs does', () => {
    const clock = new ClinicClock('Asia/Colombo');
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 4_102_444_800_000 }), fc.integer({ min: 0, max: 999 }), (ms, within) => {
        const other = new Date(Math.floor(ms / 1000) * 1000 + within);
        clock.timestamp(new Date(ms));
        expect(clock.timestamp(other)).toBe(dayjs(other).tz('Asia/Colombo').format('YYYY-MM-DD HH:mm:ss'));
      }),
      { numRuns: 500 },
    );
  });

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
